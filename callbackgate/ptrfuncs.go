package callbackgate

import (
	"reflect"
	"unsafe"

	"github.com/zlua-go/zlua/cgo"
)

// Plain Go functions whose first parameter is a pointer to a struct
// (func(p *T, ...) R: a host getter, a system acting on an entity) are
// served like methods (methods.go): the function code is called through
// a func type whose first parameter is an unsafe.Pointer, with the same
// register assignment, so no reflect.Value.Call and no allocation. The
// pointer is the object of a live ByObj userdata of *T or the target of a
// live opaque handle of *T (zlua.Opaque), each proven as a method
// receiver or get_opaquevalue's argument is; anything else (nil, another
// view, a stale handle, a wrong type) is converted by readArg, which
// gives nil or the error a reflective call would.

// ptrShapeMaker makes the call of a func(*T, ...) shape: t is the func
// type, pt its first parameter *T.
type ptrShapeMaker func(t, pt reflect.Type) callFunc

// ptrFuncPlan serves t when it is a non-variadic func(*T, ...) with a
// shape of ptrShapes (shapeOf from parameter 1 on); nil otherwise. *T may
// be a handle type (*Table, *Function, *Thread): ptrArgSlow gives the
// handle.
func ptrFuncPlan(t reflect.Type) callFunc {
	if t.IsVariadic() || t.NumIn() == 0 {
		return nil
	}
	pt := t.In(0)
	if pt.Kind() != reflect.Pointer || pt.Elem().Kind() != reflect.Struct {
		return nil
	}
	if mk := ptrShapes[shapeOf(t, 1)]; mk != nil {
		return mk(t, pt)
	}
	return nil
}

// ptrArg resolves argument 1 of a call of e, whose first parameter has
// type pt. ok is false when it raised (st is the status).
func (g *Gate) ptrArg(fr cgo.Frame, pt reflect.Type, e *funcEntry) (p unsafe.Pointer, st int32, ok bool) {
	if slot, gen, typeID, self := fr.Self(); self {
		if int(typeID) < len(g.bindByID) && g.bindByID[typeID] != nil && sameType(g.bindByID[typeID].typ, pt) {
			if s := g.objs.Get(slot, gen); s != nil {
				return s.Ptr(), 0, true
			}
		}
	} else if fr.NArgs() > 0 {
		if a := fr.Arg(0); a.Type == int32(cgo.TLightUserdata) {
			if o, live := g.opaqueAt(a.Light()); live && sameType(o.typ, pt) {
				return o.p, 0, true
			}
		}
	}
	return g.ptrArgSlow(fr, pt, e)
}

// ptrArgSlow converts argument 1 as a reflective call would: nil gives a
// nil pointer, other views of *T their object, anything else its error.
func (g *Gate) ptrArgSlow(fr cgo.Frame, pt reflect.Type, e *funcEntry) (unsafe.Pointer, int32, bool) {
	if a := arg(fr, 0); handleArgType(a.Type) {
		// a *Table, *Function or *Thread parameter given a value it
		// takes (or nil): its handle, without the reflective read
		p, ok, err := g.handlePtr(fr.Thread(), 1, &a, pt)
		if ok {
			if err != nil {
				return nil, g.raiseArg(1, e.name, err), false
			}
			return p, 0, true
		}
	}
	v := reflect.New(pt).Elem()
	if err := g.readArg(fr, 0, v); err != nil {
		return nil, g.raiseArg(1, e.name, err), false
	}
	return v.UnsafePointer(), 0, true
}

// ptrShapes serve func(*T, ...) signatures by calling the function code
// directly: the shapes of methodShapes and "i:p" (see shapeOf for the
// letters; a pointer result goes back as retPtr returns it). Arguments
// after the pointer are numbered from 2, as Lua counts them. The closures
// are generated with methodShapes' (shapes_gen.go).
var ptrShapes map[string]ptrShapeMaker

func init() { ptrShapes = makePtrShapes() }

// handleArgType reports whether an argument of Lua type typ goes to a
// handle parameter through handlePtr alone, as read sends it: a table, a
// function, a thread, a userdata (a callable one is a function) or nil.
// Any other value takes readArg, whose error names it.
func handleArgType(typ int32) bool {
	switch typ {
	case int32(cgo.TTable), int32(cgo.TFunction), int32(cgo.TThread), int32(cgo.TUserdata),
		int32(cgo.TNil), int32(cgo.TNone):
		return true
	}
	return false
}
