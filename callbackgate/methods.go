package callbackgate

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/zlua-go/zlua/cgo"
	"github.com/zlua-go/zlua/objreg"
)

// method is one Go method callable from Lua as obj:Name(...): its plan is
// computed once per binding.
type method struct {
	b    *binding
	name string
	fn   reflect.Value // method expression: the receiver is argument 0
	ctx  int           // 1 when a context.Context comes first (not in in)
	in   []reflect.Type
	out  []reflect.Type
	call callFunc
}

func newMethod(b *binding, m reflect.Method) *method {
	ft := m.Type
	mt := &method{b: b, name: m.Name, fn: m.Func, ctx: ctxParams(ft, 1)}
	for i := 1 + mt.ctx; i < ft.NumIn(); i++ {
		mt.in = append(mt.in, ft.In(i))
	}
	for i := 0; i < ft.NumOut(); i++ {
		mt.out = append(mt.out, ft.Out(i))
	}
	// Fast shapes need a one-word receiver whose method code takes it in
	// the first integer register: a pointer. A context parameter takes
	// the reflective call (ctxparam.go).
	if b.typ.Kind() == reflect.Pointer && !ft.IsVariadic() && mt.ctx == 0 {
		if mk := methodShapes[shapeOf(ft, 1)]; mk != nil {
			mt.call = mk(mt, funcCode(m.Func.Interface()))
			return mt
		}
	}
	mt.call = reflectMethod(mt, ft)
	return mt
}

// funcCode returns the func value word of fn (a func held in an any):
// calling it through a func type with the same register assignment runs
// fn without reflection.
func funcCode(fn any) unsafe.Pointer {
	return (*[2]unsafe.Pointer)(unsafe.Pointer(&fn))[1]
}

// as reinterprets a func value word as the func type F. F must have the
// same parameter and result layout as the function (see shapeOf).
func as[F any](code unsafe.Pointer) F { return *(*F)(unsafe.Pointer(&code)) }

// shapeOf spells the signature of ft from parameter skip on as one letter
// per parameter, ':' and one per result: i (int, int64 and named types of
// them), f (float64), s (string), b (bool), p (pointer, results only), e
// (error, last result only). Signatures with other types have no shape.
func shapeOf(ft reflect.Type, skip int) string {
	if ft.IsVariadic() {
		return "?"
	}
	var b []byte
	for i := skip; i < ft.NumIn(); i++ {
		b = append(b, kindLetter(ft.In(i), false))
	}
	b = append(b, ':')
	for i := 0; i < ft.NumOut(); i++ {
		b = append(b, kindLetter(ft.Out(i), true))
	}
	return string(b)
}

func kindLetter(t reflect.Type, result bool) byte {
	switch t.Kind() {
	case reflect.Int, reflect.Int64:
		return 'i'
	case reflect.Float64:
		return 'f'
	case reflect.String:
		return 's'
	case reflect.Bool:
		return 'b'
	case reflect.Pointer:
		if result && !isHandle(t) { // handles are pushed as their Lua values
			return 'p'
		}
	case reflect.Interface:
		if result && t == errorType {
			return 'e'
		}
	}
	return '?'
}

// popThis resolves the receiver (argument 1) of a call of m: a live ByObj
// userdata of m's type.
func (g *Gate) popThis(fr cgo.Frame, b *binding, name string) (*objreg.Slot, int32) {
	if slot, gen, typeID, ok := fr.Self(); ok && typeID == b.id {
		if s := g.objs.Get(slot, gen); s != nil {
			return s, 0
		}
	}
	return g.popThisSlow(fr, b, name)
}

// popThisSlow is popThis for anything but a live receiver of the binding
// itself: other views of the type, released objects, errors.
func (g *Gate) popThisSlow(fr cgo.Frame, b *binding, name string) (*objreg.Slot, int32) {
	a := arg(fr, 0)
	h, ours, checked := a.Own()
	if !checked && a.Type == int32(cgo.TUserdata) {
		h, ours = g.S.ObjAt(fr.Thread(), 1)
	}
	if ours && h.Kind == cgo.KindByObj {
		if h.Released {
			return nil, g.raiseText(errReleased.Error(), nil)
		}
		s := g.objs.Get(h.Slot, h.Gen)
		if s == nil {
			return nil, g.raiseText(errReleased.Error(), nil)
		}
		if h.TypeID == b.id || g.bindByID[h.TypeID].typ == b.typ {
			return s, 0
		}
	}
	got, want := g.typeName(fr.Thread(), 1, &a), b.name
	if ours && h.Kind == cgo.KindByObj && !h.Released {
		gb := g.bindByID[h.TypeID]
		want, got = distinctNames(b.typ, gb.typ, b.name, gb.name)
	}
	if ours && h.Kind == cgo.KindByVal && got == b.name {
		// a copy of the struct (the same name): a method of the pointer
		// type needs the object
		got += " value (a copy has no Go address)"
	}
	return nil, g.raiseText(fmt.Sprintf("calling '%s' on bad self (%s expected, got %s)", name, want, got), nil)
}

type methodMaker func(m *method, code unsafe.Pointer) callFunc

// methodShapes serve common method signatures by calling the method code
// directly: no reflect.Value.Call, no allocation. The closures are
// generated (shapes_gen.go) from the signature list in
// internal/shapegen; add a signature there and run go generate.
var methodShapes map[string]methodMaker

//go:generate go run ./internal/shapegen/gen

func init() { methodShapes = makeMethodShapes() }

// reflectMethod serves any other method signature through
// reflect.Value.Call; argument numbers do not count the receiver.
func reflectMethod(m *method, ft reflect.Type) callFunc {
	fixed := len(m.in)
	var elem reflect.Type
	if ft.IsVariadic() {
		fixed--
		elem = m.in[fixed].Elem()
	}
	return func(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
		s, st := g.popThis(fr, m.b, e.name)
		if s == nil {
			return st
		}
		n := fr.NArgs() - 1
		count := fixed
		if elem != nil && n > fixed {
			count = n
		}
		first := 1 + m.ctx // the receiver, the context
		args := make([]reflect.Value, count+first)
		args[0] = reflect.ValueOf(g.objs.Val(s))
		if m.ctx == 1 {
			args[1] = ctxValue(g.callCtx())
		}
		g.ConvScope() // the arguments share one budget (convbudget.go)
		for i := 0; i < count; i++ {
			typ := elem
			if i < fixed {
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
}
