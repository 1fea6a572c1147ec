//go:build luajit

package cgo

// #cgo pkg-config: luajit
// #cgo CFLAGS: -DZLUA_LUAJIT
// #cgo CFLAGS: -fno-plt
// #include "zlua.h"
import "C"

// Backend names the Lua implementation this build links: "LuaJIT 2.1...".
const Backend = C.LUAJIT_VERSION

// HasIntegers reports whether Lua numbers have an integer subtype.
const HasIntegers = false

// EqEitherOperand reports whether == on two userdata takes the __eq of
// either operand (Lua 5.4) rather than only one both operands share
// (LuaJIT).
const EqEitherOperand = false

// OwnAllocator reports whether a closed state gives back its allocator's
// arena: on a GC64 LuaJIT (found once per process) the state takes zlua's
// allocator over an arena a bare state owns and closes after it; without
// GC64 it must keep LuaJIT's own allocator, wrapped, whose arena lua_close
// then keeps (cgo/alloc.c).
func OwnAllocator() bool { return C.zlua_jit_own_allocator() != 0 }

// SpareArenas returns how many arenas of closed states wait for the next
// state to take them: a state whose heap stayed under 1 MiB leaves its
// arena's mapped pages to the next one (up to 8 per process), so a New
// after a Close does not fault them in again (cgo/alloc.c). For tests.
func SpareArenas() int { return int(C.zlua_spare_arenas()) }
