// Package native holds the "native C" rows of zlua's benchmarks: the same
// operations written directly against the Lua C API, the limit zlua is
// measured against. It is benchmark support, not part of the library.
package native

/*
#cgo !luajit pkg-config: lua5.4
#cgo luajit pkg-config: luajit
#cgo luajit CFLAGS: -DZLUA_LUAJIT
#include <stdlib.h>
#include <string.h>
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

// add: the C function a script calls in the Lua->Go call row.
static int native_add(lua_State *L)
{
	lua_Integer a = luaL_checkinteger(L, 1), b = luaL_checkinteger(L, 2);
	lua_pushinteger(L, a + b);
	return 1;
}

// floor_add: add(a, b) as the cgo floor row has it: the same argument
// checks as native_add, the sum computed by a Go function through one cgo
// callback (benchFloorAdd, floor.go) and nothing else: what any binding
// that runs Go code for a Lua call pays at least.
extern long long benchFloorAdd(long long a, long long b);
static int floor_add(lua_State *L)
{
	lua_Integer a = luaL_checkinteger(L, 1), b = luaL_checkinteger(L, 2);
	lua_pushinteger(L, (lua_Integer)benchFloorAdd((long long)a, (long long)b));
	return 1;
}

// native_use_floor makes global add the cgo floor's function (called from
// Go before any script runs; setting a global of a fresh state cannot
// fail short of memory). [-0, +0]
static void native_use_floor(lua_State *L)
{
	lua_pushcfunction(L, floor_add);
	lua_setglobal(L, "add");
}

// Counter is the C userdata of the object rows: 24 bytes, like zlua's
// ByObj userdata payload.
typedef struct { long long n, pad1, pad2; } Counter;

// counter_gc: a no-op __gc, so native objects pay for finalization as
// zlua's do.
static int counter_gc(lua_State *L) { (void)L; return 0; }

// counter_add: the native method of the method-call row, c:Add(x).
static int counter_add(lua_State *L)
{
	Counter *c = (Counter *)luaL_checkudata(L, 1, "Counter");
	c->n += luaL_checkinteger(L, 2);
	lua_pushinteger(L, c->n);
	return 1;
}

// new_counter pushes a new Counter userdata with its metatable.
static void new_counter(lua_State *L)
{
	Counter *c = (Counter *)lua_newuserdata(L, sizeof *c);
	memset(c, 0, sizeof *c);
	luaL_getmetatable(L, "Counter");
	lua_setmetatable(L, -2);
}

// native_mk: returns a new Counter each call (new push row).
static int native_mk(lua_State *L)
{
	new_counter(L);
	return 1;
}

// native_one: returns 1 (the baseline of the cached push row).
static int native_one(lua_State *L)
{
	lua_pushinteger(L, 1);
	return 1;
}

// native_get: returns the same Counter each call (cached push row); the
// object is upvalue 1.
static int native_get(lua_State *L)
{
	lua_pushvalue(L, lua_upvalueindex(1));
	return 1;
}

// fail: the C function that raises in the pcall-of-an-erroring-function row.
static int native_fail(lua_State *L)
{
	return luaL_error(L, "entity not found");
}

static lua_State *native_open(void)
{
	lua_State *L = luaL_newstate();
	if (L == NULL)
		return NULL;
	luaL_openlibs(L);
	lua_pushcfunction(L, native_add);
	lua_setglobal(L, "add");
	luaL_newmetatable(L, "Counter");
	lua_pushcfunction(L, counter_gc);
	lua_setfield(L, -2, "__gc");
	lua_newtable(L);
	lua_pushcfunction(L, counter_add);
	lua_setfield(L, -2, "Add");
	lua_setfield(L, -2, "__index");
	lua_pop(L, 1);
	lua_pushcfunction(L, native_mk);
	lua_setglobal(L, "mk");
	lua_pushcfunction(L, native_one);
	lua_setglobal(L, "one");
	new_counter(L);
	lua_pushvalue(L, -1);
	lua_setglobal(L, "obj");
	lua_pushcclosure(L, native_get, 1);
	lua_setglobal(L, "get");
	lua_pushcfunction(L, native_fail);
	lua_setglobal(L, "fail");
	return L;
}

// native_run runs chunk under lua_pcall; 0 on success.
static int native_run(lua_State *L, const char *chunk)
{
	int st = luaL_loadstring(L, chunk);
	if (st == LUA_OK)
		st = lua_pcall(L, 0, 0, 0);
	if (st != LUA_OK)
		lua_pop(L, 1);
	return st;
}

// native_number reads global name as a number (0 if not a number).
static lua_Number native_number(lua_State *L, const char *name)
{
	lua_Number n;
	lua_getglobal(L, name);
	n = lua_tonumber(L, -1);
	lua_pop(L, 1);
	return n;
}

// native_ref stores the global name in the registry and returns the ref.
static int native_ref(lua_State *L, const char *name)
{
	lua_getglobal(L, name);
	return luaL_ref(L, LUA_REGISTRYINDEX);
}

// native_ires is an integer result and the lua_pcall status, returned by
// value so that the Go caller passes no pointer (a pointer to a Go
// variable would escape to the heap: one allocation per call that a C
// program does not make).
typedef struct {
	lua_Integer v;
	int st;
} native_ires;

// native_call2 is the raw lua_pcall path of a Go->Lua call: fetch the
// function by ref, push two integers, call, read one integer result.
static native_ires native_call2(lua_State *L, int ref, lua_Integer a, lua_Integer b)
{
	native_ires r = {0, 0};
	lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
	lua_pushinteger(L, a);
	lua_pushinteger(L, b);
	r.st = lua_pcall(L, 2, 1, 0);
	if (r.st == LUA_OK)
		r.v = lua_tointeger(L, -1);
	lua_pop(L, 1);
	return r;
}

// native_refs makes n registry refs to the global name (untimed setup).
static int *native_refs(lua_State *L, const char *name, int n)
{
	int *refs = (int *)malloc(sizeof(int) * (size_t)n), i;
	if (refs == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		lua_getglobal(L, name);
		refs[i] = luaL_ref(L, LUA_REGISTRYINDEX);
	}
	return refs;
}

// native_unrefs releases them: the C limit of draining n pending refs.
static void native_unrefs(lua_State *L, int *refs, int n)
{
	int i;
	for (i = 0; i < n; i++)
		luaL_unref(L, LUA_REGISTRYINDEX, refs[i]);
	free(refs);
}
*/
import "C"

import (
	"errors"
	"unsafe"
)

// State is a plain lua_State with the native functions registered.
type State struct{ L *C.lua_State }

// Open creates a native state with the standard libraries, add(a, b), and
// the object rows' C userdata: mk() (a new Counter), get() (always the
// same Counter, also global obj), the method Counter:Add(x), and one()
// (returns 1).
func Open() (*State, error) {
	L := C.native_open()
	if L == nil {
		return nil, errors.New("native: cannot create state")
	}
	return &State{L}, nil
}

// UseCgoFloor replaces global add by the cgo floor's: the same C checks,
// the sum computed in Go through one cgo callback with nothing around it
// (no recovery, no ownership or lifetime checks). Call it before running
// Lua, from the goroutine that runs it.
func (s *State) UseCgoFloor() { C.native_use_floor(s.L) }

// Close closes the state.
func (s *State) Close() { C.lua_close(s.L) }

// Ref keeps the global name in the registry and returns the ref.
func (s *State) Ref(name string) int {
	c := C.CString(name)
	defer C.free(unsafe.Pointer(c))
	return int(C.native_ref(s.L, c))
}

// Call2 calls the function at ref with two integers through lua_pcall and
// returns its integer result: one cgo call per Lua call, no allocation.
func (s *State) Call2(ref int, a, b int64) (int64, error) {
	r := C.native_call2(s.L, C.int(ref), C.lua_Integer(a), C.lua_Integer(b))
	if r.st != 0 {
		return 0, errors.New("native: call failed")
	}
	return int64(r.v), nil
}

// Refs is a batch of registry refs made in C.
type Refs struct {
	p *C.int
	n int
}

// MakeRefs makes n refs to the global name.
func (s *State) MakeRefs(name string, n int) (Refs, error) {
	c := C.CString(name)
	defer C.free(unsafe.Pointer(c))
	p := C.native_refs(s.L, c, C.int(n))
	if p == nil {
		return Refs{}, errors.New("native: out of memory")
	}
	return Refs{p, n}, nil
}

// Unref releases every ref of r (one cgo call).
func (s *State) Unref(r Refs) { C.native_unrefs(s.L, r.p, C.int(r.n)) }

// DoString runs chunk; it reports whether it succeeded.
func (s *State) DoString(chunk string) error {
	c := C.CString(chunk)
	defer C.free(unsafe.Pointer(c))
	if C.native_run(s.L, c) != 0 {
		return errors.New("native: chunk failed")
	}
	return nil
}

// Number reads the global name as a number.
func (s *State) Number(name string) (float64, error) {
	c := C.CString(name)
	defer C.free(unsafe.Pointer(c))
	return float64(C.native_number(s.L, c)), nil
}
