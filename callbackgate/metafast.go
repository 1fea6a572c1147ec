package callbackgate

import (
	"reflect"
	"unsafe"

	"github.com/zlua-go/zlua/cgo"
	"github.com/zlua-go/zlua/structreg"
)

// Fast calls for the common shapes of metamethods of T: func(T, T) T,
// func(T, T) bool, func(T) T, func(T, float64) T, func(T) float64,
// func(T) string, where T is a blittable struct (its copies are read from
// the userdata's payload) or a pointer type (its objects from their
// slots). They call the Go function without reflection; operands of
// another kind (a number on the left of v * 2, a released object, a
// companion copy) take the function's ordinary plan, which also words
// the errors.

// metaFast is a fast call; ok false means "use the ordinary plan".
type metaFast func(g *Gate, fr cgo.Frame) (st int32, ok bool)

// SetMetamethodsOf sets the metamethods mm of the userdata of T (see
// zlua.Metamethods), with fast calls for the shapes above.
func SetMetamethodsOf[T any](g *Gate, t cgo.Thread, mm map[string]any) error {
	typ := reflect.TypeFor[T]()
	var fast map[string]metaFast
	if fastOperands(typ) {
		fast = map[string]metaFast{}
		for name, fn := range mm {
			if f := fastMetaFor[T](typ, objName(typ)+"."+name, fn); f != nil {
				fast[name] = f
			}
		}
	}
	return g.setMetamethods(t, typ, mm, fast)
}

// fastOperands reports whether values of typ can be read without
// reflection: blittable structs and pointer types.
func fastOperands(typ reflect.Type) bool {
	switch typ.Kind() {
	case reflect.Struct:
		return !isHandle(typ) && structreg.LayoutOf(typ).Blittable
	case reflect.Pointer:
		return !isHandle(typ)
	}
	return false
}

func fastMetaFor[T any](typ reflect.Type, name string, fn any) metaFast {
	switch f := fn.(type) {
	case func(T, T) T:
		return func(g *Gate, fr cgo.Frame) (int32, bool) {
			a, ok1 := metaOperand[T](g, fr, 0, typ)
			b, ok2 := metaOperand[T](g, fr, 1, typ)
			if !ok1 || !ok2 {
				return 0, false
			}
			return retMeta(g, fr, typ, f(a, b), name), true
		}
	case func(T, T) bool:
		return func(g *Gate, fr cgo.Frame) (int32, bool) {
			a, ok1 := metaOperand[T](g, fr, 0, typ)
			b, ok2 := metaOperand[T](g, fr, 1, typ)
			if !ok1 || !ok2 {
				return 0, false
			}
			fr.ReturnBool(f(a, b))
			return cgo.StatusReturn1, true
		}
	case func(T) T:
		return func(g *Gate, fr cgo.Frame) (int32, bool) {
			a, ok := metaOperand[T](g, fr, 0, typ)
			if !ok {
				return 0, false
			}
			return retMeta(g, fr, typ, f(a), name), true
		}
	case func(T, float64) T:
		return func(g *Gate, fr cgo.Frame) (int32, bool) {
			a, ok := metaOperand[T](g, fr, 0, typ)
			if k := arg(fr, 1); !ok || k.Type != int32(cgo.TNumber) {
				return 0, false
			}
			k, err := g.floatArg(fr, 1)
			if err != nil {
				return 0, false
			}
			return retMeta(g, fr, typ, f(a, k), name), true
		}
	case func(T) float64:
		return func(g *Gate, fr cgo.Frame) (int32, bool) {
			a, ok := metaOperand[T](g, fr, 0, typ)
			if !ok {
				return 0, false
			}
			return retNum(fr, f(a)), true
		}
	case func(T) string:
		return func(g *Gate, fr cgo.Frame) (int32, bool) {
			a, ok := metaOperand[T](g, fr, 0, typ)
			if !ok {
				return 0, false
			}
			return g.retStr(f(a)), true
		}
	}
	return nil
}

// metaOperand reads argument i as a value of typ without reflection: the
// payload of a ByVal copy of the blittable struct typ, or the object of a
// ByObj userdata whose binding's type is typ.
func metaOperand[T any](g *Gate, fr cgo.Frame, i int, typ reflect.Type) (v T, ok bool) {
	if i >= fr.NArgs() || i >= cgo.FastArgs {
		return v, false
	}
	a := fr.Arg(i)
	if typ.Kind() == reflect.Struct {
		h, ours, checked := a.OwnVal()
		vt := g.sv.last
		if vt == nil || vt.typ != typ {
			vt = g.sv.types[typ]
		}
		if !checked || !ours || h.Released || h.Companion != 0 || vt == nil || h.TypeID != vt.id {
			return v, false
		}
		return *(*T)(h.Payload), true
	}
	s, b, ours, err := g.objAt(fr.Thread(), i+1, &a)
	if !ours || err != nil || b.typ != typ {
		return v, false
	}
	v, ok = g.objs.Val(s).(T)
	return v, ok
}

// retMeta returns r, a value of typ, as the call's one result: a new
// ByVal copy, or the object (its cached userdata when Lua holds it).
func retMeta[T any](g *Gate, fr cgo.Frame, typ reflect.Type, r T, name string) int32 {
	if typ.Kind() == reflect.Pointer {
		return g.retPtr(fr, *(*unsafe.Pointer)(unsafe.Pointer(&r)), typ, name)
	}
	vt, err := g.valTypeFor(typ)
	if err != nil {
		return g.raiseText("result #1 of '"+name+"': "+err.Error(), err)
	}
	g.S.ProgReset()
	g.S.PutByVal(vt.id, vt.mtref, unsafe.Pointer(&r), int(typ.Size()), 0, 0)
	return g.commitReturn()
}
