/* structs.c: the C half of the StructRegistry. A Go struct pushed by value
 * becomes a ByVal userdata: blittable structs carry a copy of their bytes,
 * whose numeric and boolean fields are read and written here, through the
 * type's field directory (fields.c), without entering Go; the others name
 * a Go companion slot released by a pure-C __gc, and their scalar fields
 * are cached in Lua once read. */
#include <limits.h>

#include "zlua.h"

/* What companions are charged between two collector steps taken for them
 * (charge). */
#define ZLUA_EXT_STEP (64 * 1024)

static uint32_t sv_u32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

/* Whether charging c more bytes keeps the heap and the charges within
 * the env's limit (always, without one). */
static int charge_fits(const zlua_env *env, size_t c)
{
	size_t used = env->mem_used + env->ext_used;
	return env->mem_limit == 0 || (c <= env->mem_limit && used <= env->mem_limit - c);
}

/* [lua] Raises Lua's memory error ("not enough memory", LUA_ERRMEM) the
 * way an allocation the limit refuses does: by asking for a userdata
 * larger than the limit. (LuaJIT refuses userdata of 2 GiB and more with
 * another message: with so high a limit the error is a plain one.) */
void zlua_raise_nomem(lua_State *L, const zlua_env *env)
{
#ifdef ZLUA_LUAJIT
	if (env->mem_limit < 0x7fff0000u)
#endif
		lua_newuserdata(L, env->mem_limit + 1);
	luaL_error(L, "not enough memory");
}

void zlua_charge_room(lua_State *L, zlua_env *env, size_t c)
{
	if (charge_fits(env, c))
		return;
	lua_gc(L, LUA_GCCOLLECT, 0);
	if (!charge_fits(env, c)) {
		env->mem_refused = 1;
		env->ext_refused = 1;
		zlua_raise_nomem(L, env);
	}
}

void zlua_charge_add(lua_State *L, zlua_env *env, size_t *slot, int64_t c)
{
	if (c < 0 && (size_t)-c > *slot)
		c = -(int64_t)*slot;
	*slot += (size_t)c;
	__atomic_store_n(&env->ext_used, env->ext_used + (size_t)c, __ATOMIC_RELAXED);
	if (c > 0)
		env->ext_debt += (size_t)c;
	if (env->ext_debt >= ZLUA_EXT_STEP && lua_gc(L, LUA_GCISRUNNING, 0)) {
		size_t kb = env->ext_debt >> 10;
		env->ext_debt = 0;
		lua_gc(L, LUA_GCSTEP, kb > INT_MAX ? INT_MAX : (int)kb);
	}
}

int zlua_store_charge(zlua_env *env, int64_t d)
{
	if (d > 0 && !charge_fits(env, (size_t)d))
		return 0;
	if (d < 0 && (size_t)-d > env->ext_used)
		d = -(int64_t)env->ext_used;
	__atomic_store_n(&env->ext_used, env->ext_used + (size_t)d, __ATOMIC_RELAXED);
	return 1;
}

size_t zlua_sv_push(lua_State *L, zlua_env *env, const unsigned char *p)
{
	uint32_t type_id = sv_u32(p), size = sv_u32(p + 8);
	uint32_t companion = sv_u32(p + 12), gen = sv_u32(p + 16);
	int mtref = (int)(int32_t)sv_u32(p + 4);
	size_t c = 0;
	ZLuaByValHeader *u;
	if (companion != 0) { /* no payload: the size word is the charge */
		c = env->charging ? size : 0;
		size = 0;
		if (c != 0)
			zlua_charge_room(L, env, c);
	}
	u = (ZLuaByValHeader *)zlua_newuserdata(L, sizeof *u + size);
	memset(u, 0, sizeof *u);
	u->header.magic = ZLUA_MAGIC;
	u->header.kind = ZLUA_KIND_BYVAL;
	u->header.type_id = type_id;
	u->size = size;
	u->companion = companion;
	u->gen = gen;
	memcpy(ZLUA_BYVAL_PAYLOAD(u), p + 20, size);
	zlua_push_regtable(L, mtref);
	lua_setmetatable(L, -2);
	if (companion != 0) {
		env->svstate[companion] = 1; /* from here on __gc owns the slot */
		env->svcharge[companion] = 0;
		if (c != 0)
			zlua_charge_add(L, env, &env->svcharge[companion], (int64_t)c);
	}
	return 20 + size;
}

void zlua_sv_noaddr(lua_State *L, zlua_env *env)
{
	zlua_udheader *h = zlua_toown(env, L, -1);
	if (h != NULL && h->kind == ZLUA_KIND_BYVAL)
		h->flags |= ZLUA_F_NOADDR;
}

size_t zlua_sv_charge(lua_State *L, zlua_env *env, const unsigned char *p)
{
	uint32_t idx = sv_u32(p);
	int64_t d;
	memcpy(&d, p + 4, sizeof d);
	/* only a slot whose userdata lives holds a charge (its __gc may have
	 * run while Go converted the value written) */
	if (idx == 0 || idx >= env->svstate_cap || env->svstate[idx] != 1)
		return 12;
	if (d > 0)
		zlua_charge_room(L, env, (size_t)d);
	if (env->svstate[idx] == 1) /* the collection may have finalized it */
		zlua_charge_add(L, env, &env->svcharge[idx], d);
	return 12;
}

void zlua_sv_newmt(lua_State *L, zlua_env *env, int gc)
{
	zlua_new_metatable(L, env, lua_tostring(L, -1));
	if (gc) {
		lua_pushcfunction(L, zlua_sv_gc);
		lua_setfield(L, -2, "__gc");
	}
	lua_remove(L, -2); /* the name */
}

void zlua_sv_indexer(lua_State *L, zlua_env *env)
{
	int mt = lua_gettop(L) - 7;
	/* a program op is only sure of 3 free slots (zlua_prog_run); this
	 * one pushes up to 10 */
	luaL_checkstack(L, 12, "zlua: too many values");
	size_t size = (size_t)lua_tointeger(L, mt + 6);
	uint32_t tid = (uint32_t)lua_tointeger(L, mt + 5);
	zlua_dir_make(L, env, ZLUA_DIR_VAL, mt + 1, tid, size, lua_tostring(L, mt + 7));
	/* Companion types (size 0) cache the scalar fields they read. */
	if (size == 0) {
		lua_createtable(L, 0, 0);
		lua_createtable(L, 0, 1);
		lua_pushliteral(L, "k");
		lua_setfield(L, -2, "__mode");
		lua_setmetatable(L, -2);
	} else {
		lua_pushnil(L);
	}
	lua_replace(L, mt + 5);
	/* __index: methods, getter, cache */
	lua_pushvalue(L, mt + 2);
	lua_pushvalue(L, mt + 3);
	lua_pushvalue(L, mt + 5);
	lua_pushcclosure(L, zlua_sv_index, 3);
	lua_setfield(L, mt, "__index");
	/* __newindex: setter, cache */
	lua_pushvalue(L, mt + 4);
	lua_pushvalue(L, mt + 5);
	lua_pushcclosure(L, zlua_sv_newindex, 2);
	lua_setfield(L, mt, "__newindex");
#ifdef ZLUA_LUAJIT
	if (size != 0) /* blittable: compiled closures in front (jitindex.c) */
		zlua_jit_valfields(L, env, mt, tid);
#endif
	lua_settop(L, mt);
}

/* [lua] The ByVal userdata at idx, if it is one (header made by zlua,
 * kind ByVal, not released); its directory in *d (NULL when its type has
 * none). The metamethods can be fetched with debug.getmetatable and called
 * on anything, hence the type and size checks before the header is read;
 * the directory comes from the env by the userdata's own type, and a
 * payload is used only when it holds that type's size. [-0, +0] */
static ZLuaByValHeader *sv_check(lua_State *L, int idx, const zlua_fielddir **d)
{
	size_t len;
	ZLuaByValHeader *u;
	*d = NULL;
	/* lua_touserdata is NULL for anything but a full or light userdata,
	 * so the length read below never meets a number (LuaJIT's objlen
	 * would convert it) and is 0 for a light userdata. */
	u = (ZLuaByValHeader *)lua_touserdata(L, idx);
	if (u == NULL)
		return NULL;
	len = zlua_rawlen(L, idx);
	if (len < sizeof *u)
		return NULL;
	if (u->header.magic != ZLUA_MAGIC || u->header.kind != ZLUA_KIND_BYVAL ||
	    (u->header.flags & ZLUA_F_RELEASED))
		return NULL;
	*d = zlua_dir(zlua_envof(L), ZLUA_DIR_VAL, u->header.type_id);
	if (*d != NULL && u->companion == 0 &&
	    (u->size != zlua_dir_size(*d) || len < sizeof *u + u->size))
		*d = NULL;
	return u;
}

/* [lua] Pushes the per-userdata table of the companion cache at upvalue
 * cu (a weak-keyed table: userdata -> {key -> value}), or nothing and
 * returns 0 when there is none (and create is 0). [-0, +1|0] */
static int sv_cache(lua_State *L, int cu, int create)
{
	if (lua_type(L, lua_upvalueindex(cu)) != LUA_TTABLE)
		return 0;
	lua_pushvalue(L, 1);
	lua_rawget(L, lua_upvalueindex(cu));
	if (lua_type(L, -1) == LUA_TTABLE)
		return 1;
	lua_pop(L, 1);
	if (!create)
		return 0;
	lua_createtable(L, 0, 2);
	lua_pushvalue(L, 1);
	lua_pushvalue(L, -2);
	lua_rawset(L, lua_upvalueindex(cu));
	return 1;
}

int zlua_sv_index(lua_State *L)
{
	ZLuaByValHeader *u = NULL;
	if (lua_type(L, 2) == LUA_TSTRING) {
		const zlua_fielddir *d;
		const zlua_dirent *f;
		u = sv_check(L, 1, &d);
		if (u != NULL && u->companion == 0 && d != NULL && (f = zlua_dir_find(L, d)) != NULL) {
			zlua_sv_read(L, (int)(f->code & 0xff), ZLUA_BYVAL_PAYLOAD(u) + (f->code >> 8));
			return 1;
		}
		lua_settop(L, 2);
		if (lua_type(L, lua_upvalueindex(1)) == LUA_TTABLE) {
			lua_pushvalue(L, 2);
			lua_rawget(L, lua_upvalueindex(1));
			if (!lua_isnil(L, -1))
				return 1; /* a method: no Go call */
			lua_pop(L, 1);
		}
		/* A companion is a copy only its __newindex changes: scalar
		 * fields read once are served from the cache. */
		if (u != NULL && u->companion != 0 && sv_cache(L, 3, 0)) {
			lua_pushvalue(L, 2);
			lua_rawget(L, -2);
			if (!lua_isnil(L, -1))
				return 1;
			lua_settop(L, 2);
		}
	}
	lua_settop(L, 2);
	lua_pushvalue(L, lua_upvalueindex(2));
	lua_pushvalue(L, 1);
	lua_pushvalue(L, 2);
	lua_call(L, 2, 1);
	if (u != NULL && u->companion != 0) {
		int t = lua_type(L, 3);
		if ((t == LUA_TSTRING || t == LUA_TNUMBER || t == LUA_TBOOLEAN) && sv_cache(L, 3, 1)) {
			lua_pushvalue(L, 2);
			lua_pushvalue(L, 3);
			lua_rawset(L, -3);
			lua_settop(L, 3);
		}
	}
	return 1;
}

int zlua_sv_newindex(lua_State *L)
{
	ZLuaByValHeader *u = NULL;
	if (lua_type(L, 2) == LUA_TSTRING) {
		const zlua_fielddir *d;
		const zlua_dirent *f;
		u = sv_check(L, 1, &d);
		if (u != NULL && u->companion == 0 && !(u->header.flags & ZLUA_F_NOADDR) && d != NULL &&
		    (f = zlua_dir_find(L, d)) != NULL) {
			zlua_sv_write(L, d, (int)(f->code & 0xff), ZLUA_BYVAL_PAYLOAD(u) + (f->code >> 8));
			return 0;
		}
	}
	lua_settop(L, 3);
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_pushvalue(L, 1);
	lua_pushvalue(L, 2);
	lua_pushvalue(L, 3);
	lua_call(L, 3, 0);
	/* The copy changed: forget what the cache read of this field. */
	if (u != NULL && u->companion != 0 && sv_cache(L, 2, 0)) {
		lua_pushvalue(L, 2);
		lua_pushnil(L);
		lua_rawset(L, -3);
	}
	return 0;
}

int zlua_sv_gc(lua_State *L)
{
	ZLuaByValHeader *u;
	zlua_env *env = zlua_envof(L);
	/* Callable by hand through debug.getmetatable, on any value and with
	 * any metatable: act only on a live companion ByVal of this env. */
	zlua_udheader *h = zlua_toown(env, L, 1);
	if (h == NULL || h->kind != ZLUA_KIND_BYVAL || zlua_rawlen(L, 1) < sizeof *u)
		return 0;
	u = (ZLuaByValHeader *)h;
	if ((u->header.flags & ZLUA_F_RELEASED) || u->companion == 0 ||
	    u->companion >= env->svstate_cap)
		return 0;
	u->header.flags |= ZLUA_F_RELEASED;
	env->svstate[u->companion] = 2;
	if (env->svcharge[u->companion] != 0) {
		__atomic_store_n(&env->ext_used, env->ext_used - env->svcharge[u->companion], __ATOMIC_RELAXED);
		env->svcharge[u->companion] = 0;
	}
	if (env->svfreed_len == env->svfreed_cap) {
		size_t cap = env->svfreed_cap ? env->svfreed_cap * 2 : 256;
		uint32_t *q = (uint32_t *)realloc(env->svfreed, cap * sizeof *q);
		if (q == NULL) {
			env->svfreed_lost++; /* never raises */
			return 0;
		}
		env->svfreed = q;
		env->svfreed_cap = cap;
	}
	env->svfreed[env->svfreed_len++] = u->companion;
	env->queued = 1;
	return 0;
}

int zlua_sv_init(lua_State *L, zlua_env *env, zlua_opargs *a)
{
	int top = lua_gettop(L);
	zlua_prog_run(L, env, a->prog, a->prog_len); /* get, set */
	zlua_pushglobaltable(L);
	lua_pushliteral(L, "zlua");
	lua_rawget(L, -2);
	if (lua_type(L, -1) == LUA_TTABLE) {
		lua_pushvalue(L, top + 1);
		lua_setfield(L, -2, "get_opaquevalue");
		lua_pushvalue(L, top + 2);
		lua_setfield(L, -2, "set_opaquevalue");
	}
#ifdef ZLUA_LUAJIT
	/* LuaJIT interns the upper bits of a light userdata in a segment
	 * table that may have to grow (allocate, raise) on the first push of
	 * a new segment: push one value of the opaque handles' segment (every
	 * handle is below 2^39) now, under protection, so that pushing a
	 * handle later never allocates and may happen outside protection
	 * (zlua_push_in, run_simple). */
	lua_pushlightuserdata(L, (void *)(uintptr_t)1);
#endif
	lua_settop(L, top);
	return 0;
}

int zlua_svstate_reserve(zlua_env *env, size_t n)
{
	size_t cap = env->svstate_cap ? env->svstate_cap : 1024;
	unsigned char *p;
	size_t *q;
	if (n < env->svstate_cap)
		return 1;
	while (cap <= n)
		cap *= 2;
	q = (size_t *)realloc(env->svcharge, cap * sizeof *q);
	if (q == NULL)
		return 0;
	memset(q + env->svstate_cap, 0, (cap - env->svstate_cap) * sizeof *q);
	env->svcharge = q;
	p = (unsigned char *)realloc(env->svstate, cap);
	if (p == NULL)
		return 0; /* svcharge is larger than needed, which is harmless */
	memset(p + env->svstate_cap, 0, cap - env->svstate_cap);
	env->svstate = p;
	env->svstate_cap = cap;
	return 1;
}
