// Package cgo is zlua's only binding to the Lua C API: the C shim (zlua.h
// and its .c files), the userdata layouts, the gate trampoline, the
// protected operations and the push-program interpreter.
//
// # Rules
//
// Go code here never calls a Lua API function that may raise: reads are
// allocation-free and metamethod-free, pushes that allocate are written as a
// push program that C runs where raising is safe, and everything else runs
// under lua_pcall inside C (see [State.Run]). No Go pointer is stored in C
// memory: userdata hold integers, and Go reaches its own objects through
// ids.
//
// The backend is Lua 5.4 by default and LuaJIT 2.1 with the build tag
// luajit; [Backend] names it.
package cgo
