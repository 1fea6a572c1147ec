package callbackgate

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/zlua-go/zlua/cgo"
)

// Metamethods set by the user (zlua.Metamethods) for one Go type: each is
// a Go function made a Lua closure once, kept in the registry and stored
// in every metatable of the type, those built already and those built
// later.

// userMetaNames are the metamethods users may set: the operators both
// backends call the same way. __index, __newindex and __gc belong to zlua;
// __idiv and the bitwise ones exist on Lua 5.4 only.
var userMetaNames = []string{
	"__add", "__sub", "__mul", "__div", "__mod", "__pow", "__unm",
	"__eq", "__lt", "__le", "__len", "__concat", "__call", "__tostring",
}

// metaSet is the user metamethods of one type: name -> registry ref of
// the closure.
type metaSet map[string]int32

// setMetamethods gives the userdata of typ (a struct type: ByVal copies;
// a pointer type: ByObj objects, through every view) the metamethods in
// mm, Go functions converted as RegisterFunc does, served by fast[name]
// first when there is one (see metafast.go). A name set before is
// replaced; others stay. Every entry is checked before any is set (a
// Lua error meanwhile, out of memory, may leave the first names set).
func (g *Gate) setMetamethods(t cgo.Thread, typ reflect.Type, mm map[string]any, fast map[string]metaFast) error {
	switch {
	case typ.Kind() != reflect.Struct && typ.Kind() != reflect.Pointer:
		return fmt.Errorf("%v is neither a struct type (values pushed as copies) nor a pointer type (objects)", typ)
	case isHandle(typ):
		return handlePushError(typ)
	}
	names := make([]string, 0, len(mm))
	for name := range mm {
		names = append(names, name)
	}
	slices.Sort(names) // the same error and order of Lua work every time
	for _, name := range names {
		if !slices.Contains(userMetaNames, name) {
			return fmt.Errorf("unsupported metamethod %q (supported: %v)", name, userMetaNames)
		}
		if fv := reflect.ValueOf(mm[name]); fv.Kind() != reflect.Func {
			return fmt.Errorf("metamethod %s: Go function expected, got %T", name, mm[name])
		} else if fv.IsNil() {
			return fmt.Errorf("metamethod %s: nil %T", name, mm[name])
		}
	}
	tname := objName(typ)
	for _, name := range names {
		ref, err := g.metaClosure(t, typ, tname+"."+name, name, mm[name], fast[name])
		if err != nil {
			return fmt.Errorf("metamethod %s: %w", name, err)
		}
		set := g.meta[typ]
		if set == nil {
			set = metaSet{}
			g.meta[typ] = set
		}
		if old, ok := set[name]; ok {
			g.S.Unref(int(old))
		}
		set[name] = ref
		for _, mt := range g.metatablesOf(typ) {
			g.S.ProgReset()
			g.S.PutRef(mt)
			g.S.PutStr(name)
			g.S.PutRef(ref)
			if err := g.run(t, cgo.OpNewIndex, 0); err != nil {
				return fmt.Errorf("metamethod %s: %w", name, err)
			}
		}
	}
	return nil
}

// metaClosure makes the Lua closure of fn, the metamethod name of typ,
// and returns its registry ref. __eq is wrapped: it answers false for
// operands that are not both values of typ, so == never raises and means
// the same on Lua 5.4 (which calls the first operand's __eq whatever the
// second is) and LuaJIT (which calls it only for two values with the same
// handler).
func (g *Gate) metaClosure(t cgo.Thread, typ reflect.Type, fname, name string, fn any, fast metaFast) (int32, error) {
	call, err := planFor(reflect.TypeOf(fn))
	if err != nil {
		return 0, err
	}
	e := funcEntry{name: fname, fn: fn, call: call}
	if fast != nil { // the plan serves what the fast call does not
		slow := &funcEntry{name: fname, fn: fn, call: call}
		e = funcEntry{name: fname, fn: slow, call: func(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
			if st, ok := fast(g, fr); ok {
				return st
			}
			in := e.fn.(*funcEntry)
			return in.call(g, in, fr)
		}}
	}
	if name == "__eq" {
		inner := &funcEntry{name: e.name, fn: e.fn, call: e.call}
		e = funcEntry{name: fname, fn: inner, call: func(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
			if !g.isValueOf(fr, 0, typ) || !g.isValueOf(fr, 1, typ) {
				fr.ReturnBool(false)
				return cgo.StatusReturn1
			}
			in := e.fn.(*funcEntry)
			return in.call(g, in, fr)
		}}
	}
	saved := g.S.ProgSave()
	defer g.progRestore(saved)
	id, err := g.registerEntry(e)
	if err != nil {
		return 0, err
	}
	g.S.ProgReset()
	g.S.PutGoFunc(id)
	if err := g.S.Commit(); err != nil {
		return 0, err
	}
	st, ref := g.S.Run(t, cgo.OpProgRef, 0, 0, 0)
	if st != cgo.OK {
		return 0, g.ErrorFromTop(t, st)
	}
	return int32(ref), nil
}

// isValueOf reports whether argument i is a live userdata of typ: a ByVal
// copy of the struct typ, or a ByObj object of the pointer type typ.
func (g *Gate) isValueOf(fr cgo.Frame, i int, typ reflect.Type) bool {
	a := arg(fr, i)
	if a.Type != int32(cgo.TUserdata) {
		return false
	}
	th := fr.Thread()
	if typ.Kind() == reflect.Struct {
		h, ours, checked := a.OwnVal()
		if !checked {
			h, ours = g.S.ValAt(th, i+1)
		}
		vt := g.sv.types[typ]
		return ours && !h.Released && vt != nil && h.TypeID == vt.id
	}
	s, b, ok, err := g.objAt(th, i+1, &a)
	return ok && err == nil && s != nil && b.typ == typ
}

// metatablesOf lists the refs of the metatables built for typ so far.
func (g *Gate) metatablesOf(typ reflect.Type) []int32 {
	var out []int32
	if typ.Kind() == reflect.Struct {
		if vt := g.sv.types[typ]; vt != nil {
			out = append(out, vt.mtref)
		}
		return out
	}
	for _, b := range g.bindByID[1:] {
		if b != nil && b.typ == typ && b.mtref != 0 {
			out = append(out, b.mtref)
		}
	}
	return out
}

// putUserMeta appends, to a program building a metatable of typ (on top),
// the user metamethods of typ; they come last, so they replace zlua's
// defaults (__tostring, __eq).
func (g *Gate) putUserMeta(typ reflect.Type) {
	set := g.meta[typ]
	if len(set) == 0 {
		return
	}
	names := make([]string, 0, len(set))
	for name := range set {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		g.S.PutStr(name)
		g.S.PutRef(set[name])
		g.S.PutRawSet()
	}
}
