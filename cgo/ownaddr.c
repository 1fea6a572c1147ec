/* ownaddr.c: ownership by address. A ByObj userdata that zlua created as
 * the keyed (cached) userdata of its slot is recognised by its address,
 * kept in env->slot_ud[slot], instead of by looking its metatable up: two
 * API calls (touserdata, rawlen) and two loads instead of five API calls.
 * The entry is exact, not a hint: it holds p only while p is such a
 * userdata whose memory is allocated, whose metatable is still the one
 * zlua gave it and which its __gc has not released. Every way out of that
 * state clears it first:
 *   - __gc (zlua_obj_gc) forgets the userdata it releases;
 *   - debug.setmetatable, the one way a script changes a userdata's
 *     metatable, is replaced by zlua_dbg_setmetatable, which forgets first;
 *   - a userdata freed without its __gc (its metatable was swapped before
 *     it died) is forgotten by zlua_alloc before the block is freed, so an
 *     address is never matched after its block can be reused.
 * A header copied to another address (a host userdata with script-chosen
 * bytes) never matches: the entry of its slot names the real address. A
 * miss proves nothing; callers then decide by the metatable, as before.
 * See docs/ARCHITECTURE.md, "Ownership by address". */
#include "zlua.h"

void zlua_obj_forget(zlua_env *env, const void *p)
{
	const ZLuaObjectUserData *u = (const ZLuaObjectUserData *)p;
	zlua_unprove(env, p); /* released or another metatable: not proven */
	if (u->slot < env->objcnt_cap && env->slot_ud[u->slot] == p)
		env->slot_ud[u->slot] = NULL;
}

void zlua_obj_freed(zlua_env *env, const void *p)
{
	const ZLuaObjectUserData *u = (const ZLuaObjectUserData *)p;
	/* Any block of this size (a ByObj or ByVal userdata, a function
	 * sentinel, or anything else Lua frees with that size) leaves the
	 * proven-address caches before it can be reused. */
	zlua_unprove(env, p);
	if (u->slot >= env->objcnt_cap || env->slot_ud[u->slot] != p)
		return; /* not a proved userdata: any block of the same size */
	env->slot_ud[u->slot] = NULL;
	/* Proved and still in the table: zlua's userdata with zlua's
	 * metatable, whose __gc (which forgets first) never ran. Lua frees an
	 * object without its finalizer when the finalizer's call fails (out
	 * of memory before it is entered: Lua 5.4 warns and moves on, LuaJIT
	 * raises into whatever stepped the collector); the count it owned is
	 * given back here, or its slot would stay live until Close. */
	if (!(u->header.flags & ZLUA_F_RELEASED) && env->objcnt[u->slot] > 0 &&
	    --env->objcnt[u->slot] == 0)
		zlua_obj_queue_slot(env, u->slot);
}

void zlua_ownaddr_init(lua_State *L, zlua_env *env)
{
	int running = lua_gc(L, LUA_GCISRUNNING, 0);
	unsigned char *u;
	size_t off, block;
	/* The collector is stopped so that the first block allocated is the
	 * probe userdata's (LuaJIT may run a GC step before allocating it). */
	lua_gc(L, LUA_GCSTOP, 0);
	env->probe_block = NULL;
	env->probing = 1;
	u = (unsigned char *)zlua_newuserdata(L, sizeof(ZLuaObjectUserData));
	env->probing = 0;
	memset(u, 0, sizeof(ZLuaObjectUserData)); /* slot 0, never registered */
	lua_pop(L, 1);
	if (running)
		lua_gc(L, LUA_GCRESTART, 0);
	if (env->probe_block == NULL || u <= (unsigned char *)env->probe_block)
		return;
	off = (size_t)(u - (unsigned char *)env->probe_block);
	if (off > 256)
		return; /* not a userdata header: leave the fast path off */
	block = off + sizeof(ZLuaObjectUserData);
	/* Confirmed, not assumed: the probe is garbage now, and a full
	 * collection must free exactly that block with exactly that size
	 * (zlua_alloc reports the free). Anything else leaves the fast path
	 * off. */
	env->probe_size = 0;
	env->probing = 2;
	lua_gc(L, LUA_GCCOLLECT, 0);
	env->probing = 0;
	env->probe_block = NULL;
	if (env->probe_size != block)
		return;
	env->ud_off = off;
	env->ud_block = block;
}

/* [lua] debug.setmetatable(v, mt) as the stock library defines it (Lua
 * 5.4 returns v, LuaJIT true; mt must be nil or a table), which first
 * takes a ByObj userdata off the address fast path: its new metatable
 * decides from now on, as zlua_ownmt does. Nothing is kept in an upvalue
 * (a script could fetch and call a stock function from there). */
static int dbg_setmetatable(lua_State *L)
{
	zlua_env *env = zlua_envof(L);
	int t = lua_type(L, 2);
	if (t != LUA_TNIL && t != LUA_TTABLE)
#ifdef ZLUA_LUAJIT
		return luaL_argerror(L, 2, "nil or table expected");
#else
		return luaL_typeerror(L, 2, "nil or table");
#endif
	if (env != NULL && lua_type(L, 1) == LUA_TUSERDATA &&
	    zlua_rawlen(L, 1) == sizeof(ZLuaObjectUserData))
		zlua_obj_forget(env, lua_touserdata(L, 1));
	lua_settop(L, 2);
	lua_setmetatable(L, 1);
#ifdef ZLUA_LUAJIT
	lua_pushboolean(L, 1);
#endif
	return 1;
}

void zlua_open_dbgmeta(lua_State *L)
{
	lua_getglobal(L, "debug");
	if (lua_type(L, -1) == LUA_TTABLE) {
		lua_pushcfunction(L, dbg_setmetatable);
		lua_setfield(L, -2, "setmetatable");
	}
	lua_pop(L, 1);
}
