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
// shape of ptrShapes (shapeOf from parameter 1 on); nil otherwise.
func ptrFuncPlan(t reflect.Type) callFunc {
	if t.IsVariadic() || t.NumIn() == 0 {
		return nil
	}
	pt := t.In(0)
	if pt.Kind() != reflect.Pointer || pt.Elem().Kind() != reflect.Struct || isHandle(pt) {
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
	v := reflect.New(pt).Elem()
	if err := g.readArg(fr, 0, v); err != nil {
		return nil, g.raiseArg(1, e.name, err), false
	}
	return v.UnsafePointer(), 0, true
}

// ptrShapes serve func(*T, ...) signatures by calling the function code
// directly: the shapes of methodShapes and "i:p" (see shapeOf for the
// letters; a pointer result goes back as retPtr returns it). Arguments after the pointer are numbered from 2, as Lua
// counts them.
var ptrShapes map[string]ptrShapeMaker

func init() { ptrShapes = makePtrShapes() }

func makePtrShapes() map[string]ptrShapeMaker {
	return map[string]ptrShapeMaker{
		":": func(_, pt reflect.Type) callFunc {
			return func(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
				p, st, ok := g.ptrArg(fr, pt, e)
				if !ok {
					return st
				}
				as[func(unsafe.Pointer)](funcCode(e.fn))(p)
				return g.ret0()
			}
		},
		":e": func(_, pt reflect.Type) callFunc {
			return func(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
				p, st, ok := g.ptrArg(fr, pt, e)
				if !ok {
					return st
				}
				if err := as[func(unsafe.Pointer) error](funcCode(e.fn))(p); err != nil {
					return g.fail(err)
				}
				return g.ret0()
			}
		},
		":i": func(_, pt reflect.Type) callFunc {
			return func(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
				p, st, ok := g.ptrArg(fr, pt, e)
				if !ok {
					return st
				}
				return retInt(fr, as[func(unsafe.Pointer) int64](funcCode(e.fn))(p))
			}
		},
		":f": func(_, pt reflect.Type) callFunc {
			return func(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
				p, st, ok := g.ptrArg(fr, pt, e)
				if !ok {
					return st
				}
				return retNum(fr, as[func(unsafe.Pointer) float64](funcCode(e.fn))(p))
			}
		},
		":b": func(_, pt reflect.Type) callFunc {
			return func(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
				p, st, ok := g.ptrArg(fr, pt, e)
				if !ok {
					return st
				}
				fr.ReturnBool(as[func(unsafe.Pointer) bool](funcCode(e.fn))(p))
				return cgo.StatusReturn1
			}
		},
		":s": func(_, pt reflect.Type) callFunc {
			return func(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
				p, st, ok := g.ptrArg(fr, pt, e)
				if !ok {
					return st
				}
				return g.retStr(as[func(unsafe.Pointer) string](funcCode(e.fn))(p))
			}
		},
		":ff": func(_, pt reflect.Type) callFunc {
			return func(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
				p, st, ok := g.ptrArg(fr, pt, e)
				if !ok {
					return st
				}
				fr.ReturnNum2(as[func(unsafe.Pointer) (float64, float64)](funcCode(e.fn))(p))
				return cgo.StatusReturn2
			}
		},
		"i:": func(_, pt reflect.Type) callFunc {
			return func(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
				p, st, ok := g.ptrArg(fr, pt, e)
				if !ok {
					return st
				}
				a, err := g.intArg(fr, 1)
				if err != nil {
					return g.raiseArg(2, e.name, err)
				}
				as[func(unsafe.Pointer, int64)](funcCode(e.fn))(p, a)
				return g.ret0()
			}
		},
		"f:": func(_, pt reflect.Type) callFunc {
			return func(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
				p, st, ok := g.ptrArg(fr, pt, e)
				if !ok {
					return st
				}
				a, err := g.floatArg(fr, 1)
				if err != nil {
					return g.raiseArg(2, e.name, err)
				}
				as[func(unsafe.Pointer, float64)](funcCode(e.fn))(p, a)
				return g.ret0()
			}
		},
		"ff:": func(_, pt reflect.Type) callFunc {
			return func(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
				p, st, ok := g.ptrArg(fr, pt, e)
				if !ok {
					return st
				}
				a, err := g.floatArg(fr, 1)
				if err != nil {
					return g.raiseArg(2, e.name, err)
				}
				b, err := g.floatArg(fr, 2)
				if err != nil {
					return g.raiseArg(3, e.name, err)
				}
				as[func(unsafe.Pointer, float64, float64)](funcCode(e.fn))(p, a, b)
				return g.ret0()
			}
		},
		"s:": func(_, pt reflect.Type) callFunc {
			return func(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
				p, st, ok := g.ptrArg(fr, pt, e)
				if !ok {
					return st
				}
				a, err := g.stringArg(fr, 1)
				if err != nil {
					return g.raiseArg(2, e.name, err)
				}
				as[func(unsafe.Pointer, string)](funcCode(e.fn))(p, a)
				return g.ret0()
			}
		},
		"ii:": func(_, pt reflect.Type) callFunc {
			return func(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
				p, st, ok := g.ptrArg(fr, pt, e)
				if !ok {
					return st
				}
				a, err := g.intArg(fr, 1)
				if err != nil {
					return g.raiseArg(2, e.name, err)
				}
				b, err := g.intArg(fr, 2)
				if err != nil {
					return g.raiseArg(3, e.name, err)
				}
				as[func(unsafe.Pointer, int64, int64)](funcCode(e.fn))(p, a, b)
				return g.ret0()
			}
		},
		"i:b": func(_, pt reflect.Type) callFunc {
			return func(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
				p, st, ok := g.ptrArg(fr, pt, e)
				if !ok {
					return st
				}
				a, err := g.intArg(fr, 1)
				if err != nil {
					return g.raiseArg(2, e.name, err)
				}
				fr.ReturnBool(as[func(unsafe.Pointer, int64) bool](funcCode(e.fn))(p, a))
				return cgo.StatusReturn1
			}
		},
		":p": func(t, pt reflect.Type) callFunc {
			out := t.Out(0)
			return func(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
				p, st, ok := g.ptrArg(fr, pt, e)
				if !ok {
					return st
				}
				return g.retPtr(fr, as[func(unsafe.Pointer) unsafe.Pointer](funcCode(e.fn))(p), out, e.name)
			}
		},
		"i:p": func(t, pt reflect.Type) callFunc {
			out := t.Out(0)
			return func(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
				p, st, ok := g.ptrArg(fr, pt, e)
				if !ok {
					return st
				}
				a, err := g.intArg(fr, 1)
				if err != nil {
					return g.raiseArg(2, e.name, err)
				}
				return g.retPtr(fr, as[func(unsafe.Pointer, int64) unsafe.Pointer](funcCode(e.fn))(p, a), out, e.name)
			}
		},
		"i:i": func(_, pt reflect.Type) callFunc {
			return func(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
				p, st, ok := g.ptrArg(fr, pt, e)
				if !ok {
					return st
				}
				a, err := g.intArg(fr, 1)
				if err != nil {
					return g.raiseArg(2, e.name, err)
				}
				return retInt(fr, as[func(unsafe.Pointer, int64) int64](funcCode(e.fn))(p, a))
			}
		},
		"f:f": func(_, pt reflect.Type) callFunc {
			return func(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
				p, st, ok := g.ptrArg(fr, pt, e)
				if !ok {
					return st
				}
				a, err := g.floatArg(fr, 1)
				if err != nil {
					return g.raiseArg(2, e.name, err)
				}
				return retNum(fr, as[func(unsafe.Pointer, float64) float64](funcCode(e.fn))(p, a))
			}
		},
	}
}
