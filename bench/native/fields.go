package native

/*
#include <string.h>
#include <lua.h>
#include <lauxlib.h>

// The object-field row's C userdata: a Counter-sized record whose field n
// is served by __index/__newindex C functions, the way a C binding
// exposes a struct field of a userdata it owns.
typedef struct { long long n, pad1, pad2; } FieldRec;

static int rec_index(lua_State *L)
{
	FieldRec *r = (FieldRec *)luaL_checkudata(L, 1, "FieldRec");
	const char *k = luaL_checkstring(L, 2);
	if (strcmp(k, "N") == 0) {
		lua_pushinteger(L, r->n);
		return 1;
	}
	return luaL_error(L, "FieldRec has no field '%s'", k);
}

static int rec_newindex(lua_State *L)
{
	FieldRec *r = (FieldRec *)luaL_checkudata(L, 1, "FieldRec");
	const char *k = luaL_checkstring(L, 2);
	if (strcmp(k, "N") == 0) {
		r->n = luaL_checkinteger(L, 3);
		return 0;
	}
	return luaL_error(L, "FieldRec has no field '%s'", k);
}

// fields_open makes global rec, a FieldRec with field N.
static void fields_open(lua_State *L)
{
	FieldRec *r;
	luaL_newmetatable(L, "FieldRec");
	lua_pushcfunction(L, rec_index);
	lua_setfield(L, -2, "__index");
	lua_pushcfunction(L, rec_newindex);
	lua_setfield(L, -2, "__newindex");
	lua_pop(L, 1);
	r = (FieldRec *)lua_newuserdata(L, sizeof *r);
	memset(r, 0, sizeof *r);
	luaL_getmetatable(L, "FieldRec");
	lua_setmetatable(L, -2);
	lua_setglobal(L, "rec");
}
*/
import "C"

// OpenFields adds global rec, a C userdata whose integer field N is read
// and written by C __index/__newindex functions.
func (s *State) OpenFields() { C.fields_open(s.L) }
