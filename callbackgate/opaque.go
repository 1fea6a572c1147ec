package callbackgate

import (
	"errors"
	"reflect"
	"unsafe"

	"github.com/zlua-go/zlua/cgo"
)

// OpaqueArg is a pointer to a struct passed to Lua as a frame-scoped
// handle: a light userdata valid only until the API call that pushed it
// returns. zlua.Opaque makes one; its value is a single pointer, so
// passing it as an any allocates nothing.
type OpaqueArg interface {
	// OpaqueTarget returns the pointer and its type (a pointer type).
	OpaqueTarget() (p unsafe.Pointer, typ reflect.Type)
}

// errOpaque is the error of every use of a handle whose call has returned.
var errOpaque = errors.New("invalid opaque parameter handle")

// Opaque handles are odd numbers: a tag bit (1), an index into the gate's
// handle stack (16 bits, plus one so 0 is never an index) and a generation
// (22 bits). Light userdata made by Lua and its libraries are aligned
// pointers, so the tag tells a handle (live or not) from them. 39 bits
// keep every handle in LuaJIT's first light userdata segment.
const (
	opaqueIdxBits = 16
	opaqueGenBits = 22
	opaqueGenMask = 1<<opaqueGenBits - 1
	maxOpaque     = 1<<opaqueIdxBits - 1
	opaqueGenPos  = 1 + opaqueIdxBits
)

// opaqueEntry is one live handle: the pointer and its type, its
// generation, and the gate depth of the API call it belongs to.
type opaqueEntry struct {
	p     unsafe.Pointer
	typ   reflect.Type // a pointer to a struct type
	gen   uint32
	depth int
}

// value is the handle's pointer as a reflect.Value of type *Elem.
func (o *opaqueEntry) value() reflect.Value { return reflect.NewAt(o.typ.Elem(), o.p) }

// opaqueType is the pointer type pushOpaque last accepted and the ByVal
// type of its element when blittable, so calls that pass handles of one
// type check it once, and get_opaquevalue copies without reflection.
type opaqueType struct {
	typ reflect.Type
	vt  *valType // nil until get_opaquevalue first copies a blittable one
}

// pushOpaque appends a handle for x's pointer, valid until the current
// API call returns (Exit closes it).
func (g *Gate) pushOpaque(x OpaqueArg) error {
	h, err := g.openOpaque(x)
	switch {
	case err != nil:
		return err
	case h == 0:
		g.S.PutNil()
	default:
		g.S.PutLight(h)
	}
	return nil
}

// openOpaque makes a handle for x's pointer, valid until the current API
// call returns (Exit closes it), and returns its light userdata value; 0
// when the pointer is nil (Lua gets nil).
func (g *Gate) openOpaque(x OpaqueArg) (uint64, error) {
	p, typ := x.OpaqueTarget()
	sv := &g.sv
	if !sameType(typ, sv.opqLast.typ) {
		if typ.Kind() != reflect.Pointer || typ.Elem().Kind() != reflect.Struct || isHandle(typ) {
			return 0, &pushError{typ}
		}
		sv.opqLast = opaqueType{typ: typ}
	}
	if p == nil {
		return 0, nil
	}
	n := len(sv.opq)
	if n >= maxOpaque {
		return 0, errors.New("zlua: too many opaque handles in one call")
	}
	if n == cap(sv.opq) {
		sv.growOpaque()
	}
	return sv.putOpaque(n, p, typ, g.deep), nil
}

// putOpaque makes p (of type typ, for the API call at depth) handle n, the
// next one of the stack (n < cap(sv.opq)), under a new generation, and
// returns its light userdata value. The entry is stored field by field:
// append would build it on the stack first and copy it.
func (sv *structState) putOpaque(n int, p unsafe.Pointer, typ reflect.Type, depth int) uint64 {
	gen := (sv.opqGen + 1) & opaqueGenMask
	if gen == 0 {
		gen = 1
	}
	sv.opqGen = gen
	sv.opq = sv.opq[:n+1]
	o := &sv.opq[n]
	o.p, o.typ, o.gen, o.depth = p, typ, gen, depth
	return uint64(gen)<<opaqueGenPos | uint64(n+1)<<1 | 1
}

// growOpaque makes room for one more handle (openOpaque's rare case).
//
//go:noinline
func (sv *structState) growOpaque() {
	sv.opq = append(sv.opq, opaqueEntry{})[:len(sv.opq)]
}

// closeOpaque invalidates the handles of the API call ending now (and of
// any deeper one a panic skipped).
func (g *Gate) closeOpaque() {
	n := len(g.sv.opq)
	for n > 0 && g.sv.opq[n-1].depth >= g.deep {
		n--
		g.sv.opq[n] = opaqueEntry{}
	}
	g.sv.opq = g.sv.opq[:n]
}

// looksLikeHandle reports whether h carries the handle tag: one whose call
// has returned is refused as an invalid handle, any other light userdata
// by its type.
func looksLikeHandle(h uint64) bool {
	return h&1 == 1 && h>>(opaqueGenPos+opaqueGenBits) == 0
}

// opaqueAt returns the entry of the handle h while its call runs (valid
// until the next push of a handle).
func (g *Gate) opaqueAt(h uint64) (*opaqueEntry, bool) {
	i := int(h>>1&maxOpaque) - 1
	if !looksLikeHandle(h) || i < 0 || i >= len(g.sv.opq) || h>>opaqueGenPos != uint64(g.sv.opq[i].gen) {
		return nil, false
	}
	return &g.sv.opq[i], true
}

// popOpaque stores the pointer of the handle a into v (a pointer of the
// handle's type, or an interface it implements).
func (g *Gate) popOpaque(a *cgo.Arg, v reflect.Value) error {
	o, ok := g.opaqueAt(a.Light())
	typ := v.Type()
	if !ok {
		if looksLikeHandle(a.Light()) {
			return errOpaque
		}
		return typeError(expectedName(typ), "light userdata")
	}
	p := o.value()
	if !p.Type().AssignableTo(typ) {
		return typeError(expectedName(typ), "opaque handle of "+objName(p.Type()))
	}
	v.Set(p)
	return nil
}

// opaqueArg resolves argument 1 of get/set_opaquevalue (nil and the
// raised status when it is not a live handle).
func (g *Gate) opaqueArg(fr cgo.Frame, name string) (*opaqueEntry, int32) {
	a := arg(fr, 0)
	if a.Type != int32(cgo.TLightUserdata) {
		return nil, g.raiseArg(1, name, typeError("opaque handle", g.typeName(fr.Thread(), 1, &a)))
	}
	o, ok := g.opaqueAt(a.Light())
	if !ok {
		if !looksLikeHandle(a.Light()) {
			return nil, g.raiseArg(1, name, typeError("opaque handle", "light userdata"))
		}
		return nil, g.raiseText(errOpaque.Error(), nil)
	}
	return o, 0
}

// getOpaque is zlua.get_opaquevalue(h): a ByVal copy of *p. A blittable
// struct of the handle type pushed last is copied from p straight into
// the program, without reflection.
func getOpaque(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
	o, st := g.opaqueArg(fr, e.name)
	if o == nil {
		return st
	}
	g.S.ProgReset()
	if last := &g.sv.opqLast; last.vt != nil && sameType(o.typ, last.typ) {
		g.S.PutByVal(last.vt.id, last.vt.mtref, o.p, last.vt.size, 0, 0)
		return g.commitReturn()
	}
	p := o.value()
	vt, err := g.valTypeFor(p.Type().Elem())
	if err == nil {
		if vt.lay.Blittable && sameType(o.typ, g.sv.opqLast.typ) {
			g.sv.opqLast.vt = vt
		}
		err = g.pushStruct(p.Elem(), o.p)
	}
	if err != nil {
		return g.raiseText(e.name+": "+err.Error(), err)
	}
	return g.commitReturn()
}

// setOpaque is zlua.set_opaquevalue(h, v): *p = v, v a ByVal value of
// *p's type.
func setOpaque(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
	o, st := g.opaqueArg(fr, e.name)
	if o == nil {
		return st
	}
	p := o.value()
	a := arg(fr, 1)
	if a.Type != int32(cgo.TUserdata) {
		return g.raiseArg(2, e.name, typeError(luaName(p.Type().Elem()), g.typeName(fr.Thread(), 2, &a)))
	}
	if err := g.readArg(fr, 1, p.Elem()); err != nil {
		return g.raiseArg(2, e.name, err)
	}
	return g.ret0()
}

// InitStructs sets zlua.get_opaquevalue and zlua.set_opaquevalue and the
// metatable that makes indexing a handle an error. It runs once, when the
// Env is initialised, after the prelude.
func (g *Gate) InitStructs() error {
	s := g.S
	s.ProgReset()
	for _, f := range [...]funcEntry{{name: "get_opaquevalue", call: getOpaque}, {name: "set_opaquevalue", call: setOpaque}} {
		id, err := g.registerEntry(f)
		if err != nil {
			return err
		}
		s.PutGoFunc(id)
	}
	if err := s.Commit(); err != nil {
		return err
	}
	t := g.Current()
	if st, _ := s.Run(t, cgo.OpStructInit, 0, 0, 0); st != cgo.OK {
		return g.ErrorFromTop(t, st)
	}
	return nil
}
