/* objects.c: the C half of the ObjectRegistry. ByObj userdata hold a slot
 * index and generation; the Go object lives in Go's slot table. Creation
 * runs in push programs, release in a pure-C __gc that only queues. */
#include "zlua.h"

/* [go-safe] Queues slot for Go; never raises (a lost slot is counted).
 * Also called by zlua_alloc (ownaddr.c) for a userdata freed without its
 * __gc. */
void zlua_obj_queue_slot(zlua_env *env, uint32_t slot)
{
	/* the slot's charge goes with its last userdata (also from the
	 * allocator's free hook: plain arithmetic, nothing of Lua) */
	if (slot < env->objcharge_cap && env->objcharge[slot] != 0) {
		__atomic_store_n(&env->ext_used, env->ext_used - env->objcharge[slot], __ATOMIC_RELAXED);
		env->objcharge[slot] = 0;
	}
	if (env->objfreed_len == env->objfreed_cap) {
		size_t cap = env->objfreed_cap ? env->objfreed_cap * 2 : 1024;
		uint32_t *q = (uint32_t *)realloc(env->objfreed, cap * sizeof *q);
		if (q == NULL) {
			env->objfreed_lost++;
			return;
		}
		env->objfreed = q;
		env->objfreed_cap = cap;
	}
	env->objfreed[env->objfreed_len++] = slot;
	env->queued = 1;
}

/* [go-safe] Looks slot up in the weak identity cache. Returns 1 with the
 * cached userdata pushed when the entry is a live ByObj userdata of
 * generation gen [-0, +1]; 0 with the cache pushed on a miss, for the
 * caller's new entry [-0, +1]; -1 with nothing pushed when the registry
 * entry is no longer a table [-0, +0]. A script with debug.getregistry can
 * replace the cache or put any value in it, so the entry's length, magic
 * and kind are checked before its fields are read (the length of a light
 * userdata is 0). Allocates nothing and raises nothing. With tidy 0 a
 * hit leaves the cache below the userdata [-0, +2]: for a C function's
 * one result, which Lua takes from the top (zlua_obj_push_top). */
static ZLUA_HOT int cache_find(lua_State *L, zlua_env *env, uint32_t slot, uint32_t gen, int tidy)
{
	ZLuaObjectUserData *u;
	if (zlua_rawgeti_type(L, LUA_REGISTRYINDEX, env->cache_ref) != LUA_TTABLE) {
		lua_pop(L, 1);
		return -1;
	}
	lua_rawgeti(L, -1, (lua_Integer)slot); /* [+1] ud or nil */
	u = (ZLuaObjectUserData *)lua_touserdata(L, -1);
	/* The entry proved by its address (ownaddr.c: slot_ud[slot] names only
	 * the live, unreleased keyed userdata zlua made for slot) needs no
	 * length or header check; anything else is checked in full. */
	if (u != NULL && slot < env->objcnt_cap && env->slot_ud[slot] == (const void *)u) {
		if (u->gen != gen)
			goto miss;
		/* Proved ours by its address: enter it in the proven-address
		 * cache, as read_self would at its first use, so the calls and
		 * comparisons a script makes on the object it just received
		 * (the frame's other ~= e, other:Damage) find it there. */
		zlua_prove(env, u);
		if (tidy)
			lua_replace(L, -2); /* hit: the cached userdata in the cache's place */
		return 1;
	}
	if (u != NULL && zlua_rawlen(L, -1) >= sizeof *u && u->header.magic == ZLUA_MAGIC &&
	    u->header.kind == ZLUA_KIND_BYOBJ && u->slot == slot && u->gen == gen &&
	    !(u->header.flags & ZLUA_F_RELEASED)) {
		if (tidy)
			lua_replace(L, -2); /* hit: the cached userdata in the cache's place */
		return 1;
	}
miss:
	lua_pop(L, 1); /* miss: the cache stays */
	return 0;
}

int zlua_obj_cached(lua_State *L, zlua_env *env, uint32_t slot, uint32_t gen)
{
	int r = cache_find(L, env, slot, gen, 1);
	if (r == 0)
		lua_pop(L, 1); /* the cache */
	return r == 1;
}

int zlua_obj_push_held(lua_State *L, zlua_env *env, const zlua_arg *a)
{
	uint32_t slot = (uint32_t)a->v.i, gen = (uint32_t)((uint64_t)a->v.i >> 32);
	int r = cache_find(L, env, slot, gen, 1);
	if (r != 1) {
		if (r == 0)
			lua_pop(L, 1); /* the cache */
		return 0;
	}
	if (a->len != 0) {
		/* cache_find proved it the live ByObj userdata of slot */
		ZLuaObjectUserData *u = (ZLuaObjectUserData *)lua_touserdata(L, -1);
		if (u->ptr == 0)
			u->ptr = (uint64_t)a->len;
	}
	return 1;
}

/* [lua] A userdata pushed without identity (no cache entry: another
 * userdata may stand for the same object) needs the shared __eq in its
 * metatable at -1, which on Lua 5.4 the metatables of plain bindings go
 * without (callbackgate's needsEq); a metatable that has an __eq, zlua's
 * or a user's, keeps it. [-0, +0] */
static __attribute__((noinline, cold)) void eq_for_unkeyed(lua_State *L, zlua_env *env)
{
#ifndef ZLUA_LUAJIT
	if (env->eq_ref == LUA_NOREF || lua_type(L, -1) != LUA_TTABLE)
		return;
	luaL_checkstack(L, 2, "zlua: too many values");
	lua_pushliteral(L, "__eq");
	if (zlua_rawget_type(L, -2) != LUA_TNIL) {
		lua_pop(L, 1);
		return;
	}
	lua_pop(L, 1);
	lua_pushliteral(L, "__eq");
	lua_rawgeti(L, LUA_REGISTRYINDEX, env->eq_ref);
	lua_rawset(L, -3);
#else
	(void)L;
	(void)env; /* every object metatable has it */
#endif
}

/* zlua_obj_push; with tidy 0, zlua_obj_push_top. */
static inline __attribute__((always_inline)) void obj_push(lua_State *L, zlua_env *env, uint32_t slot, uint32_t gen, uint32_t type_id,
		     int mtref, int cached, int tidy)
{
	ZLuaObjectUserData *u;
	if (cached == ZLUA_OBJ_NEWKEY) {
		/* a new slot generation: nothing to find, only the cache for the
		 * new entry (an entry left by a released userdata of the slot's
		 * previous generation, one whose __gc a script called by hand, is
		 * replaced) */
		if (zlua_rawgeti_type(L, LUA_REGISTRYINDEX, env->cache_ref) != LUA_TTABLE) {
			lua_pop(L, 1);
			cached = ZLUA_OBJ_UNCACHED;
		}
	} else if (cached) {
		/* a miss leaves the cache on the stack for the new entry (one
		 * registry lookup per push instead of two); with no cache (a
		 * script replaced it) the object has no identity */
		int r = cache_find(L, env, slot, gen, tidy);
		if (r == 1)
			return;
		if (r < 0)
			cached = ZLUA_OBJ_UNCACHED;
	}
	/* the allocations below may run finalizers, and Go through them:
	 * the slot must stay Go's until its userdata exists (cgo State.Pushing) */
	env->prog_active++;
	u = (ZLuaObjectUserData *)zlua_newuserdata(L, sizeof *u);
	memset(u, 0, sizeof *u);
	u->header.magic = ZLUA_MAGIC;
	u->header.kind = ZLUA_KIND_BYOBJ;
	u->header.type_id = type_id;
	u->slot = slot;
	u->gen = gen;
	if (cached)
		u->header.flags |= ZLUA_F_KEYED; /* the only live one of its key */
	zlua_push_regtable(L, mtref);
	if (!cached)
		eq_for_unkeyed(L, env);
	lua_setmetatable(L, -2);
	env->objcnt[slot]++; /* from here on this userdata's __gc owns a count */
	/* Ownership by address (read.c): the keyed userdata of its slot, or
	 * the first of an unkeyed slot (a slice view, or any object once a
	 * script replaced the cache: a later copy of the same slot stays on
	 * the metatable check). The entry also lets zlua_alloc give back the
	 * count of a userdata freed without its __gc (ownaddr.c). */
	if (env->ud_block != 0 && (cached || env->slot_ud[slot] == NULL)) {
		env->slot_ud[slot] = u;
		zlua_prove(env, u); /* as cache_find's hit */
	}
	if (cached) {
		lua_pushvalue(L, -1);
		lua_rawseti(L, -3, (lua_Integer)slot);
		if (tidy)
			lua_replace(L, -2); /* the userdata in the cache's place */
	}
	env->prog_active--;
}

void zlua_obj_push(lua_State *L, zlua_env *env, uint32_t slot, uint32_t gen,
		   uint32_t type_id, int mtref, int cached)
{
	obj_push(L, env, slot, gen, type_id, mtref, cached, 1);
}

ZLUA_HOT void zlua_obj_push_top(lua_State *L, zlua_env *env, uint32_t slot, uint32_t gen,
				uint32_t type_id, int mtref, int cached)
{
	obj_push(L, env, slot, gen, type_id, mtref, cached, 0);
}

int zlua_obj_gc(lua_State *L)
{
	ZLuaObjectUserData *u;
	zlua_env *env = zlua_envof(L);
	size_t len;
	/* debug.getmetatable lets a script call this __gc on any value, and
	 * debug.setmetatable give a userdata a forged metatable: act only on a
	 * live ByObj userdata whose metatable names this env. The checks are
	 * zlua_toown's, with the length read once: the userdata proved by its
	 * address (the common case: the collector finalizing what zlua made)
	 * needs neither header nor metatable check. */
	if (env == NULL || lua_type(L, 1) != LUA_TUSERDATA || (len = zlua_rawlen(L, 1)) < sizeof *u)
		return 0;
	u = (ZLuaObjectUserData *)lua_touserdata(L, 1);
	if (!(len == sizeof *u && zlua_ownaddr(env, u)) &&
	    (u->header.magic != ZLUA_MAGIC || u->header.kind != ZLUA_KIND_BYOBJ ||
	     !zlua_ownmt(env, L, 1, &u->header)))
		return 0;
	if (u->header.flags & ZLUA_F_RELEASED)
		return 0;
	u->header.flags |= ZLUA_F_RELEASED;
	zlua_obj_forget(env, u); /* released: off the address fast path */
	/* Invariant 3 needs no cache work here: both backends clear weak
	 * values that refer to objects about to be finalized before any
	 * finalizer runs (Lua 5.4's atomic phase clears them ahead of
	 * separatetobefnz; LuaJIT marks separated userdata finalized and its
	 * clearweak drops finalized userdata from weak values), so the entry
	 * of this slot is nil or a newer userdata, never this one. Where an
	 * entry can still name a released userdata (lua_close, which clears
	 * nothing and frees the cache too; a __gc a script calls by hand),
	 * cache_find refuses it by its released flag. */
	if (u->slot < env->objcnt_cap && env->objcnt[u->slot] > 0 &&
	    --env->objcnt[u->slot] == 0)
		zlua_obj_queue_slot(env, u->slot);
	return 0;
}

ZLUA_HOT int zlua_obj_index(lua_State *L)
{
	lua_settop(L, 2);
	if (lua_type(L, lua_upvalueindex(1)) == LUA_TTABLE) { /* unless a script replaced it */
		lua_pushvalue(L, 2);
		lua_rawget(L, lua_upvalueindex(1));
		if (!lua_isnil(L, -1))
			return 1; /* a method: no Go call */
		lua_pop(L, 1);
	}
	lua_pushvalue(L, lua_upvalueindex(2));
	lua_insert(L, 1);
	lua_call(L, 2, 1);
	return 1;
}


void zlua_obj_indexer(lua_State *L, zlua_env *env)
{
#ifdef ZLUA_LUAJIT
	lua_rawgeti(L, LUA_REGISTRYINDEX, env->indexer_ref);
	lua_insert(L, -3);
	lua_call(L, 2, 1);
#else
	(void)env;
	lua_pushcclosure(L, zlua_obj_index, 2);
#endif
}

void zlua_obj_newmt(lua_State *L, zlua_env *env)
{
	zlua_new_metatable(L, env, lua_tostring(L, -1));
	lua_pushcfunction(L, zlua_obj_gc);
	lua_setfield(L, -2, "__gc");
	lua_remove(L, -2); /* the name */
}

void zlua_obj_init(lua_State *L, zlua_env *env)
{
#ifndef ZLUA_LUAJIT
	/* Lua 5.4's default pause (200) lets finalizable userdata held in a
	 * weak table pile up geometrically across cycles (10^6 pushes peaked
	 * at 580k live objects); 150 keeps the peak in the hundreds. Scripts
	 * may still change it with collectgarbage("setpause"). */
	lua_gc(L, LUA_GCINC, ZLUA_GC_PAUSE, 0, 0);
#endif
	lua_createtable(L, 0, 0);
	lua_createtable(L, 0, 1);
	lua_pushliteral(L, "v");
	lua_setfield(L, -2, "__mode");
	lua_setmetatable(L, -2);
	env->cache_ref = luaL_ref(L, LUA_REGISTRYINDEX);
	zlua_ownaddr_init(L, env);
#ifdef ZLUA_LUAJIT
	zlua_jit_init(L, env); /* the __index factory (jitindex.c) */
#endif
	zlua_open_iterators(L);
}

int zlua_objcnt_reserve(zlua_env *env, size_t n)
{
	size_t cap = env->objcnt_cap ? env->objcnt_cap : 1024;
	uint32_t *p;
	const void **a;
	if (n < env->objcnt_cap)
		return 1;
	while (cap <= n)
		cap *= 2;
	/* slot_ud first: objcnt_cap bounds both, so it grows only after both
	 * arrays have */
	a = (const void **)realloc(env->slot_ud, cap * sizeof *a);
	if (a == NULL)
		return 0;
	memset(a + env->objcnt_cap, 0, (cap - env->objcnt_cap) * sizeof *a);
	env->slot_ud = a;
	p = (uint32_t *)realloc(env->objcnt, cap * sizeof *p);
	if (p == NULL)
		return 0;
	memset(p + env->objcnt_cap, 0, (cap - env->objcnt_cap) * sizeof *p);
	env->objcnt = p;
	env->objcnt_cap = cap;
	return 1;
}

size_t zlua_obj_setptr(lua_State *L, const unsigned char *p)
{
	uint32_t slot;
	uint64_t ptr;
	ZLuaObjectUserData *u = (ZLuaObjectUserData *)lua_touserdata(L, -1);
	memcpy(&slot, p, sizeof slot);
	memcpy(&ptr, p + 4, sizeof ptr);
	if (u != NULL && zlua_rawlen(L, -1) == sizeof *u && u->header.magic == ZLUA_MAGIC &&
	    u->header.kind == ZLUA_KIND_BYOBJ && !(u->header.flags & ZLUA_F_RELEASED) && u->slot == slot &&
	    u->ptr == 0)
		u->ptr = ptr;
	return 12;
}

size_t zlua_obj_charge(lua_State *L, zlua_env *env, const unsigned char *p)
{
	uint32_t slot;
	uint64_t c;
	memcpy(&slot, p, sizeof slot);
	memcpy(&c, p + 4, sizeof c);
	if (!env->charging || c == 0 || slot >= env->objcnt_cap || env->objcnt[slot] == 0)
		return 12;
	if (slot >= env->objcharge_cap) {
		size_t cap = env->objcnt_cap;
		size_t *q = (size_t *)realloc(env->objcharge, cap * sizeof *q);
		if (q == NULL)
			luaL_error(L, "not enough memory");
		memset(q + env->objcharge_cap, 0, (cap - env->objcharge_cap) * sizeof *q);
		env->objcharge = q;
		env->objcharge_cap = cap;
	}
	if (env->objcharge[slot] != 0)
		return 12; /* charged by an earlier push of the same object */
	zlua_charge_room(L, env, (size_t)c);
	/* the userdata is on the stack: the collection cannot have taken it */
	if (env->objcnt[slot] != 0 && env->objcharge[slot] == 0)
		zlua_charge_add(L, env, &env->objcharge[slot], (int64_t)c);
	return 12;
}
