package native

/*
#include <lua.h>
#include <lauxlib.h>

// The table-decoding row's C struct: what a C binding fills from a
// config-style table argument.
typedef struct { lua_Integer damage; double x, y; const char *kind; } Hit;

// place: reads a table argument's four fields into a Hit the way C code
// does (lua_getfield and a check per field) and returns damage + x + y.
static int native_place(lua_State *L)
{
	Hit h;
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_getfield(L, 1, "damage");
	h.damage = luaL_checkinteger(L, -1);
	lua_getfield(L, 1, "x");
	h.x = luaL_checknumber(L, -1);
	lua_getfield(L, 1, "y");
	h.y = luaL_checknumber(L, -1);
	lua_getfield(L, 1, "kind");
	h.kind = luaL_checkstring(L, -1);
	lua_pop(L, 4);
	lua_pushnumber(L, (double)h.damage + h.x + h.y + (h.kind[0] != 0));
	return 1;
}

// visit: takes a table (an object the script owns, passed to a host
// API) and a count, and returns the count plus one.
static int native_visit(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_pushinteger(L, luaL_checkinteger(L, 2) + 1);
	return 1;
}

// tables_open makes globals place and visit.
static void tables_open(lua_State *L)
{
	lua_pushcfunction(L, native_place);
	lua_setglobal(L, "place");
	lua_pushcfunction(L, native_visit);
	lua_setglobal(L, "visit");
}
*/
import "C"

// OpenTables adds global place(t), a C function that reads t.damage, t.x,
// t.y and t.kind into a C struct, and visit(t, n), which checks that t is
// a table and returns n + 1.
func (s *State) OpenTables() { C.tables_open(s.L) }
