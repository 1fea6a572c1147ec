package callbackgate

import (
	"reflect"
	"unsafe"

	"github.com/zlua-go/zlua/cgo"
	"github.com/zlua-go/zlua/objreg"
)

// heldDelegates are the typed funcs with an object and one more argument
// and no result but an optional error: a handler called per entity with
// the frame's time step or another entity (func(e any, dt float64) error,
// func(a, b any) error). An object Lua holds and a number go as scalars
// (CallHeld: callAnyNum, callHeld2); anything else takes the push
// program.
func heldDelegates() map[reflect.Type]func(f *Function) any {
	return map[reflect.Type]func(f *Function) any{
		reflect.TypeFor[func(any, float64) error](): func(f *Function) any {
			return func(a any, x float64) error { return f.callAnyNum(a, 0, x, false) }
		},
		reflect.TypeFor[func(any, float64)](): func(f *Function) any {
			return func(a any, x float64) { must(f.callAnyNum(a, 0, x, false)) }
		},
		reflect.TypeFor[func(any, int) error](): func(f *Function) any {
			return func(a any, n int) error { return f.callAnyNum(a, int64(n), 0, true) }
		},
		reflect.TypeFor[func(any, int)](): func(f *Function) any {
			return func(a any, n int) { must(f.callAnyNum(a, int64(n), 0, true)) }
		},
		reflect.TypeFor[func(any, any) error](): func(f *Function) any {
			return func(a, b any) error { return f.callAny2(a, b) }
		},
		reflect.TypeFor[func(any, any)](): func(f *Function) any {
			return func(a, b any) { must(f.callAny2(a, b)) }
		},
	}
}

// callAny2 calls f with a and b pushed like SetGlobal values, for no
// result: through callHeld2 when each is an object Lua holds or a scalar,
// else through the push program.
func (f *Function) callAny2(a, b any) error {
	g, err := f.start()
	if err != nil {
		return f.refusal(err)
	}
	if held, r, top, err := f.callHeld2(g, a, b); held {
		g.endCall(r, top)
		return err
	}
	for i, x := range [2]any{a, b} {
		if err := g.push(x, f.name, 0); err != nil {
			g.Exit()
			return f.argError(i, err)
		}
	}
	r, top, err := f.finish(g, 0, 2) // the program's path: one frame more is nothing to it
	g.endCall(r, top)
	return err
}

// callAnyNum calls f with a pushed like a SetGlobal value and then the
// integer n (isInt) or the float x, for no result: through CallHeld
// when a is an object Lua holds or a scalar, else through the push
// program. (A number passed as an any would be boxed: an allocation.)
func (f *Function) callAnyNum(a any, n int64, x float64, isInt bool) error {
	g, err := f.start()
	if err != nil {
		return f.refusal(err)
	}
	if r, nheld := g.heldArg(a); r != nil {
		if isInt {
			r.SetInt(1, n)
		} else {
			r.SetNum(1, x)
		}
		if held, r, top, err := f.callHeldArgs(g, r, 2, 0, nheld); held {
			g.endCall(r, top)
			return err
		}
	}
	if err := g.push(a, f.name, 0); err != nil {
		g.Exit()
		return f.argError(0, err)
	}
	if isInt {
		g.S.PutInt(n)
	} else {
		g.S.PutNum(x)
	}
	r, top, err := f.finish(g, 0, 2)
	g.endCall(r, top)
	return err
}

// callHeld2 is callHeld for two arguments, each an object Lua holds or a
// scalar.
func (f *Function) callHeld2(g *Gate, a, b any) (held bool, r *cgo.CallResult, top int, err error) {
	r, n := g.heldArg(a)
	if r == nil {
		return false, nil, 0, nil
	}
	if g.setHeld(r, 1, b) {
		n++
	} else if !setArgScalar(r, 1, b) {
		return false, nil, 0, nil
	}
	return f.callHeldArgs(g, r, 2, 0, n)
}

// callHeld is callAny's call, once started, with an object Lua holds: a
// non-nil pointer of a bound type (without a view) whose slot is live. C
// pushes its userdata from the identity cache in the call's own crossing
// (CallResult.SetHeld): no push program, and no keep-alive until a Settle
// (objreg Lookup), since no Lua code runs between the lookup and the
// push. held is false when nothing was called: another argument, charges
// to carry, or a userdata Lua collected (the cache missed); the caller
// then pushes a through the program start began, which makes a new
// userdata.
func (f *Function) callHeld(g *Gate, a any, nres int) (held bool, r *cgo.CallResult, top int, err error) {
	r, n := g.heldArg(a)
	if r == nil || n == 0 {
		return false, nil, 0, nil
	}
	return f.callHeldArgs(g, r, 1, nres, 1)
}

// heldArg begins a call's arguments in the result buffer of its depth:
// argument 0 is a, an object Lua holds (nheld 1) or a scalar (nheld 0).
// r is nil when a is neither, when the call carries charges (the push
// program does), or when there is no buffer (the program's path reports
// it).
func (g *Gate) heldArg(a any) (r *cgo.CallResult, nheld int) {
	if g.pushCharges() {
		return nil, 0
	}
	r, err := g.callResult()
	if err != nil {
		return nil, 0
	}
	if g.setHeld(r, 0, a) {
		return r, 1
	}
	if setArgScalar(r, 0, a) {
		return r, 0
	}
	return nil, 0
}

// setHeld sets argument i of r to the object a when Lua holds it (see
// callHeld); false, setting nothing, for anything else.
func (g *Gate) setHeld(r *cgo.CallResult, i int, a any) bool {
	e := (*eface)(unsafe.Pointer(&a))
	if e.data == nil {
		return false
	}
	b := g.lastBind // bindingFor's own first check
	if b == nil || b.view != nil || e.tab != typeWord(b.typ) {
		typ := reflect.TypeOf(a)
		if typ.Kind() != reflect.Pointer {
			return false
		}
		var ok bool
		if b, ok = g.binds[bindKey{typ, nil}]; !ok {
			return false // a type not pushed yet: push binds it
		}
		g.lastBind = b
	}
	if !b.byPtr {
		return false
	}
	key, keyed := objreg.MakeKey(e.data, b.id)
	if !keyed {
		return false
	}
	slot, gen, ok := g.objs.Held(key)
	if !ok {
		return false
	}
	var ptr uintptr
	if b.eagerPin { // as pinPushed: C fields are served through the address
		ptr = uintptr(g.objs.Pin(g.objs.Get(slot, gen)))
	}
	r.SetHeld(i, slot, gen, ptr)
	return true
}

// callHeldArgs calls f with the n arguments set in r, nheld of them held
// objects: held is false when the cache missed one, and nothing was
// called.
func (f *Function) callHeldArgs(g *Gate, r *cgo.CallResult, n, nres, nheld int) (held bool, _ *cgo.CallResult, top int, err error) {
	var st int
	if nheld > 0 {
		st = g.S.CallHeld(g.cur, f.ref, f.selfRef(), n, nres, r)
	} else {
		st = g.S.CallScalars(g.cur, f.ref, f.selfRef(), n, nres, r)
	}
	if st == cgo.CallMiss {
		return false, nil, 0, nil
	}
	if nheld > 0 {
		g.objs.Hit(nheld)
		g.heldCalls++
	}
	top, err = f.callDone(g, r, st)
	return true, r, top, err
}
