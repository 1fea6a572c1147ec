package callbackgate

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/zlua-go/zlua/cgo"
)

// The zlua package declares Function, Table, LuaError and PanicError as
// its own types, so that go doc documents their methods and fields there,
// with exactly the memory layout of the gate's types (a struct whose one
// field is the gate's type, or the same fields at the same offsets). It
// registers them at init with RegisterPublic. The gate then hands out
// values of the public types, which are the gate's values seen through the
// public type (the same allocation: no copy, no wrapper), and recognises
// them wherever it converts Go values.

// PublicTypes names the public pointer types of the gate's handle and
// error types.
type PublicTypes struct {
	Function, Table, LuaError, PanicError reflect.Type
	Thread                                reflect.Type
	// Values is the public multiple-results type: a slice of any whose
	// elements a Go function's result of that type returns one by one.
	Values reflect.Type
}

// Values is the gate's own multiple-results type (see PublicTypes).
type Values []any

var (
	luaErrorType   = reflect.TypeFor[*LuaError]()
	panicErrorType = reflect.TypeFor[*PanicError]()

	// pub holds the registered public types; until then, the gate's own.
	pub = PublicTypes{functionType, tableType, luaErrorType, panicErrorType, threadType, reflect.TypeFor[Values]()}

	// handleElems identify the handle struct types, the gate's and the
	// public ones, for isHandle: each read of a struct argument asks.
	handleElems = handleElemsOf(pub)
	// handlePtrs identify the handle pointer types, for pushHandle and
	// handlePtr to turn every other type away without a comparison of
	// interfaces each.
	handlePtrs = handlePtrsOf(pub)
)

// handlePtrsOf lists the identities of the handle pointer types of p and
// of the gate.
func handlePtrsOf(p PublicTypes) [6]unsafe.Pointer {
	return [6]unsafe.Pointer{typeID(functionType), typeID(tableType), typeID(threadType),
		typeID(p.Function), typeID(p.Table), typeID(p.Thread)}
}

// isHandlePtr reports whether t is a handle pointer type (*Function,
// *Table, *Thread, the gate's or the public).
func isHandlePtr(t reflect.Type) bool {
	id := typeID(t)
	for _, h := range &handlePtrs {
		if id == h {
			return true
		}
	}
	return false
}

// handleElemsOf lists the identities (typeID) of the handle struct types
// of p and of the gate.
func handleElemsOf(p PublicTypes) [6]unsafe.Pointer {
	return [6]unsafe.Pointer{typeID(functionType.Elem()), typeID(tableType.Elem()), typeID(threadType.Elem()),
		typeID(p.Function.Elem()), typeID(p.Table.Elem()), typeID(p.Thread.Elem())}
}

// typeID is the address of t's type descriptor: two reflect.Types are
// equal exactly when their IDs are (every reflect.Type holds a
// *reflect.rtype), and comparing IDs takes no call.
func typeID(t reflect.Type) unsafe.Pointer {
	return (*[2]unsafe.Pointer)(unsafe.Pointer(&t))[1]
}

// RegisterPublic makes the gate produce and accept p's types. Each must be
// a pointer to a struct laid out as the gate's type; it panics otherwise.
// Call it once, from an init function.
func RegisterPublic(p PublicTypes) {
	for _, c := range [...]struct{ got, want reflect.Type }{
		{p.Function, functionType}, {p.Table, tableType},
		{p.LuaError, luaErrorType}, {p.PanicError, panicErrorType},
		{p.Thread, threadType},
	} {
		if c.got == nil || c.got.Kind() != reflect.Pointer || !sameLayout(c.got.Elem(), c.want.Elem()) {
			panic(fmt.Sprintf("zlua: public type %v is not laid out as %v", c.got, c.want))
		}
	}
	if v := p.Values; v == nil || v.Kind() != reflect.Slice || v.Elem() != reflect.TypeFor[any]() {
		panic(fmt.Sprintf("zlua: public multiple-results type %v is not a slice of any", p.Values))
	}
	pub = p
	handleElems = handleElemsOf(p)
	handlePtrs = handlePtrsOf(p)
}

// sameLayout reports whether a value of type p can be read as one of type
// g: the same type, a struct whose only field is g, or structs with fields
// of identical types at identical offsets.
func sameLayout(p, g reflect.Type) bool {
	if p == g {
		return true
	}
	if p.Kind() != reflect.Struct || g.Kind() != reflect.Struct || p.Size() != g.Size() || p.Align() != g.Align() {
		return false
	}
	if p.NumField() == 1 && p.Field(0).Type == g {
		return true
	}
	if p.NumField() != g.NumField() {
		return false
	}
	for i := range p.NumField() {
		fp, fg := p.Field(i), g.Field(i)
		if fp.Offset != fg.Offset || fp.Type != fg.Type {
			return false
		}
	}
	return true
}

// asPublic returns the gate value at p as a value of the public pointer
// type typ (the same pointer).
func asPublic(typ reflect.Type, p unsafe.Pointer) reflect.Value {
	return reflect.NewAt(typ.Elem(), p)
}

// pubFunction returns f as the public *Function.
func pubFunction(f *Function) any {
	if pub.Function == functionType {
		return f
	}
	return asPublic(pub.Function, unsafe.Pointer(f)).Interface()
}

// pubTable returns tb as the public *Table.
func pubTable(tb *Table) any {
	if pub.Table == tableType {
		return tb
	}
	return asPublic(pub.Table, unsafe.Pointer(tb)).Interface()
}

// pubThread returns th as the public *Thread.
func pubThread(th *Thread) any {
	if pub.Thread == threadType {
		return th
	}
	return asPublic(pub.Thread, unsafe.Pointer(th)).Interface()
}

// pubLuaError returns le as the public *LuaError.
func pubLuaError(le *LuaError) error {
	if pub.LuaError == luaErrorType {
		return le
	}
	return asPublic(pub.LuaError, unsafe.Pointer(le)).Interface().(error)
}

// pubPanicError returns pe as the public *PanicError.
func pubPanicError(pe *PanicError) error {
	if pub.PanicError == panicErrorType {
		return pe
	}
	return asPublic(pub.PanicError, unsafe.Pointer(pe)).Interface().(error)
}

// asLuaError returns the gate's view of err when err is a *LuaError (the
// gate's or the public type).
func asLuaError(err error) (*LuaError, bool) {
	if le, ok := err.(*LuaError); ok {
		return le, true
	}
	if reflect.TypeOf(err) == pub.LuaError {
		return (*LuaError)(reflect.ValueOf(err).UnsafePointer()), true
	}
	return nil, false
}

// findLuaError returns the first *LuaError in err's tree, as errors.As
// would.
func findLuaError(err error) *LuaError {
	for err != nil {
		if le, ok := asLuaError(err); ok {
			return le
		}
		switch x := err.(type) {
		case interface{ Unwrap() error }:
			err = x.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range x.Unwrap() {
				if le := findLuaError(e); le != nil {
					return le
				}
			}
			return nil
		default:
			return nil
		}
	}
	return nil
}

// isHandle reports whether t is a handle type, a pointer to one or a
// public one: values Lua must only ever see as the Lua values they hold.
func isHandle(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	id := typeID(t)
	for _, h := range &handleElems {
		if id == h {
			return true
		}
	}
	return false
}

// pushHandle appends the Lua value held by v when v is a handle pointer
// (the gate's or the public type): the function or table itself, never a
// userdata with the handle's methods. A handle of another Env, or of a
// reset or closed one, is refused.
func (g *Gate) pushHandle(v reflect.Value) (handled bool, err error) {
	typ := v.Type()
	if !isHandlePtr(typ) {
		if typ == yieldType {
			return true, errYieldAsValue
		}
		return false, nil
	}
	switch typ {
	case functionType, pub.Function:
		if v.IsNil() {
			g.S.PutNil()
			return true, nil
		}
		return true, (*Function)(v.UnsafePointer()).push(g)
	case tableType, pub.Table:
		if v.IsNil() {
			g.S.PutNil()
			return true, nil
		}
		return true, (*Table)(v.UnsafePointer()).put(g, "table")
	case threadType, pub.Thread:
		if v.IsNil() {
			g.S.PutNil()
			return true, nil
		}
		return true, (*Thread)(v.UnsafePointer()).put(g)
	}
	return false, nil
}

// readHandle converts the Lua value at idx into v when v's type is a
// handle pointer: a function into a *Function, a table into a *Table (the
// handle made for the same object lately if it is still cached and
// unreleased, argcache.go, else a new one), a thread into a new *Thread
// (nil into nil). ok is false for other types.
func (g *Gate) readHandle(t cgo.Thread, idx int, a *cgo.Arg, v reflect.Value) (ok bool, err error) {
	typ := v.Type()
	p, ok, err := g.handlePtr(t, idx, a, typ)
	if !ok || err != nil {
		return ok, err
	}
	if p == nil {
		v.SetZero()
		return true, nil
	}
	v.Set(asPublic(typ, p))
	return true, nil
}

// handlePtr is readHandle's conversion: the handle (of the gate's type,
// laid out as the public one) for the value at idx when typ is a handle
// pointer, nil for nil; ok is false for other types.
func (g *Gate) handlePtr(t cgo.Thread, idx int, a *cgo.Arg, typ reflect.Type) (p unsafe.Pointer, ok bool, err error) {
	if !isHandlePtr(typ) {
		return nil, false, nil
	}
	want, name := cgo.TFunction, "function"
	switch typ {
	case functionType, pub.Function:
	case tableType, pub.Table:
		want, name = cgo.TTable, "table"
	case threadType, pub.Thread:
		want, name = cgo.TThread, "thread"
	default:
		return nil, false, nil
	}
	switch {
	case a.Type == int32(cgo.TNil) || a.Type == int32(cgo.TNone):
		return nil, true, nil
	case a.Type != int32(want) && (want != cgo.TFunction || !g.callableArg(t, idx, a)):
		return nil, true, typeError(name, g.typeName(t, idx, a))
	}
	switch want {
	case cgo.TFunction:
		f := g.args.function(g, a)
		if f == nil {
			if a.ID() == 0 { // no identity to cache it by
				if f, err = g.NewFunction(t, idx, "function"); err != nil {
					return nil, true, err
				}
				return unsafe.Pointer(f), true, nil
			}
			ref, err := g.refValue(t, idx)
			if err != nil {
				return nil, true, err
			}
			f = sharedFunction(g, g.args.putRef(g, a, ref, false))
		}
		return unsafe.Pointer(f), true, nil
	case cgo.TTable:
		tb := g.args.table(g, a)
		if tb == nil {
			if a.ID() == 0 {
				if tb, err = g.NewTableRef(t, idx); err != nil {
					return nil, true, err
				}
				return unsafe.Pointer(tb), true, nil
			}
			ref, err := g.refValue(t, idx)
			if err != nil {
				return nil, true, err
			}
			tb = &Table{}
			shareRef(&tb.luaRef, g, g.args.putRef(g, a, ref, true))
		}
		return unsafe.Pointer(tb), true, nil
	}
	th, err := g.NewThreadRef(t, idx)
	if err != nil {
		return nil, true, err
	}
	return unsafe.Pointer(th), true, nil
}

// callableArg reports whether the value at idx (described by a) can go
// where Go wants a function: a function, or a table or userdata whose
// metatable has __call, which Lua calls as it calls functions (a class
// instance registered as a handler). Table.Method binds the same values.
func (g *Gate) callableArg(t cgo.Thread, idx int, a *cgo.Arg) bool {
	switch a.Type {
	case int32(cgo.TFunction):
		return true
	case int32(cgo.TTable), int32(cgo.TUserdata):
		return g.S.Reserve(t, 3) && t.Callable(idx)
	}
	return false
}

// CallableAt is callableArg for the value at idx of t.
func (g *Gate) CallableAt(t cgo.Thread, idx int) bool {
	a := t.Arg(idx)
	return g.callableArg(t, idx, &a)
}

// handlePushError refuses a handle type where only a Lua value could go:
// a handle struct by value (its copy would share the ref), or a handle
// pointer as an object or an opaque handle.
func handlePushError(t reflect.Type) error {
	return fmt.Errorf("%w: %v (a handle crosses to Lua only as its Lua value, through a pointer)", ErrCannotPush, t)
}
