/* iterate.c: pairs and ipairs over zlua userdata on LuaJIT. Lua 5.4's pairs
 * honours __pairs and its ipairs indexes any value, so maps and slices
 * pushed by reference iterate there as they are. Stock LuaJIT (built
 * without LUAJIT_ENABLE_LUA52COMPAT, as the distribution's libluajit-5.1
 * is) accepts only tables in both; zlua replaces the two globals with Lua
 * functions that act as 5.4 does for userdata and call the original
 * function for every other value with the arguments as given (same results,
 * same errors, `pairs()` included). */
#include "zlua.h"

#ifdef ZLUA_LUAJIT
/* [lua] metafield(v, name): the raw field name of v's metatable, or nil;
 * ignores __metatable, which zlua's metatables set. Reachable only as an
 * upvalue of the functions below. [-0, +1] */
static int metafield(lua_State *L)
{
	if (!lua_getmetatable(L, 1)) {
		lua_pushnil(L);
		return 1;
	}
	lua_pushvalue(L, 2);
	lua_rawget(L, -2);
	return 1;
}

/* The factory of the replacements: Lua functions (a C pairs would stop
 * every trace through a loop's set-up), named like the __index closures
 * so errors raised by the element reads report the loop's position. */
static const char iterators_src[] =
	"local pairs, ipairs, type, metafield = ...\n"
	"local function inext(u, i)\n"
	"  i = i + 1\n"
	"  local v = u[i]\n"
	"  if v ~= nil then return i, v end\n"
	"end\n"
	"return function(...)\n"
	"  local t = ...\n"
	"  if type(t) == 'userdata' then\n"
	"    local h = metafield(t, '__pairs')\n"
	"    if h ~= nil then\n"
	"      local f, s, c = h(t)\n"
	"      return f, s, c\n"
	"    end\n"
	"  end\n"
	"  return pairs(...)\n"
	"end, function(...)\n"
	"  local t = ...\n"
	"  if type(t) == 'userdata' and metafield(t, '__index') ~= nil then\n"
	"    return inext, t, 0\n"
	"  end\n"
	"  return ipairs(...)\n"
	"end\n";
#endif

void zlua_open_iterators(lua_State *L)
{
#ifdef ZLUA_LUAJIT
	lua_getfield(L, LUA_GLOBALSINDEX, "pairs");
	lua_getfield(L, LUA_GLOBALSINDEX, "ipairs");
	lua_getfield(L, LUA_GLOBALSINDEX, "type");
	if (lua_type(L, -3) != LUA_TFUNCTION || lua_type(L, -2) != LUA_TFUNCTION ||
	    lua_type(L, -1) != LUA_TFUNCTION) { /* no base library */
		lua_pop(L, 3);
		return;
	}
	lua_pushcfunction(L, metafield);
	if (zlua_load_own(L, iterators_src, sizeof iterators_src - 1, ZLUA_INDEX_CHUNK) != 0)
		lua_error(L);
	lua_insert(L, -5);
	lua_call(L, 4, 2);
	lua_setfield(L, LUA_GLOBALSINDEX, "ipairs");
	lua_setfield(L, LUA_GLOBALSINDEX, "pairs");
#else
	(void)L;
#endif
}
