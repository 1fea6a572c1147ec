package callbackgate

import (
	"reflect"
)

// twoDelegates are the typed funcs with two string or number arguments
// and no result but an optional error: events that carry a name and a
// value (func(event, payload string) error, func(name string, n int)
// error) and two-number steps (func(x, y float64) error). Before the
// twenty-ninth round they took reflect.MakeFunc: 3 to 4 allocations a
// call (outside probe C2-F2). Two numbers go as scalars (CallScalars, as
// func(int) error does); a string takes the push program, as
// func(string) error does. As every fast delegate, none allocates.
func twoDelegates() map[reflect.Type]func(f *Function) any {
	return map[reflect.Type]func(f *Function) any{
		reflect.TypeFor[func(string, string) error](): func(f *Function) any {
			return func(a, b string) error { return f.callStr2(a, b, 0, false) }
		},
		reflect.TypeFor[func(string, string)](): func(f *Function) any {
			return func(a, b string) { must(f.callStr2(a, b, 0, false)) }
		},
		reflect.TypeFor[func(string, int) error](): func(f *Function) any {
			return func(a string, n int) error { return f.callStr2(a, "", int64(n), true) }
		},
		reflect.TypeFor[func(string, int)](): func(f *Function) any {
			return func(a string, n int) { must(f.callStr2(a, "", int64(n), true)) }
		},
		reflect.TypeFor[func(int, int) error](): func(f *Function) any {
			return func(a, b int) error { return f.callNum2(int64(a), int64(b), 0, 0, true) }
		},
		reflect.TypeFor[func(int, int)](): func(f *Function) any {
			return func(a, b int) { must(f.callNum2(int64(a), int64(b), 0, 0, true)) }
		},
		reflect.TypeFor[func(float64, float64) error](): func(f *Function) any {
			return func(x, y float64) error { return f.callNum2(0, 0, x, y, false) }
		},
		reflect.TypeFor[func(float64, float64)](): func(f *Function) any {
			return func(x, y float64) { must(f.callNum2(0, 0, x, y, false)) }
		},
	}
}

// callStr2 calls f with the string a and then the string b, or with isInt
// the integer n, for no result. Its end is callStr's, written out again:
// a shared helper would be one more frame between the typed func and the
// cgo stub (ARCHITECTURE, "Frames on the nested path").
func (f *Function) callStr2(a, b string, n int64, isInt bool) error {
	g, err := f.start()
	if err != nil {
		return f.refusal(err)
	}
	g.S.PutStr(a)
	if isInt {
		g.S.PutInt(n)
	} else {
		g.S.PutStr(b)
	}
	r, err := g.commit()
	top := 0
	if err == nil {
		top, err = f.callDone(g, r, g.S.CallRef(g.cur, 0, f.simpleProg(g, 2), r))
	}
	g.endCall(r, top)
	return err
}

// callNum2 calls f with two integers (isInt) or two floats, for no
// result.
func (f *Function) callNum2(i, j int64, x, y float64, isInt bool) error {
	g, r, err := f.startScalars()
	if err != nil {
		return err
	}
	if isInt {
		r.SetInt(0, i)
		r.SetInt(1, j)
	} else {
		r.SetNum(0, x)
		r.SetNum(1, y)
	}
	top, err := f.callDone(g, r, g.S.CallScalars(g.cur, f.ref, f.selfRef(), 2, 0, r))
	g.endScalar(r, top, err)
	return err
}
