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
