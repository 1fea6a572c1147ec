package callbackgate

import (
	"fmt"
	"reflect"

	"github.com/zlua-go/zlua/cgo"
)

// MakeDelegate returns a Go func of type typ that calls f: arguments are
// pushed like SetGlobal values, results converted like Go function
// arguments. If typ's last result is error, failures come back there;
// otherwise the func panics with the error. Common signatures, and
// func(*T) with the results of ptrDelegateResults, call without
// reflection and without allocating. A first parameter of type
// context.Context is not passed to Lua: the call runs under it (callctx.go).
func (g *Gate) MakeDelegate(f *Function, typ reflect.Type) reflect.Value {
	if typ.NumIn() > 0 && typ.In(0) == contextType {
		return g.makeContextDelegate(f, typ)
	}
	if mk, ok := fastDelegates[typ]; ok {
		return reflect.ValueOf(mk(f))
	}
	if v, ok := ptrDelegate(f, typ); ok {
		return v
	}
	nres, errLast := resultShape(typ)
	return reflect.MakeFunc(typ, func(args []reflect.Value) []reflect.Value {
		return reflectCall(typ, args, nres, errLast, f.callReflect)
	})
}

// resultShape reports how many of a delegate type's results come from
// Lua (nres) and whether its last result is the error (errLast).
func resultShape(typ reflect.Type) (nres int, errLast bool) {
	nres = typ.NumOut()
	errLast = nres > 0 && typ.Out(nres-1) == errorType
	if errLast {
		nres--
	}
	return nres, errLast
}

// reflectCall is the body of a reflect-made delegate of type typ: spreads
// a variadic last argument, makes the zero results, calls call with the
// first nres of them, and delivers its error as the error result (errLast)
// or as a panic (a func without one has no other way to report it).
func reflectCall(typ reflect.Type, args []reflect.Value, nres int, errLast bool,
	call func(args, out []reflect.Value) error) []reflect.Value {
	if typ.IsVariadic() && len(args) > 0 {
		last := args[len(args)-1]
		spread := make([]reflect.Value, 0, len(args)-1+last.Len())
		spread = append(spread, args[:len(args)-1]...)
		for i := 0; i < last.Len(); i++ {
			spread = append(spread, last.Index(i))
		}
		args = spread
	}
	if nres == 0 && errLast {
		// no result from Lua: a success returns the shared nil error
		// (reflect only reads a MakeFunc's results), a failure its own
		if err := call(args, nil); err != nil {
			return []reflect.Value{errorValue(err)}
		}
		return nilErrorResult
	}
	out := make([]reflect.Value, typ.NumOut())
	for i := range nres {
		out[i] = reflect.New(typ.Out(i)).Elem()
	}
	err := call(args, out[:nres])
	if err != nil && !errLast {
		panic(err)
	}
	if errLast {
		out[nres] = errorValue(err)
	}
	return out
}

// nilErrorResult is the results of a reflect-made func whose only result
// is an error that is nil: never written (reflect.MakeFunc's caller reads
// the slice and copies the values out), so every such call shares it.
var nilErrorResult = []reflect.Value{reflect.Zero(errorType)}

// errorValue is err as a reflect-made func's error result: the shared
// zero Value for nil, else a new one (a function of its own, so that its
// callers' err stays on the stack).
func errorValue(err error) reflect.Value {
	if err == nil {
		return nilErrorResult[0]
	}
	p := new(error)
	*p = err
	return reflect.ValueOf(p).Elem()
}

func (f *Function) callReflect(args, out []reflect.Value) error {
	g, err := f.start()
	if err != nil {
		return f.refusal(err)
	}
	for i, a := range args {
		if err := g.pushValue(a, f.name, 0); err != nil {
			g.Exit()
			return f.argError(i, err)
		}
	}
	r, top, err := f.finish(g, wantResults(out), len(args))
	if err == nil {
		err = f.readResults(g, r, top, out)
	}
	g.endCall(r, top)
	return err
}

// readResults converts a call's first len(out) results into out, the
// typed results of a reflect-made delegate; a last Values takes the rest
// (rest.go).
func (f *Function) readResults(g *Gate, r *cgo.CallResult, top int, out []reflect.Value) error {
	for i := range out {
		if i == len(out)-1 && restOf(out) {
			j, err := g.ReadRest(g.cur, out[i], i, int(r.N), func(k int) (cgo.Arg, int) { return g.result(r, top, k) })
			if err != nil {
				return f.resultError(j, err)
			}
			break
		}
		a, idx := g.result(r, top, i)
		if err := g.read(g.cur, idx, &a, out[i], 0); err != nil {
			return f.resultError(i, err)
		}
	}
	return nil
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// fastDelegates build typed funcs for common handler signatures.
var fastDelegates map[reflect.Type]func(f *Function) any

func init() {
	fastDelegates = makeFastDelegates()
	for t, mk := range numDelegates() {
		fastDelegates[t] = mk
	}
	for t, mk := range twoDelegates() {
		fastDelegates[t] = mk
	}
	for t, mk := range heldDelegates() {
		fastDelegates[t] = mk
	}
}

func makeFastDelegates() map[reflect.Type]func(f *Function) any {
	return map[reflect.Type]func(f *Function) any{
		reflect.TypeFor[func()]():              func(f *Function) any { return func() { must(f.call0()) } },
		reflect.TypeFor[func() error]():        func(f *Function) any { return f.call0 },
		reflect.TypeFor[func(int)]():           func(f *Function) any { return func(a int) { must(f.callNum(int64(a), 0, true)) } },
		reflect.TypeFor[func(int) error]():     func(f *Function) any { return func(a int) error { return f.callNum(int64(a), 0, true) } },
		reflect.TypeFor[func(float64)]():       func(f *Function) any { return func(a float64) { must(f.callNum(0, a, false)) } },
		reflect.TypeFor[func(float64) error](): func(f *Function) any { return func(a float64) error { return f.callNum(0, a, false) } },
		reflect.TypeFor[func(string)]():        func(f *Function) any { return func(a string) { must(f.callStr(a)) } },
		reflect.TypeFor[func(string) error]():  func(f *Function) any { return f.callStr },
		reflect.TypeFor[func(int, int) int](): func(f *Function) any {
			return func(a, b int) int {
				v, err := f.callIntInt(int64(a), int64(b))
				must(err)
				return int(v)
			}
		},
		reflect.TypeFor[func(int, int) (int, error)](): func(f *Function) any {
			return func(a, b int) (int, error) {
				v, err := f.callIntInt(int64(a), int64(b))
				return int(v), err
			}
		},
		// One argument of any type (an object, a struct, zlua.Opaque(p),
		// which is one pointer word and boxes for free) and one typed
		// result: handlers called once per entity or per event.
		reflect.TypeFor[func(any)]():       func(f *Function) any { return func(a any) { must(f.callAny0(a)) } },
		reflect.TypeFor[func(any) error](): func(f *Function) any { return f.callAny0 },
		// These closures call callAny themselves and read its result
		// afterwards: at the cgo call only callAny's frame is between
		// them and the cgo stub (see "Frames on the nested path").
		reflect.TypeFor[func(any) float64](): func(f *Function) any {
			return func(a any) float64 {
				g, r, top, err := f.callAny(a, 1)
				v, err := f.floatResult(g, r, top, err)
				must(err)
				return v
			}
		},
		reflect.TypeFor[func(any) (float64, error)](): func(f *Function) any {
			return func(a any) (float64, error) {
				g, r, top, err := f.callAny(a, 1)
				return f.floatResult(g, r, top, err)
			}
		},
		reflect.TypeFor[func(any) int](): func(f *Function) any {
			return func(a any) int {
				g, r, top, err := f.callAny(a, 1)
				v, err := f.intResult(g, r, top, err)
				must(err)
				return int(v)
			}
		},
		reflect.TypeFor[func(any) (int, error)](): func(f *Function) any {
			return func(a any) (int, error) {
				g, r, top, err := f.callAny(a, 1)
				v, err := f.intResult(g, r, top, err)
				return int(v), err
			}
		},
		reflect.TypeFor[func(any) bool](): func(f *Function) any {
			return func(a any) bool {
				g, r, top, err := f.callAny(a, 1)
				v, err := f.boolResult(g, r, top, err)
				must(err)
				return v
			}
		},
		reflect.TypeFor[func(any) (bool, error)](): func(f *Function) any {
			return func(a any) (bool, error) {
				g, r, top, err := f.callAny(a, 1)
				return f.boolResult(g, r, top, err)
			}
		},
	}
}

// callAny starts a call of f with one argument pushed like a SetGlobal
// value and nres results. Unless g is nil (the call never started), the
// caller reads the results and ends with g.endCall(r, top).
//
// An opaque handle (zlua.Opaque) is a light userdata, a scalar, so the
// call takes one crossing without a push program. Its common case, an
// outermost call of a live function with a handle of the type passed
// last, is made here, in this frame: the cgo stub is called from callAny
// itself (see "Frames on the nested path" in docs/ARCHITECTURE.md). It
// wins the claim with Enter's CAS; once won, nothing else runs on the
// state and no handle is open (the last outermost Exit closed them all),
// so the handle is entry 0. Anything else undoes the claim and takes
// callOpaqueSlow, the same steps through their functions.
func (f *Function) callAny(a any, nres int) (g *Gate, r *cgo.CallResult, top int, err error) {
	if x, ok := a.(OpaqueArg); ok {
		g = f.g
		if g == nil || f.usable() != nil || !g.busy.CompareAndSwap(gateIdle, gateClaimed) {
			return f.callOpaqueSlow(x, nres)
		}
		g.deep++
		p, typ := x.OpaqueTarget()
		sv := &g.sv
		if p == nil || !sameType(typ, sv.opqLast.typ) || cap(sv.opq) == 0 || len(sv.opq) != 0 ||
			g.deep >= len(g.callRes) || g.Closed() || f.gen != g.gen {
			g.Exit()
			return f.callOpaqueSlow(x, nres)
		}
		r = g.callRes[g.deep]
		r.SetLight(0, sv.putOpaque(0, p, typ, g.deep))
		top, err = f.callDone(g, r, g.S.CallScalars(g.cur, f.ref, f.selfRef(), 1, nres, r))
		return g, r, top, err
	}
	if g, err = f.start(); err != nil {
		return nil, nil, 0, f.refusal(err)
	}
	if held, r, top, err := f.callHeld(g, a, nres); held {
		return g, r, top, err
	}
	if err := g.push(a, f.name, 0); err != nil {
		g.Exit()
		return nil, nil, 0, f.argError(0, err)
	}
	if r, err = g.commit(); err != nil {
		return g, r, 0, err
	}
	top, err = f.callDone(g, r, g.S.CallRef(g.cur, nres, f.simpleProg(g, 1), r))
	return g, r, top, err
}

// callOpaqueSlow is callAny's opaque call through startScalars and
// openOpaque: a nested call, a new handle type, a nil pointer, the first
// handle of the gate, and every error.
func (f *Function) callOpaqueSlow(x OpaqueArg, nres int) (*Gate, *cgo.CallResult, int, error) {
	g, r, err := f.startScalars()
	if err != nil {
		return nil, nil, 0, err
	}
	h, err := g.openOpaque(x)
	if err != nil {
		g.Exit()
		return nil, nil, 0, f.argError(0, err)
	}
	if h == 0 {
		r.SetNil(0)
	} else {
		r.SetLight(0, h)
	}
	top, err := f.callDone(g, r, g.S.CallScalars(g.cur, f.ref, f.selfRef(), 1, nres, r))
	return g, r, top, err
}

func (f *Function) callAny0(a any) error {
	g, r, top, err := f.callAny(a, 0)
	if g != nil {
		g.endCall(r, top)
	}
	return err
}

// firstResult is the first result of a call made for one (nres 1) that
// did not raise, and its stack index: a missing one reads as nil.
func firstResult(r *cgo.CallResult, top int) (*cgo.Arg, int) {
	if r.N < 1 {
		return &noResult, top + 1
	}
	return &r.Res[0], top + 1
}

// noResult is a missing result. A call or resume that returned fewer
// values than the typed func declares is adjusted as a Lua multiple
// assignment is: the missing ones are nil (a call made for a fixed count
// gets them as nils from Lua itself), and their errors say "got nil".
var noResult = cgo.Arg{Type: int32(cgo.TNil)}

// floatResult ends a call callAny started for one result: it converts the
// first result like a float64 parameter and ends the call (g nil: the
// call never started, err says why).
func (f *Function) floatResult(g *Gate, r *cgo.CallResult, top int, err error) (float64, error) {
	if g == nil {
		return 0, err
	}
	var v float64
	if err == nil {
		res, idx := firstResult(r, top)
		if res.Type == int32(cgo.TNumber) && !res.IsInt() {
			v = res.Num()
		} else if v, err = g.readFloat(g.cur, idx, res); err != nil {
			err = f.resultError(0, err)
		}
	}
	g.endScalar(r, top, err)
	return v, err
}

// intResult ends a call callAny started for one result: it converts the
// first result like an int64 parameter and ends the call (g nil: the
// call never started, err says why).
func (f *Function) intResult(g *Gate, r *cgo.CallResult, top int, err error) (int64, error) {
	if g == nil {
		return 0, err
	}
	var v int64
	if err == nil {
		res, idx := firstResult(r, top)
		if res.Type == int32(cgo.TNumber) && res.IsInt() {
			v = res.Int()
		} else if v, err = g.readInt(g.cur, idx, res); err != nil {
			err = f.resultError(0, err)
		}
	}
	g.endScalar(r, top, err)
	return v, err
}

// boolResult ends a call callAny started for one result: it converts the
// first result like a bool parameter and ends the call (g nil: the
// call never started, err says why).
func (f *Function) boolResult(g *Gate, r *cgo.CallResult, top int, err error) (bool, error) {
	if g == nil {
		return false, err
	}
	var v bool
	if err == nil {
		res, idx := firstResult(r, top)
		if v, err = g.readBool(g.cur, idx, res); err != nil {
			err = f.resultError(0, err)
		}
	}
	g.endScalar(r, top, err)
	return v, err
}

// refusal names the call in a handle's refusal of a typed func's call
// ("zlua: call "tick": handle belongs to a reset or closed Env"), as
// Function.Call does; other errors are returned as they are.
func (f *Function) refusal(err error) error {
	switch err {
	case errZeroHandle, ErrCopied, ErrReleased, ErrStale:
		return &stepError{step: fmt.Sprintf("call %q", f.name), err: err}
	}
	return err
}

// startScalars begins a call whose arguments are scalars the caller sets
// in r.In before its cgo call (CallScalars, then callDone): start without
// a push program (the function and its receiver are passed by ref).
func (f *Function) startScalars() (*Gate, *cgo.CallResult, error) {
	if f.g == nil {
		return nil, nil, f.refusal(errZeroHandle)
	}
	if err := f.usable(); err != nil {
		return nil, nil, f.refusal(err)
	}
	g := f.g
	if err := g.Enter(); err != nil {
		if err == ErrClosed {
			return nil, nil, f.refusal(ErrStale)
		}
		return nil, nil, err
	}
	// f.check's tests that remain once f.g and f.released are known
	if g.Closed() || f.gen != g.gen {
		g.Exit()
		return nil, nil, f.refusal(ErrStale)
	}
	if g.deep == 1 {
		g.scalarCalls = g.S.OwnCalls() // for endScalar
	}
	if g.deep < len(g.callRes) { // callResult's common case, inline
		return g, g.callRes[g.deep], nil
	}
	r, err := g.callResult()
	if err != nil {
		g.Exit()
		return nil, nil, err
	}
	return g, r, nil
}

// selfRef is the ref of f's receiver, or cgo.NoRef when f has none.
func (f *Function) selfRef() int32 {
	if f.self.g != nil {
		return f.self.ref
	}
	return cgo.NoRef
}

func (f *Function) call0() error {
	g, r, err := f.startScalars()
	if err != nil {
		return err
	}
	top, err := f.callDone(g, r, g.S.CallScalars(g.cur, f.ref, f.selfRef(), 0, 0, r))
	g.endScalar(r, top, err)
	return err
}

func (f *Function) callNum(i int64, n float64, isInt bool) error {
	g, r, err := f.startScalars()
	if err != nil {
		return err
	}
	if isInt {
		r.SetInt(0, i)
	} else {
		r.SetNum(0, n)
	}
	top, err := f.callDone(g, r, g.S.CallScalars(g.cur, f.ref, f.selfRef(), 1, 0, r))
	g.endScalar(r, top, err)
	return err
}

func (f *Function) callStr(s string) error {
	g, err := f.start()
	if err != nil {
		return f.refusal(err)
	}
	g.S.PutStr(s)
	r, err := g.commit()
	top := 0
	if err == nil {
		top, err = f.callDone(g, r, g.S.CallRef(g.cur, 0, f.simpleProg(g, 1), r))
	}
	g.endCall(r, top)
	return err
}

func (f *Function) callIntInt(a, b int64) (int64, error) {
	g, r, err := f.startScalars()
	if err != nil {
		return 0, err
	}
	r.SetInt(0, a)
	r.SetInt(1, b)
	top, err := f.callDone(g, r, g.S.CallScalars(g.cur, f.ref, f.selfRef(), 2, 1, r))
	var v int64
	if err == nil {
		if res := &r.Res[0]; res.Type == int32(cgo.TNumber) && res.IsInt() { // nres 1: r.N is 1
			v = res.Int()
		} else if v, err = g.readInt(g.cur, top+1, res); err != nil {
			err = f.resultError(0, err)
		}
	}
	g.endScalar(r, top, err)
	return v, err
}
