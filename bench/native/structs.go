package native

// Native C rows of the Structs group: a C struct in a userdata whose
// fields a C __index/__newindex serve (what zlua's blittable ByVal
// userdata are measured against), a record with a string field, and a
// light userdata passed to a Lua function that hands it to C.

/*
#include <stdlib.h>
#include <string.h>
#include <lua.h>
#include <lauxlib.h>

// NVec3 is the C twin of the benchmark's Go Vec3.
typedef struct { double x, y, z; } NVec3;

// nvec_field returns the address of field k of v, or NULL.
static double *nvec_field(NVec3 *v, const char *k)
{
	if (k[0] == 0 || k[1] != 0)
		return NULL;
	switch (k[0]) {
	case 'x': return &v->x;
	case 'y': return &v->y;
	case 'z': return &v->z;
	}
	return NULL;
}

// nvec_index: the hand-written __index of a C struct userdata.
static int nvec_index(lua_State *L)
{
	NVec3 *v = (NVec3 *)luaL_checkudata(L, 1, "NVec3");
	double *f = nvec_field(v, luaL_checkstring(L, 2));
	if (f == NULL)
		return luaL_error(L, "NVec3 has no field '%s'", lua_tostring(L, 2));
	lua_pushnumber(L, *f);
	return 1;
}

// nvec_newindex: the matching __newindex.
static int nvec_newindex(lua_State *L)
{
	NVec3 *v = (NVec3 *)luaL_checkudata(L, 1, "NVec3");
	double *f = nvec_field(v, luaL_checkstring(L, 2));
	if (f == NULL)
		return luaL_error(L, "NVec3 has no field '%s'", lua_tostring(L, 2));
	*f = luaL_checknumber(L, 3);
	return 0;
}

// nvec_set makes global v a new NVec3 userdata (the push row).
static void nvec_set(lua_State *L, double x, double y, double z)
{
	NVec3 *v = (NVec3 *)lua_newuserdata(L, sizeof *v);
	v->x = x;
	v->y = y;
	v->z = z;
	luaL_getmetatable(L, "NVec3");
	lua_setmetatable(L, -2);
	lua_setglobal(L, "v");
}

// NRec: a record whose string field __index returns.
typedef struct { char name[16]; long long n; } NRec;

static int nrec_index(lua_State *L)
{
	NRec *r = (NRec *)luaL_checkudata(L, 1, "NRec");
	const char *k = luaL_checkstring(L, 2);
	if (strcmp(k, "name") == 0)
		lua_pushstring(L, r->name);
	else if (strcmp(k, "n") == 0)
		lua_pushinteger(L, r->n);
	else
		return luaL_error(L, "NRec has no field '%s'", k);
	return 1;
}

// nvec_getx: getx(h) reads x through a light userdata pointer.
static int nvec_getx(lua_State *L)
{
	NVec3 *v = (NVec3 *)lua_touserdata(L, 1);
	if (v == NULL)
		return luaL_error(L, "bad handle");
	lua_pushnumber(L, v->x);
	return 1;
}

// floor_getx: getx(h) as the opaque row's cgo floor has it: nvec_getx's
// check, x read by a Go function through one bare cgo callback
// (benchFloorGetx, floor.go) and nothing else.
extern double benchFloorGetx(void *p);
static int floor_getx(lua_State *L)
{
	NVec3 *v = (NVec3 *)lua_touserdata(L, 1);
	if (v == NULL)
		return luaL_error(L, "bad handle");
	lua_pushnumber(L, benchFloorGetx(v));
	return 1;
}

// structs_use_floor makes global getx the cgo floor's (called from Go
// after structs_open, before any script runs). [-0, +0]
static void structs_use_floor(lua_State *L)
{
	lua_pushcfunction(L, floor_getx);
	lua_setglobal(L, "getx");
}

static void structs_open(lua_State *L)
{
	NRec *r;
	luaL_newmetatable(L, "NVec3");
	lua_pushcfunction(L, nvec_index);
	lua_setfield(L, -2, "__index");
	lua_pushcfunction(L, nvec_newindex);
	lua_setfield(L, -2, "__newindex");
	lua_pop(L, 1);
	luaL_newmetatable(L, "NRec");
	lua_pushcfunction(L, nrec_index);
	lua_setfield(L, -2, "__index");
	lua_pop(L, 1);
	nvec_set(L, 1, 2, 3);
	r = (NRec *)lua_newuserdata(L, sizeof *r);
	memset(r, 0, sizeof *r);
	strcpy(r->name, "ann");
	luaL_getmetatable(L, "NRec");
	lua_setmetatable(L, -2);
	lua_setglobal(L, "r");
	lua_pushcfunction(L, nvec_getx);
	lua_setglobal(L, "getx");
}

// nvec_opaque calls the function at ref with p as a light userdata and
// reads its number result (the opaque round-trip row). The result comes
// back by value, as native_call2's does: the Go caller passes no pointer.
typedef struct {
	double v;
	int st;
} nvec_dres;

static nvec_dres nvec_opaque(lua_State *L, int ref, NVec3 *p)
{
	nvec_dres r = {0, 0};
	lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
	lua_pushlightuserdata(L, p);
	r.st = lua_pcall(L, 1, 1, 0);
	if (r.st == LUA_OK)
		r.v = lua_tonumber(L, -1);
	lua_pop(L, 1);
	return r;
}
*/
import "C"

import (
	"errors"
	"unsafe"
)

// OpenStructs registers the Structs rows' C types in s: global v (an
// NVec3 userdata {1, 2, 3} with C __index/__newindex), r (an NRec with
// name "ann") and getx(h) (x of the NVec3 a light userdata points to).
func (s *State) OpenStructs() { C.structs_open(s.L) }

// UseOpaqueFloor replaces global getx by the opaque row's cgo floor: the
// same C check, x read in Go through one cgo callback with nothing around
// it (no recovery, no ownership or handle checks). Call it after
// OpenStructs, before running Lua, from the goroutine that runs it.
func (s *State) UseOpaqueFloor() { C.structs_use_floor(s.L) }

// SetVec makes global v a new NVec3 userdata: one cgo call.
func (s *State) SetVec(x, y, z float64) {
	C.nvec_set(s.L, C.double(x), C.double(y), C.double(z))
}

// Vec is an NVec3 in C memory, for the opaque row.
type Vec struct{ p *C.NVec3 }

// NewVec allocates an NVec3 in C memory; Free releases it.
func NewVec(x float64) Vec {
	p := (*C.NVec3)(C.calloc(1, C.sizeof_NVec3))
	p.x = C.double(x)
	return Vec{p}
}

// Free releases v.
func (v Vec) Free() { C.free(unsafe.Pointer(v.p)) }

// CallOpaque calls the function at ref with v as a light userdata and
// returns its number result: one cgo call, no allocation.
func (s *State) CallOpaque(ref int, v Vec) (float64, error) {
	r := C.nvec_opaque(s.L, C.int(ref), v.p)
	if r.st != 0 {
		return 0, errors.New("native: call failed")
	}
	return float64(r.v), nil
}
