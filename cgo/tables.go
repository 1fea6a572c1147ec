package cgo

/*
#include "zlua.h"

// zlua_nextpair walks a table for Go with one crossing per pair (decoding
// a table into a struct otherwise costs four: next, gettop and two reads).
// first: it pushes nil, the first key [-0, +1]; else the stack ends in
// [key, value] and it drops the value [-1, +0]. Then lua_next: for a next
// pair it reads key and value into kv[0], kv[1], leaves them on the stack
// and returns the value's index; at the end it returns 0 with both slots
// gone. [go-safe]: lua_next with nil or a key it returned and
// zlua_read_arg neither allocate nor raise; it needs two free slots.
static int zlua_nextpair(lua_State *L, int idx, zlua_arg *kv, int first)
{
	if (first)
		lua_pushnil(L);
	else
		lua_pop(L, 1);
	if (!lua_next(L, idx))
		return 0;
	zlua_read_arg(NULL, L, -2, &kv[0]);
	zlua_read_arg(NULL, L, -1, &kv[1]);
	return lua_gettop(L);
}
#cgo noescape zlua_nextpair
#cgo nocallback zlua_nextpair
*/
import "C"

import "unsafe"

// NextPair walks the table at absolute index idx: the first call (first
// true) starts the traversal, each call returns the next pair read into kv
// with key and value left on the stack, and the value's index (the key is
// below it); 0 at the end, with both slots gone. Stopping early, the
// caller pops the two slots. [go-safe]; it needs two free slots.
func (t Thread) NextPair(idx int, kv *[2]Arg, first bool) int {
	f := C.int(0)
	if first {
		f = 1
	}
	return int(C.zlua_nextpair(t.p, C.int(idx), (*C.zlua_arg)(unsafe.Pointer(&kv[0])), f))
}
