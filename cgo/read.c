/* read.c: reads Go may do directly. None allocates, calls a metamethod or
 * raises; callers guarantee the stack slots they push into. */
#include "zlua.h"

const char *zlua_tostr(lua_State *L, int idx, size_t *len)
{
	if (lua_type(L, idx) != LUA_TSTRING)
		return NULL;
	return lua_tolstring(L, idx, len); /* a string: read in place */
}

lua_Number zlua_tonum(lua_State *L, int idx, int *ok)
{
	int isnum = 0;
	lua_Number n;
#ifdef ZLUA_LUAJIT
	isnum = lua_isnumber(L, idx);
	n = isnum ? lua_tonumber(L, idx) : 0;
#else
	n = lua_tonumberx(L, idx, &isnum);
#endif
	*ok = isnum;
	return n;
}

lua_Integer zlua_toint_conv(lua_State *L, int idx, int *ok)
{
#ifndef ZLUA_LUAJIT
	return lua_tointegerx(L, idx, ok);
#else
	(void)L;
	(void)idx;
	*ok = 0; /* numbers are doubles: the float conversion is exact */
	return 0;
#endif
}

const char *zlua_typename(zlua_env *env, lua_State *L, int idx)
{
	const char *name = NULL;
	idx = lua_absindex_compat(L, idx);
	if (lua_getmetatable(L, idx)) { /* [+1] */
		lua_rawgeti(L, LUA_REGISTRYINDEX, env->name_ref); /* anchored key */
		lua_rawget(L, -2);
		if (lua_type(L, -1) == LUA_TSTRING)
			name = lua_tostring(L, -1); /* kept alive by the metatable */
		lua_pop(L, 1);
#ifdef ZLUA_LUAJIT
		/* LuaJIT's io metatable has no __name: recognise it by identity so
		 * file handles read "FILE*" on both backends. */
		if (name == NULL && env->filemt_ref != LUA_NOREF) {
			lua_rawgeti(L, LUA_REGISTRYINDEX, env->filemt_ref);
			lua_rawget(L, LUA_REGISTRYINDEX);
			if (lua_rawequal(L, -1, -2))
				name = "FILE*";
			lua_pop(L, 1);
		}
#endif
		lua_pop(L, 1);
	}
	return name != NULL ? name : lua_typename(L, lua_type(L, idx));
}

int zlua_ownmt_at(zlua_env *env, lua_State *L, int mt, const zlua_udheader *h)
{
	const void **hit = &env->own_mt[(h->type_id * 4u + h->kind) & (ZLUA_OWN_CACHE - 1)];
	const void *p = lua_topointer(L, mt);
	int ours;
	if (p == *hit)
		return 1;
	mt = lua_absindex_compat(L, mt);
	lua_pushlightuserdata(L, (void *)&zlua_marker);
	lua_rawget(L, mt);
	ours = lua_touserdata(L, -1) == (void *)env;
	lua_pop(L, 1);
	/* The env's own metatables are anchored for its life, so their
	 * addresses stay theirs. A script can also pass this test with a table
	 * it built (debug.getmetatable shows the marker key and its value) and
	 * get that table cached; the entry then admits nothing the lookup
	 * would not. What proves a zlua userdata is its header, which only
	 * zlua writes: callers check magic, kind and length besides. */
	if (ours)
		*hit = p;
	return ours;
}

int zlua_ownmt(zlua_env *env, lua_State *L, int idx, const zlua_udheader *h)
{
	int ours;
	if (!lua_getmetatable(L, idx)) /* [+1] */
		return 0;
	ours = zlua_ownmt_at(env, L, -1, h);
	lua_pop(L, 1);
	return ours;
}

zlua_udheader *zlua_toown(zlua_env *env, lua_State *L, int idx)
{
	if (lua_type(L, idx) != LUA_TUSERDATA)
		return NULL;
	return zlua_toown_ud(env, L, idx);
}

zlua_udheader *zlua_toown_ud(zlua_env *env, lua_State *L, int idx)
{
	zlua_udheader *h = (zlua_udheader *)lua_touserdata(L, idx);
	const void **hit = zlua_proven_at(env->proven_ud, ZLUA_PROVEN_UD_BITS, h);
	size_t len;
	if (*hit == (const void *)h)
		return h; /* proven before, and nothing changed since (zlua_unprove) */
	len = zlua_rawlen(L, idx);
	if (len < sizeof *h)
		return NULL;
	if (!(len == sizeof(ZLuaObjectUserData) && zlua_ownaddr(env, (ZLuaObjectUserData *)h)) &&
	    (h->magic != ZLUA_MAGIC || !zlua_ownmt(env, L, idx, h)))
		return NULL;
	/* ours, by its address or its metatable */
	if (len == sizeof(ZLuaObjectUserData) && env->ud_block != 0)
		*hit = h;
	return h;
}
