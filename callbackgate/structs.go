package callbackgate

import (
	"errors"
	"fmt"
	"reflect"
	"unsafe"

	"github.com/zlua-go/zlua/cgo"
	"github.com/zlua-go/zlua/structreg"
)

// valType is how Lua sees one struct type pushed by value: its layout,
// metatable (built once per state) and value-receiver methods.
type valType struct {
	id      uint32
	typ     reflect.Type
	lay     *structreg.Layout
	name    string
	mtref   int32
	methods []*valMethod
	// copied is set for blittable types that are not OpaqueArgs: push
	// copies such a value's bytes from its interface without reflection
	// (push.go); size is then their size.
	copied bool
	size   int
	// reach is the type's charge plan, set at its first charge (charge.go)
	reach *reachPlan
}

// valMethod is one value-receiver method callable on ByVal userdata; its
// argument and result types are computed once.
type valMethod struct {
	vt   *valType
	name string
	fn   reflect.Value // method expression: the receiver is argument 0
	ctx  int           // 1 when a context.Context comes first (not in in)
	in   []reflect.Type
	elem reflect.Type // variadic element type, or nil
	out  []reflect.Type
}

// structState is the gate's StructRegistry: companions, struct types by
// id, and the opaque handles of the calls in progress.
type structState struct {
	reg     *structreg.Registry
	types   map[reflect.Type]*valType
	byID    []*valType
	last    *valType
	opq     []opaqueEntry
	opqGen  uint32
	opqLast opaqueType // the handle type pushed last (opaque.go)
	// reach caches, per type descriptor, what a charge's walk needs
	// (charge.go).
	reach map[unsafe.Pointer]*reachPlan
}

func newStructState(s *cgo.State) structState {
	return structState{reg: structreg.New(s), types: map[reflect.Type]*valType{}, byID: []*valType{nil}}
}

// closeStructs releases the companions after lua_close and returns how
// many were still live (leaks).
func (g *Gate) closeStructs() int {
	n := g.sv.reg.Close()
	g.lifeMu.Lock()
	g.sv = structState{}
	g.lifeMu.Unlock()
	return n
}

// valTypeFor returns the ByVal type of the struct type t, building its
// metatable on first use (the program being written is kept).
func (g *Gate) valTypeFor(t reflect.Type) (*valType, error) {
	if vt := g.sv.last; vt != nil && sameType(vt.typ, t) {
		return vt, nil
	}
	vt, ok := g.sv.types[t]
	if !ok {
		if isHandle(t) { // a copy of a handle would share its ref
			return nil, handlePushError(t)
		}
		if err := checkRefTags(t); err != nil { // refused by pointer too
			return nil, err
		}
		lay := structreg.LayoutOf(t)
		vt = &valType{id: uint32(len(g.sv.byID)), typ: t, lay: lay, name: lay.Name,
			copied: lay.Blittable && !t.Implements(opaqueArgType), size: int(t.Size())}
		for i := 0; i < t.NumMethod(); i++ {
			vt.methods = append(vt.methods, newValMethod(vt, t.Method(i)))
		}
		ref, err := g.buildValMetatable(vt)
		if err != nil {
			return nil, err
		}
		vt.mtref = ref
		g.sv.byID = append(g.sv.byID, vt)
		g.sv.types[t] = vt
	}
	g.sv.last = vt
	return vt, nil
}

var opaqueArgType = reflect.TypeFor[OpaqueArg]()

func newValMethod(vt *valType, m reflect.Method) *valMethod {
	ft := m.Type
	vm := &valMethod{vt: vt, name: m.Name, fn: m.Func, ctx: ctxParams(ft, 1)}
	for i := 1 + vm.ctx; i < ft.NumIn(); i++ {
		vm.in = append(vm.in, ft.In(i))
	}
	if ft.IsVariadic() {
		vm.elem = vm.in[len(vm.in)-1].Elem()
		vm.in = vm.in[:len(vm.in)-1]
	}
	for i := 0; i < ft.NumOut(); i++ {
		vm.out = append(vm.out, ft.Out(i))
	}
	return vm
}

// buildValMetatable creates vt's metatable in a protected operation: the
// field table C serves numeric and boolean fields from, the methods, the
// Go getter and setter for everything else, __tostring, and (companions
// only) __gc.
func (g *Gate) buildValMetatable(vt *valType) (int32, error) {
	s := g.S
	saved := s.ProgSave()
	defer g.progRestore(saved)
	s.ProgReset()
	s.PutStr(vt.name)
	s.PutNewValMetatable(!vt.lay.Blittable)
	s.PutNewTable(0, len(vt.lay.Fields))
	for _, f := range vt.lay.Order {
		if f.Kind != 0 {
			s.PutStr(f.Name)
			s.PutInt(int64(f.Kind) | int64(f.Offset)<<8)
			s.PutRawSet()
		}
	}
	s.PutNewTable(0, len(vt.methods))
	for _, m := range vt.methods {
		id, err := g.registerEntry(funcEntry{name: vt.name + ":" + m.name, fn: m, call: valMethodCall})
		if err != nil {
			return 0, err
		}
		s.PutStr(m.name)
		s.PutGoFunc(id)
		s.PutRawSet()
	}
	for _, mm := range [...]struct {
		key  string
		call callFunc
	}{{".__index", valFieldGet}, {".__newindex", valFieldSet}} {
		id, err := g.registerEntry(funcEntry{name: vt.name + mm.key, fn: vt, call: mm.call})
		if err != nil {
			return 0, err
		}
		s.PutGoFunc(id)
	}
	s.PutInt(int64(vt.id))
	if vt.lay.Blittable {
		s.PutInt(int64(vt.typ.Size()))
	} else {
		s.PutInt(0) // a companion type: C caches the scalars it reads
	}
	s.PutStr(vt.name)
	s.PutValIndexer()
	id, err := g.registerEntry(funcEntry{name: vt.name + ".__tostring", fn: vt, call: valToString})
	if err != nil {
		return 0, err
	}
	s.PutStr("__tostring")
	s.PutGoFunc(id)
	s.PutRawSet()
	g.putUserMeta(vt.typ)
	if err := s.Commit(); err != nil {
		return 0, err
	}
	t := g.Current()
	st, ref := s.Run(t, cgo.OpProgRef, 0, 0, 0)
	if st != cgo.OK {
		return 0, fmt.Errorf("zlua: metatable of %s: %w", vt.name, g.ErrorFromTop(t, st))
	}
	return int32(ref), nil
}

// pushStruct appends a push of a ByVal copy of the struct v. p, when not
// nil, is v's address: a blittable value is then copied without
// allocating.
func (g *Gate) pushStruct(v reflect.Value, p unsafe.Pointer) error {
	vt, err := g.valTypeFor(v.Type())
	if err != nil {
		return err
	}
	if vt.lay.Blittable {
		if p == nil {
			if v.CanAddr() {
				p = v.Addr().UnsafePointer()
			} else {
				c := reflect.New(vt.typ)
				c.Elem().Set(v)
				p = c.UnsafePointer()
			}
		}
		g.S.PutByVal(vt.id, vt.mtref, p, int(vt.typ.Size()), 0, 0)
		return nil
	}
	c := reflect.New(vt.typ)
	c.Elem().Set(v)
	idx, gen, err := g.sv.reg.Add(c.Interface())
	if err != nil {
		return err
	}
	g.S.PutCompanion(vt.id, vt.mtref, idx, gen, g.companionCharge(vt, c.Elem()))
	return nil
}

// pushStructIface pushes the struct held by x (rv is reflect.ValueOf(x)):
// the interface's data word addresses the value, so a blittable struct is
// copied from there without allocating.
func (g *Gate) pushStructIface(x any, rv reflect.Value) error {
	return g.pushStruct(rv, (*[2]unsafe.Pointer)(unsafe.Pointer(&x))[1])
}

// valAt resolves the ByVal userdata at idx: ok is false when it is not one
// of this state. v is the value in place (the payload or the companion).
func (g *Gate) valAt(t cgo.Thread, idx int, a *cgo.Arg) (vt *valType, v reflect.Value, ok bool, err error) {
	h, ours, checked := a.OwnVal()
	if !checked {
		if a.Type != int32(cgo.TUserdata) {
			return nil, v, false, nil
		}
		h, ours = g.S.ValAt(t, idx)
	}
	if !ours || int(h.TypeID) >= len(g.sv.byID) {
		return nil, v, false, nil
	}
	vt = g.sv.byID[h.TypeID]
	if h.Companion == 0 {
		return vt, reflect.NewAt(vt.typ, h.Payload).Elem(), true, nil
	}
	c, live := g.sv.reg.Get(h.Companion, h.Gen)
	if h.Released || !live {
		return vt, v, true, errReleased
	}
	return vt, reflect.ValueOf(c).Elem(), true, nil
}

// popUserdata stores the userdata at idx into v: a ByVal value of v's
// type (copied), else whatever popObj accepts.
func (g *Gate) popUserdata(t cgo.Thread, idx int, a *cgo.Arg, v reflect.Value) error {
	vt, sv, ok, err := g.valAt(t, idx, a)
	if !ok {
		return g.popObj(t, idx, a, v)
	}
	if err != nil {
		return err
	}
	typ := v.Type()
	switch {
	case typ == vt.typ:
		v.Set(sv)
	case typ.Kind() == reflect.Interface && vt.typ.Implements(typ):
		v.Set(sv)
	case typ.Kind() == reflect.Pointer && typ.Elem() == vt.typ:
		return &argError{detail: "*" + vt.name + " expected, got " + vt.name + " value (a copy has no Go address)"}
	default:
		return typeMismatch(typ, vt.typ, expectedName(typ), vt.name)
	}
	return nil
}

// naturalStruct is the natural Go form of a ByVal userdata: a copy of the
// struct. ok is false for other values.
func (g *Gate) naturalStruct(t cgo.Thread, idx int, a *cgo.Arg) (x any, ok bool, err error) {
	_, sv, ok, err := g.valAt(t, idx, a)
	if !ok || err != nil {
		return nil, ok, err
	}
	return sv.Interface(), true, nil
}

// valThis resolves argument 1 of a metamethod or method of vt.
func (g *Gate) valThis(fr cgo.Frame, vt *valType, name string) (reflect.Value, int32) {
	a := arg(fr, 0)
	got, v, ok, err := g.valAt(fr.Thread(), 1, &a)
	if err != nil {
		return reflect.Value{}, g.raiseText(err.Error(), nil)
	}
	if ok && got == vt {
		return v, 0
	}
	wantName, gotName := vt.name, g.typeName(fr.Thread(), 1, &a)
	if ok {
		wantName, gotName = distinctNames(vt.typ, got.typ, vt.name, got.name)
	}
	return reflect.Value{}, g.raiseText(fmt.Sprintf("calling '%s' on bad self (%s expected, got %s)", name, wantName, gotName), nil)
}

// pointerMethod reports whether name is a method of *t that t lacks: one a
// ByVal copy cannot call.
func pointerMethod(t reflect.Type, name string) bool {
	if _, ok := t.MethodByName(name); ok {
		return false
	}
	_, ok := reflect.PointerTo(t).MethodByName(name)
	return ok
}

// valFieldGet is __index when C did not serve the key: nested structs
// (a ByVal copy), arrays (a table copy), strings, slices, maps and the
// fields of companions; a missing key is an error.
func valFieldGet(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
	vt := e.fn.(*valType)
	self, st := g.valThis(fr, vt, e.name)
	if !self.IsValid() {
		return st
	}
	key := arg(fr, 1)
	var f *structreg.Field
	if key.Type == int32(cgo.TString) {
		f = vt.lay.Fields[key.View()]
	}
	if f == nil {
		text := fmt.Sprintf("%s has no field or method '%s'", vt.name, g.keyText(fr, &key))
		if key.Type == int32(cgo.TString) && pointerMethod(vt.typ, key.View()) {
			text += " (the method has a pointer receiver, and a struct copy has no Go address: push *" + vt.name + ")"
		}
		return g.raiseText(text, nil)
	}
	fv, err := self.FieldByIndexErr(f.Index)
	if err != nil { // promoted through a nil embedded pointer
		return g.raiseText(fmt.Sprintf("field '%s' of %s: %s", f.Name, vt.name, nilEmbedded(self, f.Index)), nil)
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
	err = g.pushValue(fv, f.Name, 0)
	if err != nil {
		return g.raiseText(fmt.Sprintf("field '%s' of %s: %v", f.Name, vt.name, err), err)
	}
	if fv.Kind() == reflect.Struct && plainStruct(fv.Type()) && g.selfNoAddr(fr) {
		g.S.PutNoAddr() // m.a.Pos of a map element is a copy with no address too
	}
	return g.commitReturn()
}

// noAddrText is why a field of a copy marked NoAddr refuses a write, and
// the remedy.
const noAddrText = "a map element, or a struct held in an interface, has no Go address; assign the whole element: m[k] = v"

// selfNoAddr reports whether argument 1, a ByVal userdata, is a copy of a
// Go value with no address (pushElem): its fields refuse writes.
func (g *Gate) selfNoAddr(fr cgo.Frame) bool {
	a := arg(fr, 0)
	h, ours, checked := a.OwnVal()
	if !checked {
		h, ours = g.S.ValAt(fr.Thread(), 1)
	}
	return ours && h.NoAddr
}

// valFieldSet is __newindex when C did not serve the key.
func valFieldSet(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
	vt := e.fn.(*valType)
	self, st := g.valThis(fr, vt, e.name)
	if !self.IsValid() {
		return st
	}
	key := arg(fr, 1)
	var f *structreg.Field
	if key.Type == int32(cgo.TString) {
		f = vt.lay.Fields[key.View()]
	}
	if f == nil {
		return g.raiseText(fmt.Sprintf("%s has no field '%s'", vt.name, g.keyText(fr, &key)), nil)
	}
	if g.selfNoAddr(fr) {
		return g.raiseText(fmt.Sprintf("cannot set field '%s' of a copy of %s (%s)", f.Name, vt.name, noAddrText), nil)
	}
	fv, err := self.FieldByIndexErr(f.Index)
	if err != nil {
		return g.raiseText(fmt.Sprintf("cannot set field '%s' of %s: %s", f.Name, vt.name, nilEmbedded(self, f.Index)), nil)
	}
	// what the field reaches before and after the write changes the
	// companion's charge (charge.go); a payload field reaches nothing
	charged := g.reaches(fv.Type())
	var before int64
	if charged {
		before = g.fieldReach(fv)
	}
	assign := g.readAssign
	if fv.Kind() == reflect.Pointer { // what the walk does not follow (storecharge.go)
		assign = g.assignStored
	}
	if err := assign(fr, 2, fv); err != nil {
		if err == errStoreNoMem || errors.Is(err, ErrMemory) { // a memory error stays one
			return g.raiseStoreNoMem()
		}
		if err == errReleased {
			return g.raiseText(err.Error(), nil)
		}
		return g.raiseText(fmt.Sprintf("bad value for field '%s' of %s (%v)", f.Name, vt.name, err), nil)
	}
	if charged {
		if d := g.fieldReach(fv) - before; d != 0 {
			return g.chargeSelf(fr, d)
		}
	}
	return g.ret0()
}

// chargeSelf ends a companion field write that changed what the copy
// reaches by d bytes: C changes the charge of the receiver's slot.
func (g *Gate) chargeSelf(fr cgo.Frame, d int64) int32 {
	a := arg(fr, 0)
	h, ours, checked := a.OwnVal()
	if !checked {
		h, ours = g.S.ValAt(fr.Thread(), 1)
	}
	if !ours || h.Companion == 0 {
		return g.ret0()
	}
	g.S.ProgReset()
	g.S.PutCompanionCharge(h.Companion, d)
	return g.commitReturn()
}

// valToString is __tostring: String() when the type has it, else
// "Name{Field=value ...}".
func valToString(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
	vt := e.fn.(*valType)
	self, st := g.valThis(fr, vt, e.name)
	if !self.IsValid() {
		return st
	}
	if e, ok := self.Interface().(error); ok { // as fmt prints it: Error first
		return g.retStr(e.Error())
	}
	if s, ok := self.Interface().(fmt.Stringer); ok {
		return g.retStr(s.String())
	}
	b := []byte(vt.name + "{")
	for i, f := range vt.lay.Order {
		if i > 0 {
			b = append(b, ' ')
		}
		if fv, err := self.FieldByIndexErr(f.Index); err == nil {
			if txt, ok := printBoundValue(fv); !ok {
				b = append(append(append(b, f.Name...), '='), txt...)
			} else if txt, ok := methodText(fv); ok {
				b = append(append(append(b, f.Name...), '='), txt...)
			} else {
				b = fmt.Appendf(b, "%s=%v", f.Name, fv)
			}
		} else {
			b = fmt.Appendf(b, "%s=<nil>", f.Name) // behind a nil embedded pointer, as fmt prints it
		}
	}
	return g.retStr(string(append(b, '}')))
}

// methodText is what fmt's %v prints for v when that is its Error or
// String method's text, called here rather than by fmt: fmt recovers a
// panic in them and prints "%!v(PANIC=Error method: ...)", which would
// swallow the Lua error of a script callback the method ran (even an
// attempt to yield) and show Go's words to the script (probe Z3-F5). ok
// is false for a value fmt prints otherwise (a nil pointer prints
// <nil>, unexported fields are walked without their methods).
func methodText(v reflect.Value) (string, bool) {
	for v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	if !v.IsValid() || !v.CanInterface() || (v.Kind() == reflect.Pointer && v.IsNil()) {
		return "", false
	}
	switch x := v.Interface().(type) {
	case fmt.Formatter:
		return "", false // fmt calls Format, with the verb
	case error:
		return x.Error(), true
	case fmt.Stringer:
		return x.String(), true
	}
	return "", false
}

// valMethodCall calls a value-receiver method on a copy of the receiver;
// argument numbers do not count the receiver.
func valMethodCall(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
	m := e.fn.(*valMethod)
	self, st := g.valThis(fr, m.vt, e.name)
	if !self.IsValid() {
		return st
	}
	n := fr.NArgs() - 1
	count := len(m.in)
	if m.elem != nil && n > count {
		count = n
	}
	first := 1 + m.ctx // the receiver, the context
	args := make([]reflect.Value, count+first)
	args[0] = self
	if m.ctx == 1 {
		args[1] = ctxValue(g.callCtx())
	}
	g.ConvScope() // the arguments share one budget (convbudget.go)
	for i := 0; i < count; i++ {
		typ := m.elem
		if i < len(m.in) {
			typ = m.in[i]
		}
		v := reflect.New(typ).Elem()
		if err := g.readArg(fr, i+1, v); err != nil {
			g.ConvEndScope()
			return g.raiseMethodArg(i+1, e.name, err)
		}
		args[i+first] = v
	}
	g.ConvEndScope()
	return g.results(m.fn.Call(args), m.out, e.name)
}
