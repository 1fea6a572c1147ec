package native

/*
#cgo !luajit pkg-config: lua5.4
#cgo luajit pkg-config: luajit
#cgo luajit CFLAGS: -DZLUA_LUAJIT
#include <lua.h>
#include <lauxlib.h>
#include <stdlib.h>

// native_resume: resumes the coroutine at registry ref with the integer x
// and returns the integer it yields (the Go-driven resume row), or -1 when
// it did not yield one. [-0, +0] on L
static long long native_resume(lua_State *L, int ref, long long x)
{
	lua_State *co;
	int st, nres = 0;
	long long r = -1;
	lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
	co = lua_tothread(L, -1);
	lua_pop(L, 1);
	if (co == NULL)
		return -1;
	lua_pushinteger(co, (lua_Integer)x);
#ifdef ZLUA_LUAJIT
	st = lua_resume(co, 1);
	nres = lua_gettop(co);
#else
	st = lua_resume(co, L, 1, &nres);
#endif
	if (st == LUA_YIELD && nres == 1)
		r = (long long)lua_tointeger(co, -1);
	lua_pop(co, nres);
	return r;
}

// native_newthread: a coroutine running the global function name, kept
// in the registry; returns its ref. [-0, +0]
static int native_newthread(lua_State *L, const char *name)
{
	lua_State *co = lua_newthread(L);
	lua_getglobal(L, name);
	lua_xmove(L, co, 1);
	return luaL_ref(L, LUA_REGISTRYINDEX);
}
*/
import "C"

import (
	"errors"
	"unsafe"
)

// NewThread makes a coroutine running the global function name and
// returns its registry ref.
func (s *State) NewThread(name string) int {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	return int(C.native_newthread(s.L, cs))
}

// Resume resumes the coroutine ref with x and returns the integer it
// yields.
func (s *State) Resume(ref int, x int64) (int64, error) {
	r := C.native_resume(s.L, C.int(ref), C.longlong(x))
	if r < 0 {
		return 0, errors.New("native: coroutine did not yield an integer")
	}
	return int64(r), nil
}
