/* jitindex.c: LuaJIT's __index and __newindex closures for ByObj types.
 *
 * On LuaJIT a metamethod that is a Lua function is compiled into the trace
 * that indexes the object, and so is a call through the FFI, while a
 * lua_CFunction costs the classic API on every access. So an object's
 * __index is a Lua closure: a method is a raw table hit, and a numeric or
 * boolean field of a pinned Go struct (objfields.c) is read by one FFI
 * call to zlua_jit_get, a C function that uses no Lua API: it makes the
 * checks the C closure makes (the closure's binding, not released,
 * pinned, proved zlua's by its address) and reads the field the env's
 * directory names. What it refuses (an object not yet pinned, a value the
 * fast path does not convert, anything else) goes to the C closure, so
 * every result and error stays the C path's. Writes go the same way
 * through zlua_jit_set.
 *
 * The closures pass the field's index in the directory, never an offset:
 * C bounds it, so nothing a script can reach decides which bytes C
 * touches. The FFI module is taken when the libraries are opened (before
 * the sandbox drops it from package.loaded) and kept in the registry;
 * without it the closures only look methods up. */
#include <float.h>
#include <math.h>

#include "zlua.h"

#ifdef ZLUA_LUAJIT

/* The factory chunk, run once per env with (ffi or nil, the env, the
 * addresses of zlua_jit_get, zlua_jit_has and zlua_jit_set, the limited
 * flag table of hook.c). It returns make(methods, getter, fields, tid,
 * setter), which returns the __index closure and, when fields is a table
 * and the FFI is there, the __newindex closure; and makeeq(ceq), which
 * wraps the C __eq closure. fields maps each name to its directory
 * index, as -1 - index for a boolean. No closure keeps a cdata that can be
 * indexed or offset (the env is a void *), so upvalues taken with
 * debug.getupvalue are not a way to raw memory. */
static const char factory_src[] =
	"local rawget, type = rawget, type\n"
	"local ffi, envp, getp, hasp, setp, eqp, limited = ...\n"
	"local function plain(methods, getter)\n"
	"  return function(o, k)\n"
	"    local m = rawget(methods, k)\n"
	"    if m ~= nil then return m end\n"
	"    return getter(o, k)\n"
	"  end\n"
	"end\n"
	"if ffi == nil then\n"
	"  return function(methods, getter) return plain(methods, getter) end, function(ceq) return ceq end, nil\n"
	"end\n"
	"local env = ffi.cast('void *', envp)\n"
	"local get = ffi.cast('double (*)(void *, const void *, uint32_t, uint32_t, int)', getp)\n"
	"local has = ffi.cast('int (*)(void *, const void *, uint32_t, uint32_t, int)', hasp)\n"
	"local set = ffi.cast('int (*)(void *, void *, uint32_t, uint32_t, double, int, int)', setp)\n"
	"local eq = ffi.cast('int (*)(void *, const void *, const void *)', eqp)\n"
	/* A limited call runs interpreted (limited[1], hook.c), where an FFI
	 * call costs about what the C closure does: the C closures serve it. */
	/* read(o, k, fields, tid, byval): the field's value, or nil with ok
	 * false when the C closure must decide */
	"local function read(o, k, fields, tid, byval)\n"
	"  local i = rawget(fields, k)\n"
	"  if i ~= nil and type(o) == 'userdata' then\n"
	"    if i < 0 then\n"
	"      local v = get(env, o, tid, -1 - i, byval)\n"
	"      if v == v then return true, v ~= 0 end\n"
	"    else\n"
	"      local v = get(env, o, tid, i, byval)\n"
	/* NaN: a refusal, or a float field holding NaN */
	"      if v == v or has(env, o, tid, i, byval) ~= 0 then return true, v end\n"
	"    end\n"
	"  end\n"
	"  return false\n"
	"end\n"
	"local function write(o, k, v, fields, tid, byval)\n"
	"  local i = rawget(fields, k)\n"
	"  if i ~= nil and type(o) == 'userdata' then\n"
	"    local t = type(v)\n"
	"    if i >= 0 then\n"
	"      return t == 'number' and set(env, o, tid, i, v, 0, byval) ~= 0\n"
	"    elseif t == 'boolean' then\n"
	"      return set(env, o, tid, -1 - i, v and 1 or 0, 1, byval) ~= 0\n"
	"    end\n"
	"  end\n"
	"  return false\n"
	"end\n"
	"return function(methods, getter, fields, tid, setter)\n"
	"  if fields == nil then return plain(methods, getter) end\n"
	"  local function index(o, k)\n"
	"    local m = rawget(methods, k)\n"
	"    if m ~= nil then return m end\n"
	"    if limited[1] then return getter(o, k) end\n"
	"    local ok, v = read(o, k, fields, tid, 0)\n"
	"    if ok then return v end\n"
	"    return getter(o, k)\n"
	"  end\n"
	"  local function newindex(o, k, v)\n"
	"    if limited[1] or not write(o, k, v, fields, tid, 0) then return setter(o, k, v) end\n"
	"  end\n"
	"  return index, newindex\n"
	"end, function(ceq)\n"
	/* the __eq shared by every object metatable: two keyed objects
	 * proved by their addresses are decided by zlua_jit_eq; the rest
	 * (views, unkeyed objects, anything else) by the C closure */
	"  return function(a, b)\n"
	"    if not limited[1] and type(a) == 'userdata' and type(b) == 'userdata' then\n"
	"      local r = eq(env, a, b)\n"
	"      if r >= 0 then return r == 1 end\n"
	"    end\n"
	"    return ceq(a, b)\n"
	"  end\n"
	/* ByVal: fields first (the C closures look them up first too), then
	 * the C closures (methods, the companion cache, Go) */
	"end, function(cindex, cnewindex, fields, tid)\n"
	"  local function index(o, k)\n"
	"    if not limited[1] then\n"
	"      local ok, v = read(o, k, fields, tid, 1)\n"
	"      if ok then return v end\n"
	"    end\n"
	"    return cindex(o, k)\n"
	"  end\n"
	"  local function newindex(o, k, v)\n"
	"    if limited[1] or not write(o, k, v, fields, tid, 1) then return cnewindex(o, k, v) end\n"
	"  end\n"
	"  return index, newindex\n"
	"end\n";

/* The field i of the directory of type tid, at its address, when p is
 * the payload of a userdata zlua made for that type: for ByObj (byval 0)
 * a live, pinned object of env proved by its address, its Go struct; for
 * ByVal (byval 1) a live blittable copy of the directory's size, its
 * payload. Else NULL. */
static unsigned char *jit_field(const zlua_env *env, const void *p, uint32_t tid, uint32_t i,
				int byval, int *kind)
{
	const zlua_udheader *h = (const zlua_udheader *)p;
	const zlua_fielddir *d;
	const zlua_dirent *f;
	unsigned char *base;
	/* the length before any byte of the payload: a script with the
	 * debug library can call these closures with a smaller userdata
	 * (newproxy's empty one) */
	uint32_t len;
	if (h == NULL)
		return NULL;
	len = zlua_jit_udlen(env, p);
	if ((byval ? len < sizeof(ZLuaByValHeader) : len != sizeof(ZLuaObjectUserData)) ||
	    h->magic != ZLUA_MAGIC || h->type_id != tid || (h->flags & ZLUA_F_RELEASED))
		return NULL;
	d = zlua_dir(env, byval ? ZLUA_DIR_VAL : ZLUA_DIR_OBJ, tid);
	if (d == NULL || i >= zlua_dir_count(d))
		return NULL;
	if (byval) {
		const ZLuaByValHeader *v = (const ZLuaByValHeader *)p;
		/* the header's size is the directory's, and the userdata
		 * holds that much after the header */
		if (h->kind != ZLUA_KIND_BYVAL || v->companion != 0 || v->size != zlua_dir_size(d) ||
		    len != sizeof(ZLuaByValHeader) + v->size)
			return NULL;
		base = ZLUA_BYVAL_PAYLOAD(v);
	} else {
		const ZLuaObjectUserData *u = (const ZLuaObjectUserData *)p;
		if (h->kind != ZLUA_KIND_BYOBJ || u->ptr == 0 || !zlua_ownaddr(env, u))
			return NULL;
		base = (unsigned char *)(uintptr_t)u->ptr;
	}
	f = zlua_dir_entry(d, i);
	*kind = (int)(f->code & 0xff);
	return base + (f->code >> 8);
}

double zlua_jit_get(void *envp, const void *p, uint32_t tid, uint32_t i, int byval)
{
	int kind;
	const unsigned char *q = jit_field((const zlua_env *)envp, p, tid, i, byval, &kind);
	union {
		int8_t i8; int16_t i16; int32_t i32; int64_t i64;
		uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64;
		float f32; double f64;
	} v;
	if (q == NULL)
		return NAN;
	/* every LuaJIT number is a double: the C closure's conversions */
	switch (kind) {
	case ZLUA_SV_I8: memcpy(&v.i8, q, 1); return v.i8;
	case ZLUA_SV_I16: memcpy(&v.i16, q, 2); return v.i16;
	case ZLUA_SV_I32: memcpy(&v.i32, q, 4); return v.i32;
	case ZLUA_SV_I64:
	case ZLUA_SV_INT: memcpy(&v.i64, q, 8); return (double)v.i64;
	case ZLUA_SV_U8: memcpy(&v.u8, q, 1); return v.u8;
	case ZLUA_SV_U16: memcpy(&v.u16, q, 2); return v.u16;
	case ZLUA_SV_U32: memcpy(&v.u32, q, 4); return v.u32;
	case ZLUA_SV_U64:
	case ZLUA_SV_UINT:
	case ZLUA_SV_UINTPTR:
		memcpy(&v.u64, q, 8);
		return v.u64 > (uint64_t)INT64_MAX ? (double)v.u64 : (double)(int64_t)v.u64;
	case ZLUA_SV_F32: memcpy(&v.f32, q, 4); return v.f32;
	case ZLUA_SV_F64: memcpy(&v.f64, q, 8); return v.f64;
	case ZLUA_SV_BOOL: return *q != 0;
	}
	return NAN;
}

int zlua_jit_has(void *envp, const void *p, uint32_t tid, uint32_t i, int byval)
{
	int kind;
	return jit_field((const zlua_env *)envp, p, tid, i, byval, &kind) != NULL;
}

/* The ByObj userdata payload p if it is a live object of env proved by its
 * address, else NULL. */
static const ZLuaObjectUserData *jit_obj(const zlua_env *env, const void *p)
{
	const ZLuaObjectUserData *u = (const ZLuaObjectUserData *)p;
	if (u == NULL || zlua_jit_udlen(env, p) != sizeof(ZLuaObjectUserData) ||
	    u->header.magic != ZLUA_MAGIC || u->header.kind != ZLUA_KIND_BYOBJ ||
	    (u->header.flags & ZLUA_F_RELEASED) || !zlua_ownaddr(env, u))
		return NULL;
	return u;
}

int zlua_jit_eq(void *envp, const void *pa, const void *pb)
{
	const zlua_env *env = (const zlua_env *)envp;
	const ZLuaObjectUserData *a = jit_obj(env, pa), *b = a != NULL ? jit_obj(env, pb) : NULL;
	if (b == NULL)
		return -1;
	if (a->slot == b->slot && a->gen == b->gen)
		return 1;
	/* one live keyed userdata per (object, binding): as zlua_obj_eq */
	if (a->header.type_id == b->header.type_id && (a->header.flags & b->header.flags & ZLUA_F_KEYED))
		return 0;
	return -1;
}

/* Whether n is integral and within [lo, hi]. */
static int int_in(double n, double lo, double hi)
{
	return n >= lo && n <= hi && (double)(int64_t)n == n;
}

int zlua_jit_set(void *envp, void *p, uint32_t tid, uint32_t i, double n, int isbool, int byval)
{
	int kind;
	unsigned char *q = jit_field((const zlua_env *)envp, p, tid, i, byval, &kind);
	if (q == NULL || isbool != (kind == ZLUA_SV_BOOL))
		return 0;
	/* a copy with no Go address refuses writes: the C closure leaves
	 * them to Go, which says so */
	if (byval && (((const zlua_udheader *)p)->flags & ZLUA_F_NOADDR))
		return 0;
	/* Only values the C setter stores as they are: integral numbers in
	 * range, finite float32, booleans. The rest (conversions, errors)
	 * is the C closure's. */
	switch (kind) {
	case ZLUA_SV_BOOL: *q = n != 0; return 1;
	case ZLUA_SV_F64: memcpy(q, &n, 8); return 1;
	case ZLUA_SV_F32:
		if (!(n >= -FLT_MAX && n <= FLT_MAX))
			return 0;
		{ float f = (float)n; memcpy(q, &f, 4); }
		return 1;
	case ZLUA_SV_I8:
		if (!int_in(n, INT8_MIN, INT8_MAX)) return 0;
		{ int8_t v = (int8_t)n; memcpy(q, &v, 1); }
		return 1;
	case ZLUA_SV_I16:
		if (!int_in(n, INT16_MIN, INT16_MAX)) return 0;
		{ int16_t v = (int16_t)n; memcpy(q, &v, 2); }
		return 1;
	case ZLUA_SV_I32:
		if (!int_in(n, INT32_MIN, INT32_MAX)) return 0;
		{ int32_t v = (int32_t)n; memcpy(q, &v, 4); }
		return 1;
	case ZLUA_SV_U8:
		if (!int_in(n, 0, UINT8_MAX)) return 0;
		{ uint8_t v = (uint8_t)n; memcpy(q, &v, 1); }
		return 1;
	case ZLUA_SV_U16:
		if (!int_in(n, 0, UINT16_MAX)) return 0;
		{ uint16_t v = (uint16_t)n; memcpy(q, &v, 2); }
		return 1;
	case ZLUA_SV_U32:
		if (!int_in(n, 0, UINT32_MAX)) return 0;
		{ uint32_t v = (uint32_t)n; memcpy(q, &v, 4); }
		return 1;
	}
	/* 64-bit integers: below 2^63 (the int64 conversion is exact there;
	 * larger unsigned values take the C closure's way) */
	if (!(n >= -9223372036854775808.0 && n < 9223372036854775808.0) || (double)(int64_t)n != n)
		return 0;
	if (kind == ZLUA_SV_I64 || kind == ZLUA_SV_INT) {
		int64_t v = (int64_t)n;
		memcpy(q, &v, 8);
		return 1;
	}
	if (n < 0) /* U64, UINT, UINTPTR */
		return 0;
	{ uint64_t v = (uint64_t)(int64_t)n; memcpy(q, &v, 8); }
	return 1;
}

/* [lua] zlua_jit_keepffi's work, run by lua_cpcall with env as the light
 * userdata. [-0, +0] */
static int keepffi(lua_State *L)
{
	zlua_env *env = (zlua_env *)lua_touserdata(L, 1);
	lua_settop(L, 0);
	lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");
	if (lua_type(L, -1) != LUA_TTABLE)
		return 0;
	lua_getfield(L, -1, "ffi");
	if (lua_isnil(L, -1)) {
		/* not required yet: load it the way require does, so a later
		 * require returns the same module */
		lua_pop(L, 1);
		lua_getfield(L, LUA_REGISTRYINDEX, "_PRELOAD");
		if (lua_type(L, -1) != LUA_TTABLE)
			return 0;
		lua_getfield(L, -1, "ffi");
		lua_remove(L, -2);
		if (lua_type(L, -1) != LUA_TFUNCTION)
			return 0;
		lua_pushliteral(L, "ffi");
		lua_call(L, 1, 1);
		if (lua_type(L, -1) != LUA_TTABLE)
			return 0;
		lua_pushvalue(L, -1);
		lua_setfield(L, -3, "ffi");
	}
	if (lua_type(L, -1) != LUA_TTABLE)
		return 0;
	env->ffi_ref = luaL_ref(L, LUA_REGISTRYINDEX);
	return 0;
}

void zlua_jit_keepffi(lua_State *L, zlua_env *env)
{
	/* LuaJIT cannot survive an allocation failure inside luaopen_ffi: its
	 * half-made C type state crashes lua_close later. So the module is
	 * loaded here, once, with the env's limit and the tests' injected
	 * failure suspended (a later require then finds it loaded); only a
	 * failure of malloc itself can still reach LuaJIT's bug. */
	uint64_t fail_at = env->alloc_fail_at;
	size_t limit = env->mem_limit;
	if (env->ffi_ref != LUA_NOREF)
		return;
	env->alloc_fail_at = 0;
	env->mem_limit = 0;
	if (lua_cpcall(L, keepffi, env) != 0)
		lua_pop(L, 1); /* no FFI fast path */
	env->alloc_fail_at = fail_at;
	env->mem_limit = limit;
}

/* [lua] zlua_jit_nostitch's work, run by lua_cpcall. [-0, +0] */
static int nostitch(lua_State *L)
{
	lua_settop(L, 0);
	lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");
	if (lua_type(L, -1) != LUA_TTABLE)
		return 0;
	lua_getfield(L, -1, "jit");
	if (lua_type(L, -1) != LUA_TTABLE)
		return 0;
	lua_getfield(L, -1, "opt");
	if (lua_type(L, -1) != LUA_TTABLE)
		return 0;
	lua_getfield(L, -1, "start");
	if (lua_type(L, -1) != LUA_TFUNCTION)
		return 0;
	/* a stitched trace needs at least this many IR instructions: none is
	 * stitched */
	lua_pushliteral(L, "minstitch=1000000000");
	lua_call(L, 1, 0);
	return 0;
}

void zlua_jit_nostitch(lua_State *L, zlua_env *env)
{
	size_t limit = env->mem_limit;
	uint64_t fail_at = env->alloc_fail_at;
	env->mem_limit = 0;
	env->alloc_fail_at = 0;
	if (lua_cpcall(L, nostitch, NULL) != 0)
		lua_pop(L, 1);
	env->mem_limit = limit;
	env->alloc_fail_at = fail_at;
}

void zlua_jit_init(lua_State *L, zlua_env *env)
{
	int n = 0;
	if (zlua_load_own(L, factory_src, sizeof factory_src - 1, ZLUA_INDEX_CHUNK) != 0)
		lua_error(L);
	/* the FFI path needs the address proof (ud_block), the place of a
	 * userdata's length (ud_lenoff) and the limited flag */
	if (env->ffi_ref != LUA_NOREF && env->ud_block != 0)
		zlua_jit_udlenoff(L, env);
	if (env->ffi_ref != LUA_NOREF && env->ud_block != 0 && env->ud_lenoff != 0 &&
	    env->limflag_ref != LUA_NOREF) {
		lua_rawgeti(L, LUA_REGISTRYINDEX, env->ffi_ref);
		lua_pushlightuserdata(L, env);
		lua_pushlightuserdata(L, (void *)(uintptr_t)zlua_jit_get);
		lua_pushlightuserdata(L, (void *)(uintptr_t)zlua_jit_has);
		lua_pushlightuserdata(L, (void *)(uintptr_t)zlua_jit_set);
		lua_pushlightuserdata(L, (void *)(uintptr_t)zlua_jit_eq);
		lua_rawgeti(L, LUA_REGISTRYINDEX, env->limflag_ref);
		n = 7;
	}
	lua_call(L, n, 3);
	env->jitval_ref = lua_isnil(L, -1) ? (lua_pop(L, 1), LUA_NOREF) : luaL_ref(L, LUA_REGISTRYINDEX);
	env->jiteq_ref = luaL_ref(L, LUA_REGISTRYINDEX);
	env->indexer_ref = luaL_ref(L, LUA_REGISTRYINDEX);
	/* the leaf maker (jitleaf.c) is made at the first leaf type, when a
	 * script may have replaced these globals: it takes them from here */
	lua_createtable(L, 2, 0);
	lua_getfield(L, LUA_GLOBALSINDEX, "type");
	lua_rawseti(L, -2, 1);
	lua_getfield(L, LUA_GLOBALSINDEX, "getmetatable");
	lua_rawseti(L, -2, 2);
	lua_rawgeti(L, -1, 1);
	lua_rawgeti(L, -2, 2);
	if (lua_iscfunction(L, -1) && lua_iscfunction(L, -2)) {
		lua_pop(L, 2);
		env->leafbase_ref = luaL_ref(L, LUA_REGISTRYINDEX);
	} else {
		lua_pop(L, 3); /* no base library: no leaf closures */
	}
}

/* Pushes the field table of directory d: name -> index, -1 - index for a
 * boolean (the closures return a boolean). [-0, +1] */
static void push_fields(lua_State *L, const zlua_fielddir *d)
{
	size_t i, n = d != NULL ? zlua_dir_count(d) : 0;
	lua_createtable(L, 0, (int)n);
	for (i = 0; i < n; i++) {
		const zlua_dirent *f = zlua_dir_entry(d, i);
		lua_pushlstring(L, f->name, f->len);
		lua_pushnumber(L, (f->code & 0xff) == ZLUA_SV_BOOL ? -1 - (lua_Number)i : (lua_Number)i);
		lua_rawset(L, -3);
	}
}

void zlua_jit_fieldtable(lua_State *L, const zlua_fielddir *d)
{
	push_fields(L, d);
}

void zlua_jit_valfields(lua_State *L, zlua_env *env, int mt, uint32_t tid)
{
	/* a program op is only sure of 3 free slots (zlua_prog_run); this
	 * one pushes up to 10 */
	luaL_checkstack(L, 12, "zlua: too many values");
	const zlua_fielddir *d = zlua_dir(env, ZLUA_DIR_VAL, tid);
	if (env->jitval_ref == LUA_NOREF || d == NULL || zlua_dir_count(d) == 0)
		return;
	mt = lua_absindex_compat(L, mt);
	lua_rawgeti(L, LUA_REGISTRYINDEX, env->jitval_ref);
	lua_getfield(L, mt, "__index");
	lua_getfield(L, mt, "__newindex");
	push_fields(L, d);
	lua_pushnumber(L, (lua_Number)tid);
	lua_call(L, 4, 2);
	lua_setfield(L, mt, "__newindex");
	lua_setfield(L, mt, "__index");
}

int zlua_jit_fields_emptyprobe(zlua_env *env)
{
	unsigned char *p = zlua_jit_emptyud(env);
	int refused;
	if (p == NULL)
		return -1;
	refused = isnan(zlua_jit_get(env, p, 1, 0, 0)) && isnan(zlua_jit_get(env, p, 1, 0, 1)) &&
		  !zlua_jit_has(env, p, 1, 0, 0) && !zlua_jit_set(env, p, 1, 0, 1, 0, 0) &&
		  !zlua_jit_set(env, p, 1, 0, 1, 0, 1) && zlua_jit_eq(env, p, p) == -1;
	zlua_jit_emptyud_free(p);
	return refused ? 0 : 1;
}

#else

int zlua_jit_fields_emptyprobe(zlua_env *env)
{
	(void)env;
	return -1;
}

#endif
