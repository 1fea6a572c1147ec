package callbackgate

import (
	"errors"
	"fmt"
	"reflect"
	"unsafe"

	"github.com/zlua-go/zlua/cgo"
	"github.com/zlua-go/zlua/objreg"
)

// errReleased is raised when Lua uses a userdata whose slot was released
// (a userdata resurrected by another finalizer, or a stale one).
var errReleased = errors.New("attempt to use a released object")

// Viewed is a reference value pushed with a declared view: Lua sees only
// the methods of View, an interface type.
type Viewed struct {
	V    any
	View reflect.Type
}

// Ref is a map or slice pushed by reference as a userdata instead of being
// copied into a table.
type Ref struct{ V any }

var (
	viewedType = reflect.TypeFor[Viewed]()
	refType    = reflect.TypeFor[Ref]()
)

// pushObj appends a push of the reference value v (a non-nil pointer, map,
// channel, or a slice by reference) seen through view (nil: its own type).
// Values with identity reuse their live slot, and C their userdata.
func (g *Gate) pushObj(v reflect.Value, view reflect.Type) error {
	return g.pushObjIn(v, view, reflect.Value{})
}

// pushObjIn is pushObj for v, which a non-nil holder, the object v is a
// field of, keeps alive (an inline struct field read, a lua:",ref"
// view): the push carries the charges a push of the holder would.
func (g *Gate) pushObjIn(v reflect.Value, view reflect.Type, holder reflect.Value) error {
	b, err := g.bindingFor(v.Type(), view)
	if err != nil {
		return err
	}
	key, keyed := objreg.MakeKey(slotPtr(v), b.id)
	keyed = keyed && v.Kind() != reflect.Slice
	if keyed {
		if slot, gen, ok := g.objs.Lookup(key); ok {
			g.S.PutObj(slot, gen, b.id, b.mtref, true)
			if b.eagerPin {
				g.pinPushed(slot, gen)
			}
			if holder.IsValid() {
				g.chargeView(holder, slot)
			} else if g.pushCharges() && chargeKind(v.Kind()) {
				g.chargePush(slotPtr(v), slot)
			}
			return nil
		}
	}
	slot, gen, err := g.objs.Add(key, keyed, v.Interface(), b.id)
	if err != nil {
		return err
	}
	if keyed {
		g.S.PutNewObj(slot, gen, b.id, b.mtref)
	} else {
		g.S.PutObj(slot, gen, b.id, b.mtref, false)
	}
	if b.eagerPin {
		g.pinPushed(slot, gen)
	}
	if holder.IsValid() {
		g.chargeView(holder, slot)
	} else if g.pushCharges() && chargeKind(v.Kind()) {
		g.chargePush(slotPtr(v), slot)
	}
	return nil
}

// pinPushed pins the object of slot, whose userdata the program pushes
// just before, and has C store its address in that userdata (a binding
// whose fields scripts use: eagerPin).
func (g *Gate) pinPushed(slot, gen uint32) {
	if s := g.objs.Get(slot, gen); s != nil {
		g.S.PutObjPtr(slot, g.objs.Pin(s))
	}
}

// chargeKind reports whether a pushed reference value of kind k may carry
// a charge: an object, or a slice or map a conversion built, pushed by
// reference.
func chargeKind(k reflect.Kind) bool {
	return k == reflect.Pointer || k == reflect.Slice || k == reflect.Map
}

// pushCharges reports whether a push of an object may carry a charge:
// objects are noted as built (ring or index) or stores built some.
func (g *Gate) pushCharges() bool {
	return g.builtN != 0 || g.noted() || len(g.stores.byObj) != 0
}

// chargePush appends, after the push of object p's slot, the charges it
// carries: a built object of the ring (charge.go), else a noted one
// (builtindex.go); and an object a store built (storecharge.go).
func (g *Gate) chargePush(p unsafe.Pointer, slot uint32) {
	if g.builtN == 0 || !g.chargeBuilt(p, slot) {
		g.chargeNode(p, slot, true)
	} else if _, ok := g.nodes.at[p]; ok {
		g.nodeBytes(p, true) // kept for later pushes
	}
	if len(g.stores.byObj) != 0 {
		g.chargeStored(p, slot)
	}
}

// chargeView appends, after the push of the slot of a view of a field of
// holder (an object, which the view keeps alive), the charges a push of
// holder carries (its note, chargeStored); for a view of an element of a
// slice holder holds (or points to), those of the slice too.
func (g *Gate) chargeView(holder reflect.Value, slot uint32) {
	if sl := elemsOf(holder); sl.Kind() == reflect.Slice && sl.Len() != 0 {
		// a view of a slice's element (elemView) keeps its backing
		// array: the charges a push of the slice carries
		p := slotPtr(sl)
		g.chargeNode(p, slot, true)
		if len(g.stores.byObj) != 0 {
			g.chargeStored(p, slot)
		}
	}
	if holder.Kind() != reflect.Pointer {
		return
	}
	g.chargeNode(holder.UnsafePointer(), slot, true)
	if len(g.stores.byObj) != 0 {
		g.chargeStored(holder.UnsafePointer(), slot)
	}
}

// sameType is t == u for reflect.Types (either may be nil) without the
// runtime's interface comparison: every non-nil reflect.Type is a
// *reflect.rtype, one per type, so the data words decide. Hot paths
// (bindingFor's last-binding check, the struct type cache) compare types
// on every push.
func sameType(t, u reflect.Type) bool { return typeWord(t) == typeWord(u) }

// typeWord is the data word of t: its *reflect.rtype.
func typeWord(t reflect.Type) unsafe.Pointer { return (*eface)(unsafe.Pointer(&t)).data }

// eface is the layout of an interface value.
type eface struct{ tab, data unsafe.Pointer }

// retPtr returns the non-nil pointer p of type typ as the call's one
// result: neither a cache hit nor a new object writes a push program, and
// a hit does not reflect.
func (g *Gate) retPtr(fr cgo.Frame, p unsafe.Pointer, typ reflect.Type, name string) int32 {
	if p == nil {
		fr.ReturnNil()
		return cgo.StatusReturn1
	}
	b := g.lastBind // bindingFor's own first check, without the call
	var err error
	if b == nil || b.view != nil || !sameType(b.typ, typ) {
		b, err = g.bindingFor(typ, nil)
	}
	return g.retPtrAs(fr, p, typ, b, err, name)
}

// retPtrAs is retPtr once the binding of typ (or the error binding it
// gave) is known.
func (g *Gate) retPtrAs(fr cgo.Frame, p unsafe.Pointer, typ reflect.Type, b *binding, err error, name string) int32 {
	if err == nil && g.pushCharges() && g.chargedOnPush(p) {
		// an object built from a script's table: pushed by a program,
		// which carries its charge (charge.go, builtindex.go)
		g.S.ProgReset()
		if err = g.pushObj(reflect.NewAt(typ.Elem(), p), nil); err == nil {
			return g.commitReturn()
		}
	}
	if err == nil {
		key, keyed := objreg.MakeKey(p, b.id)
		if keyed {
			if slot, gen, ok := g.objs.Lookup(key); ok {
				fr.ReturnObj(slot, gen, b.id, b.mtref, true)
				return cgo.StatusRetObj
			}
		}
		if b.eagerPin {
			// a new userdata of a type whose fields scripts use: pinned
			// as it is pushed (pinPushed), which takes a push program
			g.S.ProgReset()
			if err = g.pushObj(reflect.NewAt(typ.Elem(), p), nil); err == nil {
				return g.commitReturn()
			}
			return g.raiseText(fmt.Sprintf("result #1 of '%s': %v", name, err), err)
		}
		// A new object: its slot goes to C with the result as a hit's
		// does, without a push program (keyed is false only for an
		// address MakeKey cannot encode: that push gets no identity).
		var slot, gen uint32
		if slot, gen, err = g.objs.Add(key, keyed, ptrValue(p, typ), b.id); err == nil {
			if keyed {
				fr.ReturnNewObj(slot, gen, b.id, b.mtref)
			} else {
				fr.ReturnObj(slot, gen, b.id, b.mtref, false)
			}
			return cgo.StatusRetObj
		}
	}
	return g.raiseText(fmt.Sprintf("result #1 of '%s': %v", name, err), err)
}

// ptrValue returns the pointer p of type typ (a pointer type) as an any:
// the interface value is built from typ's type word (a reflect.Type is
// the runtime's type descriptor) and p, as the runtime stores a pointer
// in an interface. No reflection, no allocation.
func ptrValue(p unsafe.Pointer, typ reflect.Type) any {
	if typ.Kind() != reflect.Pointer {
		panic("zlua: ptrValue of a non-pointer type " + typ.String())
	}
	var v any
	e := (*eface)(unsafe.Pointer(&v))
	e.tab, e.data = typeWord(typ), p
	return v
}

// pushViewed pushes v with view: reference values become userdata that
// show only view's methods; other values are pushed as usual.
func (g *Gate) pushViewed(v reflect.Value, view reflect.Type) error {
	for v.Kind() == reflect.Interface {
		if v.IsNil() {
			g.S.PutNil()
			return nil
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Chan:
		if ok, err := g.pushHandle(v); ok {
			return err // a handle is its Lua value, whatever the view
		}
		if v.IsNil() {
			g.S.PutNil()
			return nil
		}
		return g.pushObj(v, view)
	}
	return g.pushValue(v, "", 0)
}

// pushRef pushes a map (identity-cached) or slice, or a pointer to one
// (identity-cached; a slice that can grow), as a userdata.
func (g *Gate) pushRef(x any) error {
	v := reflect.ValueOf(x)
	if isContainerPtr(v.Type()) {
		if v.IsNil() { // nil, as a nil map or slice pushes
			g.S.PutNil()
			return nil
		}
		return g.pushObj(v, nil)
	}
	switch v.Kind() {
	case reflect.Map, reflect.Slice:
		if v.IsNil() {
			g.S.PutNil()
			return nil
		}
		return g.pushObj(v, nil)
	}
	return fmt.Errorf("%w: ByRef needs a map or slice or a pointer to one, got %T", ErrCannotPush, x)
}

// isContainerPtr reports whether t is a pointer to a map or a slice:
// pushed as a view of the map or slice it points to.
func isContainerPtr(t reflect.Type) bool {
	if t == nil || t.Kind() != reflect.Pointer {
		return false
	}
	k := t.Elem().Kind()
	return k == reflect.Map || k == reflect.Slice
}

// funcShapePlan serves functions returning one pointer (constructors,
// lookups) without reflection: func() *T and func(int) *T.
func funcShapePlan(t reflect.Type) callFunc {
	switch shapeOf(t, 0) {
	case ":p":
		out := t.Out(0)
		return func(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
			return g.retPtr(fr, as[func() unsafe.Pointer](funcCode(e.fn))(), out, e.name)
		}
	case "i:p":
		out := t.Out(0)
		return func(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
			a, err := g.intArg(fr, 0)
			if err != nil {
				return g.raiseArg(1, e.name, err)
			}
			return g.retPtr(fr, as[func(int64) unsafe.Pointer](funcCode(e.fn))(a), out, e.name)
		}
	}
	return nil
}

// objAt resolves the ByObj userdata at idx: ours, ByObj, live. ok is false
// when the value is not a ByObj userdata of this state.
func (g *Gate) objAt(t cgo.Thread, idx int, a *cgo.Arg) (s *objreg.Slot, b *binding, ok bool, err error) {
	h, ours, checked := a.Own()
	if !checked {
		h, ours = g.S.ObjAt(t, idx)
	}
	if !ours || h.Kind != cgo.KindByObj {
		return nil, nil, false, nil
	}
	if h.Released {
		return nil, nil, true, errReleased
	}
	if s = g.objs.Get(h.Slot, h.Gen); s == nil {
		return nil, nil, true, errReleased
	}
	return s, g.bindByID[h.TypeID], true, nil
}

// popObj stores the object of the userdata at idx into v when its type
// is assignable (a pointer also fills a struct value of its element type).
func (g *Gate) popObj(t cgo.Thread, idx int, a *cgo.Arg, v reflect.Value) error {
	typ := v.Type()
	s, b, ok, err := g.objAt(t, idx, a)
	if err != nil {
		return err
	}
	if !ok {
		if typ.Kind() == reflect.Interface && typ.NumMethod() == 0 {
			// any takes every value that has a Go form; this one has none
			// (another library's userdata, a file): say so as natural does.
			return cannotConvert(g.typeName(t, idx, a))
		}
		want, got := expectedName(typ), g.typeName(t, idx, a)
		if want == got { // a struct copy of a same-named type?
			if vt, _, isVal, _ := g.valAt(t, idx, a); isVal {
				return typeMismatch(typ, vt.typ, want, got)
			}
		}
		return typeError(want, got)
	}
	ov := reflect.ValueOf(g.objs.Val(s))
	switch {
	case ov.Type().AssignableTo(typ):
		v.Set(ov)
	case ov.Kind() == reflect.Pointer && ov.Type().Elem().AssignableTo(typ):
		v.Set(ov.Elem())
	default:
		return typeMismatch(typ, b.typ, expectedName(typ), b.name)
	}
	return nil
}

// self resolves argument 1 of a metamethod of b.
func (g *Gate) self(fr cgo.Frame, b *binding) (*objreg.Slot, int32) {
	return g.popThis(fr, b, b.name)
}

// fieldAccess resolves what __index and __newindex act on: the receiver
// (checked), the key, and either elem (a ByRef map or slice: the caller
// serves the element) or the named struct field. When it returns neither,
// st is the raised error (a bad receiver, or "T has no <what> 'k'").
//
// A field C can serve gets the object pinned and its address stored in
// the userdata: the first access of a numeric field comes here, the next
// ones stay in C (see cgo/objfields.c).
func (g *Gate) fieldAccess(fr cgo.Frame, b *binding, what string) (ov reflect.Value, key cgo.Arg, f *field, elem bool, st int32) {
	s, st := g.self(fr, b)
	if s == nil {
		return ov, key, nil, false, st
	}
	key = arg(fr, 1)
	ov = reflect.ValueOf(g.objs.Val(s))
	if b.elems() {
		return ov, key, nil, true, 0
	}
	if key.Type == int32(cgo.TString) && b.fields != nil {
		f = b.fields[key.View()]
		if _, ok := b.cfields[key.View()]; ok {
			fr.SetSelfPtr(g.objs.Pin(s))
			b.eagerPin = true
		}
	}
	if f == nil {
		st = g.raiseText(fmt.Sprintf("%s has no %s '%s'", b.name, what, g.keyText(fr, &key)), nil)
	}
	return ov, key, f, false, st
}

// fieldGet is __index after the methods table missed: a struct field, a
// map element or a slice element of a ByRef value.
func fieldGet(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
	b := e.fn.(*binding)
	ov, key, f, elem, st := g.fieldAccess(fr, b, "field or method")
	if elem {
		return g.elemGet(fr, b, ov, &key)
	}
	if f == nil {
		return st
	}
	fv, err := ov.Elem().FieldByIndexErr(f.index)
	if err != nil {
		return g.raiseText(fmt.Sprintf("field '%s' of %s: %s", key.View(), b.name, nilEmbedded(ov.Elem(), f.index)), nil)
	}
	switch fv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return retInt(fr, fv.Int())
	case reflect.Float32, reflect.Float64:
		return retNum(fr, fv.Float())
	case reflect.Bool:
		fr.ReturnBool(fv.Bool())
		return cgo.StatusReturn1
	}
	g.S.ProgReset()
	switch k := fv.Kind(); {
	case k == reflect.Struct:
		err = g.pushObjIn(fv.Addr(), nil, ov) // the field itself, kept alive by its parent
	case f.ref && (k == reflect.Slice || k == reflect.Map):
		err = g.pushObjIn(fv.Addr(), nil, ov) // lua:",ref": a view through the field
	default:
		err = g.pushValue(fv, key.View(), 0)
	}
	if err != nil {
		return g.raiseText(fmt.Sprintf("field '%s' of %s: %v", key.View(), b.name, err), err)
	}
	return g.commitReturn()
}

// fieldSet is __newindex: assigns a struct field or a ByRef element.
func fieldSet(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
	b := e.fn.(*binding)
	ov, key, f, elem, st := g.fieldAccess(fr, b, "field")
	if elem {
		return g.elemSet(fr, b, ov, &key)
	}
	if f == nil {
		return st
	}
	fv, err := ov.Elem().FieldByIndexErr(f.index)
	if err != nil { // the value may be fine: the field is not there to set
		return g.raiseText(fmt.Sprintf("cannot set field '%s' of %s: %s", key.View(), b.name, nilEmbedded(ov.Elem(), f.index)), nil)
	}
	err = g.assignStored(fr, 2, fv) // a refused value leaves the field as it was
	if err != nil {
		if err == errStoreNoMem || errors.Is(err, ErrMemory) { // a memory error stays one
			return g.raiseStoreNoMem()
		}
		if err == errReleased {
			return g.raiseText(err.Error(), nil)
		}
		return g.raiseText(fmt.Sprintf("bad value for field '%s' of %s (%v)", key.View(), b.name, err), nil)
	}
	return g.ret0()
}

func (g *Gate) keyText(fr cgo.Frame, key *cgo.Arg) string {
	if s, err := g.readString(fr.Thread(), 2, key); err == nil {
		return s
	}
	return "(" + g.typeName(fr.Thread(), 2, key) + " key)"
}

// objToString is __tostring: String() when the object has it (and the
// view shows it), else "Name: 0x...".
func objToString(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
	b := e.fn.(*binding)
	s, st := g.self(fr, b)
	if s == nil {
		return st
	}
	// As fmt prints it: Error first, then String.
	if e, ok := g.objs.Val(s).(error); ok && (b.view == nil || b.view.Implements(errorType)) {
		return g.retStr(e.Error())
	}
	if str, ok := g.objs.Val(s).(fmt.Stringer); ok && (b.view == nil || b.view.Implements(stringerType)) {
		return g.retStr(str.String())
	}
	return g.retStr(fmt.Sprintf("%s: %p", b.name, s.Ptr()))
}

var stringerType = reflect.TypeFor[fmt.Stringer]()

// objEqual is the __eq shared by every object metatable: two userdata are
// equal when they hold the same object, whatever their views.
func objEqual(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
	t := fr.Thread()
	a1, a2 := arg(fr, 0), arg(fr, 1)
	s1, b1, ok1, err1 := g.objAt(t, 1, &a1)
	s2, b2, ok2, err2 := g.objAt(t, 2, &a2)
	eq := ok1 && ok2 && err1 == nil && err2 == nil && s1.Ptr() == s2.Ptr() && b1.typ == b2.typ
	fr.ReturnBool(eq)
	return cgo.StatusReturn1
}

// nilEmbedded words the failure of FieldByIndexErr on v: the field is
// promoted through an embedded pointer that is nil ("embedded *Base is
// nil"), not reflect's "indirection through nil pointer".
func nilEmbedded(v reflect.Value, index []int) string {
	for _, i := range index[:len(index)-1] {
		v = v.Field(i)
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return "embedded " + v.Type().String() + " is nil"
			}
			v = v.Elem()
		}
	}
	return "not reachable"
}
