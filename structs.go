package zlua

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/zlua-go/zlua/callbackgate"
)

// Opaque wraps p, a pointer to a struct, for a Go→Lua call (a *Function
// call, a typed func from GetFunction or a Lua callback, DoStringArgs):
// Lua receives a light userdata handle instead of the struct, valid only
// until that call returns, whether it succeeds, fails or a Go function
// inside it panics. During the call, zlua.get_opaquevalue(h) returns a
// by-value copy of *p, zlua.set_opaquevalue(h, v) stores the by-value v
// into *p, and h passed to a Go function whose parameter is *T (p's type)
// arrives as p itself. Afterwards every use of h is the Lua error
// "invalid opaque parameter handle" (SetGlobal and Table.Set refuse to
// store one for that reason). A nil p is pushed as nil; a pointer
// to anything but a struct makes the call fail with ErrCannotPush.
//
// The result is one pointer word: passed as an any (a func(any) float64
// from GetFunction, say) it allocates nothing, and such a typed func with
// one argument passes the handle to Lua in a single cgo call. A Go
// function whose first parameter is *T (func(p *T) float64, say; the
// signatures served without reflection are those of fast methods, see
// docs/ARCHITECTURE.md) is called without reflection or allocation when
// given a handle of *T or a Lua-held *T object: reading fields
// through a Go getter is the cheapest way for Lua to use the struct,
// cheaper than get_opaquevalue's copy, which allocates a userdata in Lua.
func Opaque[T any](p *T) any { return opaqueArg[T]{p} }

// opaqueArg is the value Opaque returns.
type opaqueArg[T any] struct{ p *T }

// OpaqueTarget returns the lent pointer and its type.
func (o opaqueArg[T]) OpaqueTarget() (unsafe.Pointer, reflect.Type) {
	return unsafe.Pointer(o.p), reflect.TypeFor[*T]()
}

var _ callbackgate.OpaqueArg = opaqueArg[struct{}]{}

// errOpaqueStored refuses an Opaque value where Lua would keep it: its
// handle dies with the call it was made for, so stored it could only ever
// be "invalid opaque parameter handle".
var errOpaqueStored = fmt.Errorf("%w: an Opaque handle lives for one call: pass it as an argument of a call into Lua, do not store it", ErrCannotPush)

// isOpaque reports whether v is an Opaque value.
func isOpaque(v any) bool {
	_, ok := v.(callbackgate.OpaqueArg)
	return ok
}
