package callbackgate

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"sync"
	"sync/atomic"

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
	pb, rb  uint8 // bit i: parameter / result i is a boolean
}

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
// integer, float or bool, and an optional error last), or a method not yet
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
		return nil, fmt.Errorf("returns %d values (a leaf method returns at most 2 numbers or booleans, and an error)", outs)
	}
	for i := 0; i < outs; i++ {
		k := ft.Out(i).Kind()
		if !leafKind(k) {
			return nil, fmt.Errorf("result %d is %v (a leaf method returns numbers and booleans)", i+1, ft.Out(i))
		}
		if k == reflect.Bool {
			sig.rb |= 1 << i
		}
		sig.results = append(sig.results, k)
	}
	sig.nres = outs
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
// and, through call, the guard around the method's own plan.
type leafMethod struct {
	m      *method
	sig    *leafSig
	inner  callFunc
	direct leafDirect // the method called through its function type (leafcall.go)
	name   string     // its funcEntry's name, for panics
	err    *leafError // what its Env calls return while it runs
	yield  string     // the error of a Yield from it
}

// leafState is the gate's record of the leaf method running, if any.
type leafState struct {
	m     *leafMethod
	broke bool // it called into the Env (and got m.err)
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
	lm = &leafMethod{m: m, sig: sig, inner: m.call, name: e.name,
		direct: directLeaf(b.typ, m.fn.Type(), funcCode(m.fn.Interface())),
		err:    &leafError{"zlua: " + full + " is declared leaf and cannot call into its Env"},
		yield:  "zlua: " + full + " is declared leaf and cannot yield"}
	e.fn, e.call = lm, lm.call
	return e, lm
}

// putLeaf asks C to replace the method's Go function just pushed by its
// leaf closure (LuaJIT with the FFI; nothing elsewhere).
func (lm *leafMethod) putLeaf(s *cgo.State, b *binding, fnid uint32) {
	if cgo.LeafClosures {
		s.PutLeaf(b.id, fnid, len(lm.sig.params), lm.sig.pb, lm.sig.nres, lm.sig.rb)
	}
}

// call runs the method under the leaf guard, on both backends and both
// paths (trampoline or FFI): while it runs, every entry into the Env
// fails with lm.err (claimFailed), and a method that got that error ends
// with it raised, whatever it did with it.
func (lm *leafMethod) call(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
	g.lf.m, g.lf.broke = lm, false
	st := lm.inner(g, e, fr) // a panic: dispatch's recovery ends the guard
	broke := g.lf.broke
	g.leafEnd()
	if broke {
		return g.raiseText(lm.err.text, lm.err)
	}
	return st
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
	if !ok {
		return cgo.StatusLeafRefused
	}
	if lm.direct == nil || !directOn.Load() {
		if !lm.accepts(g, fr) {
			return cgo.StatusLeafRefused
		}
		return dispatch(fr) // the frame carries goid and fnid (jitleaf.c)
	}
	params := lm.sig.params
	if fr.NArgs() != len(params)+1 {
		return cgo.StatusLeafRefused
	}
	slot, gen, tid, ok := fr.Self()
	if !ok || tid != lm.m.b.id {
		return cgo.StatusLeafRefused
	}
	s := g.objs.Get(slot, gen)
	if s == nil {
		return cgo.StatusLeafRefused
	}
	lf := &g.lf
	ni, nf := 0, 0
	for i, k := range params {
		a := fr.Arg(i + 1)
		if !leafArg(k, &a) {
			return cgo.StatusLeafRefused
		}
		leafIn(k, a.Num(), a.Type == int32(cgo.TBoolean) && a.Bool(), &lf.ia, &ni, &lf.fa, &nf)
	}
	// as dispatch: zlua_jit_call recorded the owner's thread around this
	// call (zlua_owner_begin)
	g.deep++
	lf.m, lf.broke = lm, false
	// The recovery covers the method and the formatting of its error:
	// Error() is user code too (a typed nil pointer panics there), and a
	// panic must never unwind through the FFI call's C frames.
	returned, done := false, false
	defer func() {
		if done {
			return
		}
		r := recover()
		if g.dead() && g.dyingHere() {
			if r != nil {
				panic(r) // as recovered (dispatch.go)
			}
			return
		}
		g.leafEnd()
		if r == nil { // runtime.Goexit: the FFI call's frames never return
			g.abandon(fmt.Sprintf("go function %q", lm.name))
			return
		}
		if !returned {
			g.deep--
		}
		status = g.raisePanic(lm.name, r)
	}()
	lf.out.err = nil // the rest is written by the call
	lm.direct(s.Ptr(), &lf.ia, &lf.fa, &lf.out)
	returned = true
	g.deep--
	switch {
	case lf.broke:
		status = g.raiseText(lm.err.text, lm.err)
	case lf.out.err != nil:
		status = g.fail(lf.out.err) // a Yield: the leaf error (lf.m is set)
	default:
		status = lm.results(fr, &lf.out)
	}
	done = true
	g.leafEnd()
	return status
}

// results stores a direct call's results in fr as the method's plan would.
func (lm *leafMethod) results(fr cgo.Frame, out *leafOut) int32 {
	switch lm.sig.nres {
	case 0:
		return cgo.StatusReturn0
	case 1:
		if k := lm.sig.results[0]; k == reflect.Float64 {
			fr.ReturnNum(out.f[0])
			return cgo.StatusReturn1
		}
	case 2:
		if lm.sig.results[0] == reflect.Float64 && lm.sig.results[1] == reflect.Float64 {
			fr.ReturnNum2(out.f[0], out.f[1])
			return cgo.StatusReturn2
		}
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
	if fr.NArgs() != len(lm.sig.params)+1 {
		return false
	}
	slot, gen, tid, ok := fr.Self()
	if !ok || tid != lm.m.b.id || g.objs.Get(slot, gen) == nil {
		return false
	}
	for i, k := range lm.sig.params {
		a := fr.Arg(i + 1)
		if !leafArg(k, &a) {
			return false
		}
	}
	return true
}

// maxExact bounds the integers a float argument passes as (as Frame.IntArg).
const maxExact = 1 << 53

func leafArg(k reflect.Kind, a *cgo.Arg) bool {
	if k == reflect.Float64 { // the common case first
		return a.Type == int32(cgo.TNumber) && !a.IsInt()
	}
	if k == reflect.Bool {
		return a.Type == int32(cgo.TBoolean)
	}
	if a.Type != int32(cgo.TNumber) || a.IsInt() {
		return false
	}
	x := a.Num()
	var lo, hi float64
	switch k {
	case reflect.Float64:
		return true
	case reflect.Float32:
		return x >= -math.MaxFloat32 && x <= math.MaxFloat32
	case reflect.Int8:
		lo, hi = math.MinInt8, math.MaxInt8
	case reflect.Int16:
		lo, hi = math.MinInt16, math.MaxInt16
	case reflect.Int32:
		lo, hi = math.MinInt32, math.MaxInt32
	case reflect.Int, reflect.Int64:
		lo, hi = -maxExact, maxExact
	case reflect.Uint8:
		hi = math.MaxUint8
	case reflect.Uint16:
		hi = math.MaxUint16
	case reflect.Uint32:
		hi = math.MaxUint32
	default: // Uint, Uint64, Uintptr
		hi = maxExact
	}
	return x >= lo && x <= hi && x == math.Trunc(x)
}

// isFloatKind reports whether k is a float kind (a leaf value in a float
// register; leafcall.go), on every architecture.
func isFloatKind(k reflect.Kind) bool { return k == reflect.Float32 || k == reflect.Float64 }
