/* tables.c: operations on Lua values Go holds (zlua.Table), run inside the
 * protected dispatcher (protect.c). */
#include "zlua.h"

void zlua_pushlen(lua_State *L, int idx)
{
#ifdef ZLUA_LUAJIT
	lua_Number n;
	idx = lua_absindex_compat(L, idx);
	if (luaL_callmeta(L, idx, "__len")) {
		/* Lua 5.4's luaL_len: the result must be an integer (a numeric
		 * string converts). */
		n = lua_tonumber(L, -1);
		if (!lua_isnumber(L, -1) || !(n >= -9.2233720368547758e18 && n < 9.2233720368547758e18) ||
		    n != (lua_Number)(int64_t)n)
			luaL_error(L, "object length is not an integer");
		lua_pop(L, 1);
		lua_pushnumber(L, n);
		return;
	}
	lua_pushnumber(L, (lua_Number)lua_objlen(L, idx));
#else
	lua_pushinteger(L, luaL_len(L, idx));
#endif
}

void zlua_pairs(lua_State *L)
{
	int t = lua_gettop(L);
	int n = 0;
	luaL_checktype(L, t, LUA_TTABLE);
	lua_newtable(L);
	lua_pushnil(L);
	while (lua_next(L, t)) { /* [t, copy, k, v] */
		lua_pushvalue(L, -2);
		lua_rawseti(L, t + 1, ++n); /* copy[n] = k */
		lua_rawseti(L, t + 1, ++n); /* copy[n] = v, pops v */
	}
	lua_replace(L, t);
}

int zlua_callable(lua_State *L, int idx)
{
	if (lua_type(L, idx) == LUA_TFUNCTION)
		return 1;
	if (luaL_getmetafield(L, idx, "__call") == 0) /* LUA_TNIL on 5.4 */
		return 0;
	lua_pop(L, 1);
	return 1;
}

int zlua_raw_op(lua_State *L, int opcode)
{
	int obj = opcode == ZLUA_DO_RAWNEWINDEX ? -3 : opcode == ZLUA_DO_RAWLEN || opcode == ZLUA_DO_GETMETA ? -1 : -2;
	if (lua_type(L, obj) != LUA_TTABLE)
		return luaL_error(L, "table expected, got %s", luaL_typename(L, obj));
	switch (opcode) {
	case ZLUA_DO_RAWINDEX:
		lua_rawget(L, -2);
		return 1;
	case ZLUA_DO_RAWNEWINDEX:
		lua_rawset(L, -3);
		return 0;
	case ZLUA_DO_RAWLEN:
		lua_pushinteger(L, (lua_Integer)zlua_rawlen(L, -1));
		return 1;
	case ZLUA_DO_GETMETA:
		if (!lua_getmetatable(L, -1))
			lua_pushnil(L);
		return 1;
	default: /* ZLUA_DO_SETMETA */
		if (!lua_istable(L, -1) && !lua_isnil(L, -1))
			return luaL_error(L, "metatable must be a table or nil");
		lua_setmetatable(L, -2);
		return 0;
	}
}

void zlua_keep_package(lua_State *L, zlua_env *env)
{
#ifdef ZLUA_LUAJIT
	/* LuaJIT's preload searcher reads the preload field of the package
	 * table it was opened with (its environment), whatever the global
	 * package is later */
	lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");
	if (lua_type(L, -1) == LUA_TTABLE) {
		lua_getfield(L, -1, "package");
		if (lua_type(L, -1) == LUA_TTABLE && env->package_ref == LUA_NOREF) {
			env->package_ref = luaL_ref(L, LUA_REGISTRYINDEX);
			lua_pop(L, 1);
			return;
		}
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
#else
	(void)L;
	(void)env; /* Lua 5.4's reads the registry's _PRELOAD */
#endif
}

void zlua_preload_table(lua_State *L, zlua_env *env)
{
	/* raw reads: a script's metamethods on the registry or the package
	 * table do not run in this host call (probe A3-F4) */
#ifdef ZLUA_LUAJIT
	if (env->package_ref == LUA_NOREF) {
		lua_pushnil(L);
		return;
	}
	lua_rawgeti(L, LUA_REGISTRYINDEX, env->package_ref);
	lua_pushliteral(L, "preload");
	lua_rawget(L, -2);
	lua_remove(L, -2);
#else
	(void)env;
	lua_pushliteral(L, LUA_PRELOAD_TABLE);
	lua_rawget(L, LUA_REGISTRYINDEX);
#endif
	if (lua_type(L, -1) != LUA_TTABLE) {
		lua_pop(L, 1);
		lua_pushnil(L);
	}
}
