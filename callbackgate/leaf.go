package callbackgate

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/zlua-go/zlua/cgo"
)

// ErrLeafCall is wrapped by the error a leaf method gets when it calls into
// its Env (see DeclareLeaf).
var ErrLeafCall = errors.New("zlua: a leaf method called into its Env")

// leafError is the error of one leaf method calling into its Env.
type leafError struct{ text string }

func (e *leafError) Error() string { return e.text }
func (e *leafError) Unwrap() error { return ErrLeafCall }

// leafSig is a declared leaf method's signature as the closures see it.
type leafSig struct {
	params  []reflect.Kind
	results []reflect.Kind // without the error
	nres    int
	pb, rb  uint8        // bit i: parameter / result i is a boolean
	res     uint8        // the results' shape: resGeneral, resObj or one of the float shapes
	out     reflect.Type // resObj: the pointer type of the one result
	// lo, hi: the range of parameter i's values (leafRange), for the
	// kinds other than bool and float64
	lo, hi [cgo.MaxLeafParams]float64
}

// The result shapes leafDispatch returns without a loop over the kinds.
const (
	resGeneral uint8 = iota // any other: (*leafMethod).results converts each
	resNone                 // no result
	resF1                   // one float64
	resF2                   // two float64s
	resB1                   // one bool
	resI1                   // one int or int64
	resObj                  // one pointer: an object (retPtr's), sig.out
)

var (
	leafMu    sync.RWMutex
	leafDecls = map[reflect.Type]map[string]*leafSig{}
	// boundTypes holds the types some gate has bound: their leaf
	// declarations are final.
	boundTypes sync.Map
)

// DeclareLeaf declares methods of t as leaf methods: each promises never
// to call into its Env while it runs. It fails, declaring nothing, for a
// type that is not a pointer, a method t does not have, a signature the
// leaf path cannot take (at most 4 parameters and 2 results, each an
// integer, float or bool, or one pointer, and an optional error last), or a method not yet
// declared of a type an Env has bound already (its methods tables are
// made).
func DeclareLeaf(t reflect.Type, names []string) error {
	if t == nil || t.Kind() != reflect.Pointer {
		return fmt.Errorf("zlua: Leaf[%v]: leaf methods need a pointer type", t)
	}
	if len(names) == 0 {
		return fmt.Errorf("zlua: Leaf[%v]: no method named", t)
	}
	sigs := make(map[string]*leafSig, len(names))
	for _, name := range names {
		m, ok := t.MethodByName(name)
		if !ok {
			return fmt.Errorf("zlua: Leaf[%v]: %v has no exported method %q", t, t, name)
		}
		sig, err := leafSigOf(m.Type)
		if err != nil {
			return fmt.Errorf("zlua: Leaf[%v]: method %s: %w", t, name, err)
		}
		sigs[name] = sig
	}
	leafMu.Lock()
	defer leafMu.Unlock()
	if _, bound := boundTypes.Load(t); bound {
		for name := range sigs {
			if leafDecls[t][name] == nil {
				return fmt.Errorf("zlua: Leaf[%v]: method %s declared after an Env bound the type; declare leaf methods before its first use (e.g. in init)", t, name)
			}
		}
		return nil // nothing new
	}
	if leafDecls[t] == nil {
		leafDecls[t] = map[string]*leafSig{}
	}
	for name, sig := range sigs {
		leafDecls[t][name] = sig
	}
	return nil
}

// leafSigOf checks a method type (receiver first) for the leaf path.
func leafSigOf(ft reflect.Type) (*leafSig, error) {
	if ft.IsVariadic() {
		return nil, errors.New("is variadic (a leaf method takes at most 4 numbers or booleans)")
	}
	n := ft.NumIn() - 1
	if n > cgo.MaxLeafParams {
		return nil, fmt.Errorf("takes %d parameters (a leaf method takes at most %d)", n, cgo.MaxLeafParams)
	}
	sig := &leafSig{}
	for i := 1; i <= n; i++ {
		k := ft.In(i).Kind()
		if !leafKind(k) {
			return nil, fmt.Errorf("parameter %d is %v (a leaf method takes numbers and booleans)", i, ft.In(i))
		}
		if k == reflect.Bool {
			sig.pb |= 1 << (i - 1)
		}
		sig.params = append(sig.params, k)
	}
	outs := ft.NumOut()
	if outs > 0 && ft.Out(outs-1) == errorType {
		outs--
	}
	if outs > 2 {
		return nil, fmt.Errorf("returns %d values (a leaf method returns at most 2 numbers or booleans, or one pointer, and an error)", outs)
	}
	if outs == 1 && ft.Out(0).Kind() == reflect.Pointer && !isHandle(ft.Out(0)) {
		// one pointer: the object retPtr returns (its userdata, found in
		// the identity cache by the LuaJIT closure: jitleaf.c)
		sig.out, sig.res, sig.nres = ft.Out(0), resObj, 1
		sig.results = []reflect.Kind{reflect.Pointer}
		for i, k := range sig.params {
			sig.lo[i], sig.hi[i] = leafRange(k)
		}
		return sig, nil
	}
	for i := 0; i < outs; i++ {
		k := ft.Out(i).Kind()
		if !leafKind(k) {
			return nil, fmt.Errorf("result %d is %v (a leaf method returns numbers and booleans, or one pointer)", i+1, ft.Out(i))
		}
		if k == reflect.Bool {
			sig.rb |= 1 << i
		}
		sig.results = append(sig.results, k)
	}
	sig.nres = outs
	for i, k := range sig.params {
		sig.lo[i], sig.hi[i] = leafRange(k)
	}
	switch {
	case outs == 0:
		sig.res = resNone
	case outs == 1 && sig.results[0] == reflect.Float64:
		sig.res = resF1
	case outs == 2 && sig.results[0] == reflect.Float64 && sig.results[1] == reflect.Float64:
		sig.res = resF2
	case outs == 1 && sig.results[0] == reflect.Bool:
		sig.res = resB1
	case outs == 1 && (sig.results[0] == reflect.Int || sig.results[0] == reflect.Int64):
		sig.res = resI1
	}
	return sig, nil
}

func leafKind(k reflect.Kind) bool {
	switch k {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// noteBound records that a gate bound t: its leaf declarations are read
// now and can no longer change.
func noteBound(t reflect.Type) {
	if _, ok := boundTypes.Load(t); !ok {
		leafMu.Lock()
		boundTypes.Store(t, struct{}{})
		leafMu.Unlock()
	}
}

func leafSigFor(t reflect.Type, name string) *leafSig {
	leafMu.RLock()
	defer leafMu.RUnlock()
	return leafDecls[t][name]
}

// leafMethod is a declared leaf method of one binding: its funcEntry's fn
// (the entry's call is the method's own plan, which dispatch runs under
// the leaf guard).
type leafMethod struct {
	m      *method
	sig    *leafSig
	tid    uint32     // its binding's id: the receiver's type id
	nargs  int        // the frame's arguments: the receiver and the parameters
	direct leafDirect // the method called through its function type (leafcall.go)
	name   string     // its funcEntry's name, for panics
	err    *leafError // what its Env calls return while it runs
	yield  string     // the error of a Yield from it
	// rb is the binding of sig.out (resObj), once this gate has it: a
	// leaf call cannot make one (building a metatable runs Lua), so until
	// then its calls are refused and the C closure's call makes it
	rb *binding
}

// leafState is the gate's record of the leaf method running, if any.
type leafState struct {
	m     *leafMethod
	broke bool // it called into the Env (and got m.err)
	ret   bool // a direct call's method returned (the depth is restored)
	// a direct call's registers: in the gate, not on the stack, which a
	// call through a func value would make escape (leaf calls of one gate
	// never nest: the method cannot call into Lua)
	ia  [4]uint64
	fa  [4]float64
	out leafOut
}

// methodEntry is the funcEntry of method m of b; for a declared leaf
// method it runs the method under the leaf guard, and lm is non-nil.
func (g *Gate) methodEntry(b *binding, m *method) (e funcEntry, lm *leafMethod) {
	noteBound(b.typ)
	e = funcEntry{name: b.name + ":" + m.name, fn: m, call: m.call}
	sig := leafSigFor(b.typ, m.name)
	if sig == nil {
		return e, nil
	}
	full := objName(b.typ) + "." + m.name
	lm = &leafMethod{m: m, sig: sig, name: e.name, tid: b.id, nargs: len(sig.params) + 1,
		direct: directLeaf(b.typ, m.fn.Type(), funcCode(m.fn.Interface())),
		err:    &leafError{"zlua: " + full + " is declared leaf and cannot call into its Env"},
		yield:  "zlua: " + full + " is declared leaf and cannot yield"}
	e.fn, e.leaf = lm, true // e.call stays the plan: dispatch guards it
	return e, lm
}

// putLeaf asks C to replace the method's Go function just pushed by its
// leaf closure (LuaJIT with the FFI; nothing elsewhere).
func (lm *leafMethod) putLeaf(s *cgo.State, b *binding, fnid uint32) {
	if cgo.LeafClosures {
		s.PutLeaf(b.id, fnid, len(lm.sig.params), lm.sig.pb, lm.sig.nres, lm.sig.rb)
	}
}

// The leaf guard: while a declared leaf method runs, every entry into the
// Env fails with lm.err (claimFailed), and a method that got that error
// ends with it raised, whatever it did with it. dispatch sets it inline
// (leafOf, leafDone); dispatchSlow calls guardedCall.

// leafOf is the *leafMethod of a leaf entry, read from e.fn without a type
// check (methodEntry puts it there).
func leafOf(e *funcEntry) *leafMethod { return (*leafMethod)((*eface)(unsafe.Pointer(&e.fn)).data) }

// leafDone ends the guard of the leaf method that returned st.
func (g *Gate) leafDone(st int32) int32 {
	if g.lf.broke {
		return g.leafBroke()
	}
	g.lf.m = nil
	return st
}

// leafBroke ends the guard of a leaf method that called into its Env:
// its error is raised.
func (g *Gate) leafBroke() int32 {
	lm := g.lf.m
	g.leafEnd()
	return g.raiseText(lm.err.text, lm.err)
}

// guardedCall runs e's plan, under the leaf guard for a leaf method: the
// call of dispatchSlow (dispatch has it inline). A panic: the caller's
// recovery ends the guard.
func (g *Gate) guardedCall(e *funcEntry, fr cgo.Frame) int32 {
	if !e.leaf {
		return e.call(g, e, fr)
	}
	g.lf.m, g.lf.broke = leafOf(e), false
	return g.leafDone(e.call(g, e, fr))
}

func (g *Gate) leafEnd() { g.lf.m, g.lf.broke = nil, false }

// leafRefusal is claimFailed's answer to the owner's own thread while a
// leaf method runs (nil when none does).
func (g *Gate) leafRefusal() error {
	if g.lf.m == nil {
		return nil
	}
	g.lf.broke = true
	return g.lf.m.err
}

func init() {
	cgo.SetLeafHandler(leafDispatch)
	directOn.Store(true)
}

// directOn lets leafDispatch call methods directly (leafcall.go); off,
// it runs their ordinary plan through dispatch, as off amd64.
var directOn atomic.Bool

// SetLeafDirect turns the direct calls of leaf methods on or off and
// returns the previous setting: a test hook, so that the tests exercise
// the dispatch path other architectures take.
func SetLeafDirect(on bool) bool { return directOn.Swap(on) }

// leafDispatch is the Go side of zlua_jit_call. It runs the method only
// when nothing on the way can need the Lua API (forbidden inside an FFI
// call): the frame's receiver is a live object of the method's binding,
// the arguments are values the method's plan would take as they are
// (integral and in range for an integer, within float32's range for a
// float32), nothing waits in the release queues and the depth allows a
// call (the scheduler check, yield.go, runs here when it is due).
// Anything else is refused before the method runs; the closure then
// calls the C closure, whose errors and conversions are the reference.
// The method is called directly (leafcall.go) with dispatch's bookkeeping:
// the owner's thread, the depth, the leaf guard, panics.
func leafDispatch(goid uintptr, fnid uint32, fr cgo.Frame) (status int32) {
	g := (*gates.Load())[goid]
	if g == nil || int(fnid) >= len(g.funcs) || g.deep >= MaxCallDepth {
		return cgo.StatusLeafRefused
	}
	if g.S.Queued() {
		// Draining the release queues needs the Lua API: the C closure's
		// call does it. The scheduler check alone (the tick ran out,
		// nothing queued) needs none, and runs here.
		if g.S.HasQueued() {
			return cgo.StatusLeafRefused
		}
		g.S.ClearQueued()
		g.yield()
	}
	lm, ok := g.funcs[fnid].fn.(*leafMethod)
	if !ok || (lm.sig.res == resObj && lm.rb == nil && !lm.findResultBinding(g)) {
		return cgo.StatusLeafRefused
	}
	if lm.direct == nil || !directOn.Load() {
		if !lm.accepts(g, fr) {
			return cgo.StatusLeafRefused
		}
		return dispatch(fr) // the frame carries goid and fnid (jitleaf.c)
	}
	if fr.NArgs() != lm.nargs {
		return cgo.StatusLeafRefused
	}
	slot, gen, tid, ok := fr.Self()
	if !ok || tid != lm.tid {
		return cgo.StatusLeafRefused
	}
	s := g.objs.Get(slot, gen)
	if s == nil || (lm.nargs > 1 && !lm.args(fr, &g.lf)) {
		return cgo.StatusLeafRefused
	}
	// as dispatch: zlua_jit_call recorded the owner's thread around this
	// call (zlua_owner_begin)
	lf := &g.lf
	g.deep++
	lf.m, lf.broke, lf.ret = lm, false, false
	// The recovery covers the method and the formatting of its error:
	// Error() is user code too (a typed nil pointer panics there), and a
	// panic must never unwind through the FFI call's C frames. As in
	// dispatch, status is the sign: statusPending, which nothing below
	// returns, is left only by a panic or runtime.Goexit.
	status = statusPending
	defer func() {
		if status == statusPending {
			status = g.leafRecovered(lm, recover())
		}
	}()
	lf.out.err = nil // the rest is written by the call
	lm.direct(s.Ptr(), &lf.ia, &lf.fa, &lf.out)
	lf.ret = true
	g.deep--
	var st int32
	switch {
	case lf.broke:
		st = g.raiseText(lm.err.text, lm.err)
	case lf.out.err != nil:
		lf.out.p = nil
		st = g.fail(lf.out.err) // a Yield: the leaf error (lf.m is set)
	default:
		switch lm.sig.res {
		case resNone:
			st = cgo.StatusReturn0
		case resF1:
			fr.ReturnNum(lf.out.f[0])
			st = cgo.StatusReturn1
		case resF2:
			fr.ReturnNum2(lf.out.f[0], lf.out.f[1])
			st = cgo.StatusReturn2
		case resB1: // booleans travel as 0/1 (results)
			x := 0.0
			if uint8(lf.out.i[0]) != 0 {
				x = 1
			}
			fr.ReturnNum(x)
			st = cgo.StatusReturn1
		case resI1:
			fr.ReturnNum(float64(int64(lf.out.i[0])))
			st = cgo.StatusReturn1
		case resObj:
			p := lf.out.p
			lf.out.p = nil // the gate keeps no object alive
			if p == nil {
				fr.ReturnNil()
				st = cgo.StatusReturn1
			} else {
				st = g.retPtrAs(fr, p, lm.sig.out, lm.rb, nil, lm.name)
			}
		default:
			st = lm.results(fr, &lf.out)
		}
	}
	g.leafEnd()
	return st
}

// findResultBinding looks for the binding of lm's pointer result among
// those g has (without making one: see leafMethod.rb).
func (lm *leafMethod) findResultBinding(g *Gate) bool {
	lm.rb = g.binds[bindKey{lm.sig.out, nil}]
	return lm.rb != nil
}

// leafRecovered ends a direct leaf call that did not return: the method
// (or its error's Error) panicked, r being the value recovered, or called
// runtime.Goexit (r is nil). As recovered (dispatch.go) for the gate's
// state; the depth is restored unless the method had returned.
func (g *Gate) leafRecovered(lm *leafMethod, r any) int32 {
	if g.dead() && g.dyingHere() {
		if r != nil {
			panic(r) // as recovered (dispatch.go)
		}
		return statusPending
	}
	ret := g.lf.ret
	g.leafEnd()
	if r == nil { // runtime.Goexit: the FFI call's frames never return
		g.abandon(fmt.Sprintf("go function %q", lm.name))
		return statusPending
	}
	if !ret {
		g.deep--
	}
	return g.raisePanicSkip(lm.name, r, 4) // Callers, it, this, the closure
}

// args checks fr's arguments after the receiver and places each in the
// register its kind goes to (leafcall.go): floats in order in lf.fa, the
// integer class (booleans as 0/1) in order in lf.ia. It is false when one
// would not pass as it is: a bool parameter takes a boolean, a float64 a
// number, a float32 a number within its range, an integer kind an
// integral number within its range (leafRange).
func (lm *leafMethod) args(fr cgo.Frame, lf *leafState) bool {
	sig := lm.sig
	ni, nf := 0, 0
	for i, k := range sig.params {
		if k == reflect.Bool {
			a := fr.Arg(i + 1)
			if a.Type != int32(cgo.TBoolean) {
				return false
			}
			lf.ia[ni&3] = 0
			if a.Bool() {
				lf.ia[ni&3] = 1
			}
			ni++
			continue
		}
		// zlua_jit_call's frames hold floats alone (no integer subtype)
		x, num := fr.FloatArg(i + 1)
		switch {
		case !num:
			return false
		case k == reflect.Float64:
			lf.fa[nf&3] = x
			nf++
		case !(x >= sig.lo[i&3] && x <= sig.hi[i&3]): // NaN too
			return false
		case k == reflect.Float32:
			lf.fa[nf&3] = math.Float64frombits(uint64(math.Float32bits(float32(x))))
			nf++
		case x != math.Trunc(x):
			return false
		default: // integral and in range: the low bits are the value
			lf.ia[ni&3] = uint64(int64(x))
			ni++
		}
	}
	return true
}

// results stores a direct call's results in fr as the method's plan would
// (the shapes other than leafDispatch's float ones).
func (lm *leafMethod) results(fr cgo.Frame, out *leafOut) int32 {
	if lm.sig.nres == 0 {
		return cgo.StatusReturn0
	}
	ni, nf := 0, 0
	var r [2]float64
	for k, kind := range lm.sig.results {
		if isFloatKind(kind) {
			x := out.f[nf]
			if kind == reflect.Float32 {
				x = float64(math.Float32frombits(uint32(math.Float64bits(x))))
			}
			r[k] = x
			nf++
		} else {
			r[k] = leafResult(kind, out.i[ni])
			ni++
		}
	}
	// booleans travel as 0/1: zlua_jit_call* reads numbers, the closure
	// turns them back
	if lm.sig.nres == 1 {
		fr.ReturnNum(r[0])
		return cgo.StatusReturn1
	}
	fr.ReturnNum2(r[0], r[1])
	return cgo.StatusReturn2
}

// accepts reports whether fr is a call of lm that its plan serves in
// place (see leafDispatch).
func (lm *leafMethod) accepts(g *Gate, fr cgo.Frame) bool {
	if fr.NArgs() != lm.nargs {
		return false
	}
	slot, gen, tid, ok := fr.Self()
	if !ok || tid != lm.tid || g.objs.Get(slot, gen) == nil {
		return false
	}
	return lm.nargs == 1 || lm.args(fr, &g.lf) // the registers are not used
}

// maxExact bounds the integers a float argument passes as (as Frame.IntArg).
const maxExact = 1 << 53

// leafRange is the range of a Lua number a leaf parameter of numeric kind
// k takes as it is (an integer kind's must also be integral: args).
func leafRange(k reflect.Kind) (lo, hi float64) {
	switch k {
	case reflect.Float64:
		return math.Inf(-1), math.Inf(1)
	case reflect.Float32:
		return -math.MaxFloat32, math.MaxFloat32
	case reflect.Int8:
		return math.MinInt8, math.MaxInt8
	case reflect.Int16:
		return math.MinInt16, math.MaxInt16
	case reflect.Int32:
		return math.MinInt32, math.MaxInt32
	case reflect.Int, reflect.Int64:
		return -maxExact, maxExact
	case reflect.Uint8:
		return 0, math.MaxUint8
	case reflect.Uint16:
		return 0, math.MaxUint16
	case reflect.Uint32:
		return 0, math.MaxUint32
	}
	return 0, maxExact // Uint, Uint64, Uintptr (and Bool, unused)
}

// isFloatKind reports whether k is a float kind (a leaf value in a float
// register; leafcall.go), on every architecture.
func isFloatKind(k reflect.Kind) bool { return k == reflect.Float32 || k == reflect.Float64 }
