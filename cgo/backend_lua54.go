//go:build !luajit

package cgo

// #cgo pkg-config: lua5.4
// #cgo CFLAGS: -fno-plt
// #include "zlua.h"
import "C"

// Backend names the Lua implementation this build links: "Lua 5.4.x".
const Backend = C.LUA_RELEASE

// HasIntegers reports whether Lua numbers have an integer subtype.
const HasIntegers = true

// EqEitherOperand reports whether == on two userdata takes the __eq of
// either operand (Lua 5.4) rather than only one both operands share
// (LuaJIT).
const EqEitherOperand = true

// OwnAllocator reports whether a closed state gives back its allocator's
// arena: always on Lua 5.4, whose states allocate with malloc through
// zlua's allocator (LuaJIT: see its backend file).
func OwnAllocator() bool { return true }
