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
