package cgo

/*
#include "zlua.h"
#cgo noescape zlua_tostr
#cgo nocallback zlua_tostr
#cgo noescape zlua_tonum
#cgo nocallback zlua_tonum
#cgo noescape zlua_toint_conv
#cgo nocallback zlua_toint_conv
#cgo nocallback zlua_typename
#cgo nocallback zlua_site_name
#cgo nocallback zlua_toown
#cgo nocallback lua_type
#cgo nocallback lua_gettop
#cgo nocallback lua_settop
#cgo nocallback lua_next
#cgo nocallback lua_pushvalue
#cgo nocallback lua_toboolean

static int zlua_isint(lua_State *L, int idx) { return zlua_isinteger(L, idx); }
static lua_Integer zlua_toint(lua_State *L, int idx) { return lua_tointeger(L, idx); }
static lua_Number zlua_tonumber(lua_State *L, int idx) { return lua_tonumber(L, idx); }
static size_t zlua_len(lua_State *L, int idx) { return zlua_rawlen(L, idx); }
static void zlua_pushnil(lua_State *L) { lua_pushnil(L); }
static void zlua_readarg(lua_State *L, int idx, zlua_arg *a) { zlua_read_arg(NULL, L, idx, a); }
#cgo noescape zlua_readarg
#cgo nocallback zlua_readarg
static void zlua_rawgeti(lua_State *L, int idx, long long i) { lua_rawgeti(L, idx, i); }
#cgo nocallback zlua_rawgeti
static const void *zlua_topointer(lua_State *L, int idx) { return lua_topointer(L, idx); }
#cgo nocallback zlua_isint
#cgo nocallback zlua_toint
#cgo nocallback zlua_tonumber
#cgo nocallback zlua_len
#cgo nocallback zlua_pushnil
#cgo nocallback zlua_topointer
*/
import "C"

import "unsafe"

// Lua value types (LUA_T*).
const (
	TNone          = int(C.LUA_TNONE)
	TNil           = int(C.LUA_TNIL)
	TBoolean       = int(C.LUA_TBOOLEAN)
	TLightUserdata = int(C.LUA_TLIGHTUSERDATA)
	TNumber        = int(C.LUA_TNUMBER)
	TString        = int(C.LUA_TSTRING)
	TTable         = int(C.LUA_TTABLE)
	TFunction      = int(C.LUA_TFUNCTION)
	TUserdata      = int(C.LUA_TUSERDATA)
	TThread        = int(C.LUA_TTHREAD)
)

// Every method below is [go-safe]: it neither allocates nor runs Lua code,
// so it cannot raise. Pushing methods need a free slot, which the caller
// guarantees (GoStack inside gate calls, Reserve elsewhere).

// SiteName is the name the call site gives the C function running on t
// (a Go function's closure, called from Lua): a local, global, field,
// method or upvalue name, as argument errors name the function; "" when
// the call has none (pcall, an iterator, a metamethod, a tail call).
func (t Thread) SiteName() string {
	if p := C.zlua_site_name(t.p); p != nil {
		return C.GoString(p)
	}
	return ""
}

// Top returns the index of the top element.
func (t Thread) Top() int { return int(C.lua_gettop(t.p)) }

// SetTop shrinks the stack to n elements (never grows it past pushes made).
func (t Thread) SetTop(n int) { C.lua_settop(t.p, C.int(n)) }

// Pop removes n elements.
func (t Thread) Pop(n int) { C.lua_settop(t.p, C.int(-n-1)) }

// Type returns the LUA_T* type at idx.
func (t Thread) Type(idx int) int { return int(C.lua_type(t.p, C.int(idx))) }

// IsInteger reports whether the number at idx has the integer subtype.
func (t Thread) IsInteger(idx int) bool { return C.zlua_isint(t.p, C.int(idx)) != 0 }

// ToInteger returns the integer at idx (numbers with integer subtype).
func (t Thread) ToInteger(idx int) int64 { return int64(C.zlua_toint(t.p, C.int(idx))) }

// ToNumber returns the float value of the number at idx.
func (t Thread) ToNumber(idx int) float64 { return float64(C.zlua_tonumber(t.p, C.int(idx))) }

// ToNumberConv converts a number or numeric string at idx.
func (t Thread) ToNumberConv(idx int) (float64, bool) {
	var ok C.int
	n := C.zlua_tonum(t.p, C.int(idx), &ok)
	return float64(n), ok != 0
}

// ToIntegerConv converts a number or numeric string at idx to an integer
// the way luaL_checkinteger does on Lua 5.4 (an integer string exactly,
// even beyond 2^53); ok is false when it has no integer value, and always
// on LuaJIT, whose numbers are floats (convert with ToNumberConv there).
func (t Thread) ToIntegerConv(idx int) (int64, bool) {
	var ok C.int
	n := C.zlua_toint_conv(t.p, C.int(idx), &ok)
	return int64(n), ok != 0
}

// ToBool returns the truth value at idx.
func (t Thread) ToBool(idx int) bool { return C.lua_toboolean(t.p, C.int(idx)) != 0 }

// ToString copies the string at idx; ok is false for other types (numbers
// are not converted).
func (t Thread) ToString(idx int) (string, bool) {
	var n C.size_t
	p := C.zlua_tostr(t.p, C.int(idx), &n)
	if p == nil {
		return "", false
	}
	return C.GoStringN(p, C.int(n)), true
}

// ToBytes copies the string at idx into a new slice.
func (t Thread) ToBytes(idx int) ([]byte, bool) {
	var n C.size_t
	p := C.zlua_tostr(t.p, C.int(idx), &n)
	if p == nil {
		return nil, false
	}
	return C.GoBytes(unsafe.Pointer(p), C.int(n)), true
}

// Arg reads the value at idx the way the trampoline reads arguments.
func (t Thread) Arg(idx int) Arg {
	var a Arg
	C.zlua_readarg(t.p, C.int(idx), (*C.zlua_arg)(unsafe.Pointer(&a)))
	return a
}

// RawLen returns the raw length of a table or string.
func (t Thread) RawLen(idx int) int { return int(C.zlua_len(t.p, C.int(idx))) }

// RawGetI pushes t[i] of the table at idx without metamethods.
func (t Thread) RawGetI(idx int, i int64) { C.zlua_rawgeti(t.p, C.int(idx), C.longlong(i)) }

// PushRef pushes the value registry ref ref holds (nil for a free ref);
// one free stack slot needed. [-0, +1]
func (t Thread) PushRef(ref int32) {
	C.zlua_rawgeti(t.p, C.LUA_REGISTRYINDEX, C.longlong(ref))
}

// PushNil pushes nil (the first key for Next).
func (t Thread) PushNil() { C.zlua_pushnil(t.p) }

// PushValue pushes a copy of the value at idx.
func (t Thread) PushValue(idx int) { C.lua_pushvalue(t.p, C.int(idx)) }

// Next pops a key and pushes the next key and value of the table at idx;
// false at the end. The key must come from the previous Next.
func (t Thread) Next(idx int) bool { return C.lua_next(t.p, C.int(idx)) != 0 }

// Pointer returns the address identity of a table, function, userdata or
// thread at idx (for cycle detection).
func (t Thread) Pointer(idx int) uintptr { return uintptr(C.zlua_topointer(t.p, C.int(idx))) }

// TypeName spells the type at idx the way Lua error messages do: a
// userdata's string __name, else the basic type name.
func (s *State) TypeName(t Thread, idx int) string {
	return C.GoString(C.zlua_typename(s.env, t.p, C.int(idx)))
}

// Own returns the zlua kind of the userdata at idx if this state made it,
// else 0.
func (s *State) Own(t Thread, idx int) int {
	h := C.zlua_toown(s.env, t.p, C.int(idx))
	if h == nil {
		return 0
	}
	return int(h.kind)
}

// Userdata kinds (zlua_kind).
const (
	KindFunc  = int(C.ZLUA_KIND_FUNC)
	KindByObj = int(C.ZLUA_KIND_BYOBJ)
	KindByVal = int(C.ZLUA_KIND_BYVAL)
)
