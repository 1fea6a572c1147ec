package callbackgate

import (
	"fmt"
	"reflect"
	"slices"
	"unsafe"

	"github.com/zlua-go/zlua/cgo"
	"github.com/zlua-go/zlua/structreg"
)

// binding is how Lua sees one Go type through one view: its metatable
// (built once per state), methods and fields.
type binding struct {
	id      uint32
	typ     reflect.Type // the object's concrete type
	view    reflect.Type // an interface, or nil for the type itself
	name    string       // the Lua-visible type name (__name)
	mtref   int32
	fields  map[string]*field // nil for views
	methods []*method
	// cfields are the fields C reads and writes in the pinned object:
	// numbers and booleans reached without a pointer hop, by Lua name, as
	// field codes (kind | offset << 8). nil when there are none.
	cfields map[string]int64
	// eagerPin is set once a script read or wrote a C field of an
	// object of this binding that was not pinned yet (fieldAccess): from
	// then on a push that makes a new userdata pins the object first, so
	// its first field access needs no Go call either.
	eagerPin bool
	// byPtr: typ is a pointer type, whose interface data word is the
	// object's key (callHeld).
	byPtr bool
}

// field is one exported struct field reachable from a binding.
type field struct {
	index []int
	typ   reflect.Type
	ref   bool // lua:",ref": a slice or map read as a view, not a copy
}

type bindKey struct{ typ, view reflect.Type }

// luaName spells a Go type a refusal expects: a pointer to a named
// struct by the struct's name, as its objects are named (*game.Player
// reads "Player"), other pointers with their star (*int, *[]int, **Vec),
// else the type's own name.
func luaName(t reflect.Type) string {
	if t.Kind() == reflect.Pointer && t.Name() == "" {
		if e := t.Elem(); e.Kind() != reflect.Struct || e.Name() == "" {
			return "*" + luaName(e)
		}
		return t.Elem().Name()
	}
	return objName(t)
}

// objName is the name of t's objects (a binding's __name, method and
// metamethod names): a pointer to a named type reads as that type
// (*game.Player "Player", *Counter "Counter"), else the type's own name.
func objName(t reflect.Type) string {
	if t.Kind() == reflect.Pointer && t.Elem().Name() != "" {
		return t.Elem().Name()
	}
	if t.Name() != "" {
		return t.Name()
	}
	return t.String()
}

// expectedName spells what a Go type of a refused value expects: a byte
// slice takes a string as luaL_checklstring does ("string expected"),
// other types by luaName.
func expectedName(t reflect.Type) string {
	if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
		return "string"
	}
	return luaName(t)
}

// bindingFor returns the binding of typ seen through view (nil: typ
// itself), building its metatable on first use. It may run a protected
// operation: callers keep their push program across it.
func (g *Gate) bindingFor(typ, view reflect.Type) (*binding, error) {
	if b := g.lastBind; b != nil && sameType(b.typ, typ) && sameType(b.view, view) {
		return b, nil
	}
	b, ok := g.binds[bindKey{typ, view}]
	if !ok {
		var err error
		if b, err = g.bind(typ, view); err != nil {
			return nil, err
		}
	}
	g.lastBind = b
	return b, nil
}

// checkRefTags refuses a struct type with a lua:",ref" field that is not a
// slice or map, whether it is pushed by pointer or by value.
func checkRefTags(st reflect.Type) error {
	for name, f := range structFields(st) {
		if k := f.typ.Kind(); f.ref && k != reflect.Slice && k != reflect.Map {
			return fmt.Errorf("%w: field %s of %v: lua:\",ref\" needs a slice or map, got %v",
				ErrCannotPush, name, st, f.typ)
		}
	}
	return nil
}

// bind makes the binding of (typ, view). Its id is taken before the
// metatable is built: building runs Lua, whose finalizers may push objects
// and bind other types (or this one again, harmlessly) meanwhile.
func (g *Gate) bind(typ, view reflect.Type) (*binding, error) {
	if view != nil && !typ.Implements(view) {
		return nil, fmt.Errorf("%w: %v does not implement %v", ErrCannotPush, typ, view)
	}
	if isHandle(typ) { // never an object with the handle's methods
		return nil, handlePushError(typ)
	}
	if view == nil && typ.Kind() == reflect.Pointer && typ.Elem().Kind() == reflect.Struct {
		if err := checkRefTags(typ.Elem()); err != nil {
			return nil, err
		}
	}
	b := &binding{id: uint32(len(g.bindByID)), typ: typ, view: view, name: objName(typ),
		byPtr: typ.Kind() == reflect.Pointer}
	if isContainerPtr(typ) && typ.Elem().Name() == "" {
		b.name = typ.Elem().String() // a view of a []string reads "[]string"
	}
	g.bindByID = append(g.bindByID, b)
	if view != nil {
		b.name = objName(view)
		for i := 0; i < view.NumMethod(); i++ {
			if vm := view.Method(i); vm.IsExported() {
				m, _ := typ.MethodByName(vm.Name)
				b.methods = append(b.methods, newMethod(b, m))
			}
		}
	} else {
		for i := 0; i < typ.NumMethod(); i++ {
			b.methods = append(b.methods, newMethod(b, typ.Method(i)))
		}
		if typ.Kind() == reflect.Pointer && typ.Elem().Kind() == reflect.Struct {
			b.fields = structFields(typ.Elem())
			b.cfields = cFields(typ.Elem(), b.fields, b.methods)
		}
	}
	ref, err := g.buildMetatable(b)
	if err != nil {
		return nil, err
	}
	b.mtref = ref
	g.binds[bindKey{typ, view}] = b
	return b, nil
}

// structFields lists the exported fields of t, promoted ones included,
// under their Lua names (structreg.NamedFields: tag lua:"name"; lua:"-"
// hides a field); lua:",ref" (or lua:"name,ref") makes a slice or map
// field read as a view.
func structFields(t reflect.Type) map[string]*field {
	fields := map[string]*field{}
	for _, f := range structreg.NamedFields(t) {
		ref := slices.Contains(f.Opts, "ref")
		fields[f.Name] = &field{index: f.Index, typ: f.Type, ref: ref}
	}
	return fields
}

// cFields returns the codes of the fields of struct t that C can serve:
// numbers and booleans whose offset is known without following a pointer
// (fields of embedded structs included, not those of embedded pointers),
// except names that a method shadows (Lua finds the method first).
func cFields(t reflect.Type, fields map[string]*field, methods []*method) map[string]int64 {
	var out map[string]int64
	for name, f := range fields {
		k := structreg.KindOf(f.typ)
		off, ok := structreg.OffsetOf(t, f.index)
		if k == 0 || !ok || slices.ContainsFunc(methods, func(m *method) bool { return m.name == name }) {
			continue
		}
		if out == nil {
			out = map[string]int64{}
		}
		out[name] = int64(k) | int64(off)<<8
	}
	return out
}

// elems reports whether b's keys are the elements of a map or slice: one
// pushed with ByRef, or reached through a pointer.
func (b *binding) elems() bool {
	k := b.typ.Kind()
	return b.view == nil && (k == reflect.Map || k == reflect.Slice || isContainerPtr(b.typ))
}

// needsEq reports whether b's metatable carries the shared __eq from the
// start. Two userdata of one plain binding are one object only when they
// are one userdata (one live keyed userdata per object and binding), which
// Lua's == sees without a metamethod; the same object through a view is
// another binding's userdata, whose __eq Lua 5.4 takes from either
// operand. So on Lua 5.4 views and ByRef containers have it, plain
// bindings not (a userdata pushed without identity adds it to its
// metatable then: cgo/objects.c, eq_for_unkeyed); LuaJIT calls an __eq
// only when both operands share it, so there every object metatable has it.
func (b *binding) needsEq() bool { return !cgo.EqEitherOperand || b.view != nil || b.elems() }

// buildMetatable creates b's metatable in a protected operation and
// returns its registry ref. The push program being built is saved and
// restored around it.
func (g *Gate) buildMetatable(b *binding) (int32, error) {
	s := g.S
	saved := s.ProgSave()
	defer g.progRestore(saved)
	s.ProgReset()
	s.PutStr(b.name)
	s.PutNewMetatable()
	s.PutNewTable(0, len(b.methods))
	for _, m := range b.methods {
		e, lm := g.methodEntry(b, m)
		e.hints = argHints(m.in, 1) // argument 1 is the receiver
		id, err := g.registerEntry(e)
		if err != nil {
			return 0, err
		}
		s.PutStr(m.name)
		s.PutGoFuncHints(id, e.hints)
		if lm != nil {
			lm.putLeaf(s, b, id) // LuaJIT: the FFI closure over it (leaf.go)
		}
		s.PutRawSet()
	}
	// __index and __newindex: elements of ByRef values and fields go to
	// the Go getter and setter, numeric fields to C when there are some,
	// and a type without either indexes its methods table directly.
	get, set := funcEntry{name: b.name + ".__index", fn: b, call: fieldGet},
		funcEntry{name: b.name + ".__newindex", fn: b, call: fieldSet}
	setID, err := g.registerEntry(set)
	if err != nil {
		return 0, err
	}
	if !b.elems() && len(b.fields) == 0 {
		s.PutStr(b.name)
		s.PutPlainIndex()
	} else {
		getID, err := g.registerEntry(get)
		if err != nil {
			return 0, err
		}
		s.PutGoFunc(getID)
		if b.cfields != nil {
			s.PutGoFunc(setID)
			s.PutNewTable(0, len(b.cfields))
			for name, code := range b.cfields {
				s.PutStr(name)
				s.PutInt(code)
				s.PutRawSet()
			}
			s.PutInt(int64(b.id))
			s.PutInt(int64(b.typ.Elem().Size()))
			s.PutStr(b.name)
			s.PutObjFields()
		} else {
			s.PutIndexer()
		}
	}
	if b.cfields == nil {
		s.PutStr("__newindex")
		s.PutGoFunc(setID)
		s.PutRawSet()
	}
	id, err := g.registerEntry(funcEntry{name: b.name + ".__tostring", fn: b, call: objToString})
	if err != nil {
		return 0, err
	}
	s.PutStr("__tostring")
	s.PutGoFunc(id)
	s.PutRawSet()
	if b.elems() {
		for _, mm := range [...]struct {
			key  string
			call callFunc
		}{{"__len", objLen}, {"__pairs", objPairs}} {
			id, err := g.registerEntry(funcEntry{name: b.name + "." + mm.key, fn: b, call: mm.call})
			if err != nil {
				return 0, err
			}
			s.PutStr(mm.key)
			s.PutGoFunc(id)
			s.PutRawSet()
		}
	}
	if b.needsEq() {
		s.PutStr("__eq")
		s.PutRef(g.eqRef) // one shared __eq: LuaJIT compares handlers by identity
		s.PutRawSet()
	}
	g.putUserMeta(b.typ)
	if err := s.Commit(); err != nil {
		return 0, err
	}
	t := g.Current()
	st, ref := s.Run(t, cgo.OpProgRef, 0, 0, 0)
	if st != cgo.OK {
		err := g.ErrorFromTop(t, st)
		return 0, fmt.Errorf("zlua: metatable of %s: %w", b.name, err)
	}
	return int32(ref), nil
}

// InitObjects creates the ObjectRegistry's weak cache and the shared __eq
// of every object metatable. It runs once, when the Env is initialised.
func (g *Gate) InitObjects() error {
	t := g.Current()
	s := g.S
	s.ProgReset()
	if err := s.Commit(); err != nil {
		return err
	}
	if st, _ := s.Run(t, cgo.OpInit, 0, 0, 0); st != cgo.OK {
		return g.ErrorFromTop(t, st)
	}
	id, err := g.registerEntry(funcEntry{name: "__eq", call: objEqual})
	if err != nil {
		return err
	}
	s.ProgReset()
	s.PutGoFunc(id)
	s.PutEqWrap() // C decides known identities, Go the rest
	if err := s.Commit(); err != nil {
		return err
	}
	st, ref := s.Run(t, cgo.OpProgRef, 0, 0, 0)
	if st != cgo.OK {
		return g.ErrorFromTop(t, st)
	}
	g.eqRef = int32(ref)
	s.SetEqRef(g.eqRef) // for the metatables of unkeyed pushes (needsEq)
	return nil
}

// slotPtr is the pointer word of a reference value: what identity keys and
// fast method receivers use.
func slotPtr(v reflect.Value) unsafe.Pointer {
	if v.Kind() == reflect.Slice {
		return unsafe.Pointer(v.Pointer())
	}
	return v.UnsafePointer()
}
