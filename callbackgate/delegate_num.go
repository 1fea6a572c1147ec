package callbackgate

import (
	"reflect"

	"github.com/zlua-go/zlua/cgo"
)

// numDelegates are the typed funcs with no argument or one number and one
// number or boolean result (optionally an error after it): counters,
// queries and per-step hooks (func(dt float64) float64, func(k int) int).
// Like the other fast delegates they call without reflection and without
// allocating (reflect.MakeFunc's took 5 allocations, 104 bytes, per call);
// each closure calls callNum1 and reads its result afterwards, so one zlua
// frame stands between it and the cgo stub ("Frames on the nested path"
// in docs/ARCHITECTURE.md).
func numDelegates() map[reflect.Type]func(f *Function) any {
	return map[reflect.Type]func(f *Function) any{
		reflect.TypeFor[func() int](): func(f *Function) any {
			return func() int { return int(mustInt(f.intResult(f.callNum1(0, 0, 0)))) }
		},
		reflect.TypeFor[func() (int, error)](): func(f *Function) any {
			return func() (int, error) { v, err := f.intResult(f.callNum1(0, 0, 0)); return int(v), err }
		},
		reflect.TypeFor[func() float64](): func(f *Function) any {
			return func() float64 { return mustFloat(f.floatResult(f.callNum1(0, 0, 0))) }
		},
		reflect.TypeFor[func() (float64, error)](): func(f *Function) any {
			return func() (float64, error) { return f.floatResult(f.callNum1(0, 0, 0)) }
		},
		reflect.TypeFor[func() bool](): func(f *Function) any {
			return func() bool { return mustBool(f.boolResult(f.callNum1(0, 0, 0))) }
		},
		reflect.TypeFor[func() (bool, error)](): func(f *Function) any {
			return func() (bool, error) { return f.boolResult(f.callNum1(0, 0, 0)) }
		},
		reflect.TypeFor[func(int) int](): func(f *Function) any {
			return func(a int) int { return int(mustInt(f.intResult(f.callNum1(1, int64(a), 0)))) }
		},
		reflect.TypeFor[func(int) (int, error)](): func(f *Function) any {
			return func(a int) (int, error) {
				v, err := f.intResult(f.callNum1(1, int64(a), 0))
				return int(v), err
			}
		},
		reflect.TypeFor[func(int) float64](): func(f *Function) any {
			return func(a int) float64 { return mustFloat(f.floatResult(f.callNum1(1, int64(a), 0))) }
		},
		reflect.TypeFor[func(int) (float64, error)](): func(f *Function) any {
			return func(a int) (float64, error) { return f.floatResult(f.callNum1(1, int64(a), 0)) }
		},
		reflect.TypeFor[func(int) bool](): func(f *Function) any {
			return func(a int) bool { return mustBool(f.boolResult(f.callNum1(1, int64(a), 0))) }
		},
		reflect.TypeFor[func(int) (bool, error)](): func(f *Function) any {
			return func(a int) (bool, error) { return f.boolResult(f.callNum1(1, int64(a), 0)) }
		},
		reflect.TypeFor[func(float64) int](): func(f *Function) any {
			return func(a float64) int { return int(mustInt(f.intResult(f.callNum1(2, 0, a)))) }
		},
		reflect.TypeFor[func(float64) (int, error)](): func(f *Function) any {
			return func(a float64) (int, error) {
				v, err := f.intResult(f.callNum1(2, 0, a))
				return int(v), err
			}
		},
		reflect.TypeFor[func(float64) float64](): func(f *Function) any {
			return func(a float64) float64 { return mustFloat(f.floatResult(f.callNum1(2, 0, a))) }
		},
		reflect.TypeFor[func(float64) (float64, error)](): func(f *Function) any {
			return func(a float64) (float64, error) { return f.floatResult(f.callNum1(2, 0, a)) }
		},
		reflect.TypeFor[func(float64) bool](): func(f *Function) any {
			return func(a float64) bool { return mustBool(f.boolResult(f.callNum1(2, 0, a))) }
		},
		reflect.TypeFor[func(float64) (bool, error)](): func(f *Function) any {
			return func(a float64) (bool, error) { return f.boolResult(f.callNum1(2, 0, a)) }
		},
	}
}

// callNum1 starts a call of f for one result with no argument (arg 0), the
// integer i (arg 1) or the float n (arg 2). Unless g is nil (the call
// never started), the caller reads the result and ends the call
// (intResult, floatResult, boolResult).
func (f *Function) callNum1(arg int, i int64, n float64) (g *Gate, r *cgo.CallResult, top int, err error) {
	if g, r, err = f.startScalars(); err != nil {
		return nil, nil, 0, err
	}
	nargs := 0
	switch arg {
	case 1:
		r.SetInt(0, i)
		nargs = 1
	case 2:
		r.SetNum(0, n)
		nargs = 1
	}
	top, err = f.callDone(g, r, g.S.CallScalars(g.cur, f.ref, f.selfRef(), nargs, 1, r))
	return g, r, top, err
}

// mustInt, mustFloat and mustBool are must for a delegate without an error
// result: the value, or a panic with the error.
func mustInt(v int64, err error) int64 {
	must(err)
	return v
}

func mustFloat(v float64, err error) float64 {
	must(err)
	return v
}

func mustBool(v bool, err error) bool {
	must(err)
	return v
}
