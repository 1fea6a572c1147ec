package cgo

/*
#include "zlua.h"

// zlua_push_globals pushes the global table: a registry read (5.4) or a
// pseudo-index copy (LuaJIT), neither allocates. [-0, +1]
static void zlua_push_globals(lua_State *L) { zlua_pushglobaltable(L); }
#cgo nocallback zlua_push_globals
*/
import "C"

// Protected operations on Lua values Go holds (tables.c). The object is
// the one stack argument (nargs 1) or the program's first value.
const (
	// OpIndex leaves obj[key] (metamethods run). Program: [obj,] key.
	OpIndex = int(C.ZLUA_DO_INDEX)
	// OpNewIndex does obj[key] = value. Program: [obj,] key, value.
	OpNewIndex = int(C.ZLUA_DO_NEWINDEX)
	// OpLen leaves the length of obj as Lua 5.4's # does (__len honoured
	// on both backends). Program: [obj].
	OpLen = int(C.ZLUA_DO_LEN)
	// OpPairs leaves a new sequence {k1, v1, k2, v2, ...} of the table's
	// pairs in raw next order. Program: [obj].
	OpPairs = int(C.ZLUA_DO_PAIRS)
)

// PushGlobals pushes the global table (never raises: a registry read).
func (t Thread) PushGlobals() { C.zlua_push_globals(t.p) }
