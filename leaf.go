package zlua

import (
	"reflect"

	"github.com/zlua-go/zlua/callbackgate"
)

// Leaf declares methods of T (a pointer type, e.g. *Entity) as leaf
// methods: each promises that, while it runs, it never calls into the Env
// that called it (no Lua call, no Env, Table, Function or Thread method of
// that Env). On LuaJIT a leaf method is called from compiled Lua code
// through the FFI, without leaving the trace: a hot method costs about a
// field access instead of a trampoline crossing (see ARCHITECTURE, "Leaf
// methods"). On Lua 5.4 it keeps the trampoline.
//
// The promise is checked on both backends: while a leaf method runs, any
// use of its Env returns an error wrapping ErrLeafCall ("zlua:
// Entity.Move is declared leaf and cannot call into its Env"), and the
// method's call then raises that error in Lua whatever the method did
// with it; returning zlua.Yield from it raises an error too. Other Envs,
// Post and Stats stay usable.
//
// A leaf method takes at most 4 parameters, each an integer, float or
// bool type, and returns at most 2 such results or one pointer (an
// object, pushed as any pointer result is), and optionally an error last.
// On LuaJIT a pointer result whose userdata Lua still holds comes back
// from the identity cache inside the compiled code; a new object is
// pushed after the FFI call, as the trampoline would.
// Leaf returns an error naming the method, declaring nothing, when one
// is missing or has another signature, and when it is not yet declared
// but an Env has already bound T (pushed a T: its methods tables are
// made): declare leaf methods before T is first used, e.g. in init.
// Declaring a method again is harmless. Arguments, errors, panics and
// results are those of the same method undeclared.
func Leaf[T any](methods ...string) error {
	return callbackgate.DeclareLeaf(reflect.TypeFor[T](), methods)
}

// ErrLeafCall is wrapped by the error a leaf method gets when it calls
// into its Env, and by the Lua error its call then raises (see Leaf).
var ErrLeafCall = callbackgate.ErrLeafCall
