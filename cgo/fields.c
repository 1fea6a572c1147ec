/* fields.c: numeric and boolean struct fields read and written by C, for
 * ByVal payloads (structs.c) and pinned ByObj structs (objfields.c). A
 * type's fields are described by a directory in C memory, owned by the
 * env and found by type id, so nothing a script can reach (upvalues, the
 * registry, metatables) decides which bytes C touches. */
#include <float.h>

#include "zlua.h"

/* The field directory of one type: its name, size and, per field, the
 * name, the Lua string last known for it and the code (kind | offset <<
 * 8). Names and entries live in the same block. */
struct zlua_fielddir {
	uint32_t type_id;
	uint32_t n;
	size_t size;       /* bytes of the struct: every field lies below */
	const char *tname; /* type name, for errors */
	int anchor;        /* registry ref of the field table, which keeps the
	                    * hint strings alive */
	zlua_dirent f[];
};

/* Bytes of a field of kind; 0 for an unknown kind. */
static size_t kind_size(int kind)
{
	switch (kind) {
	case ZLUA_SV_I8: case ZLUA_SV_U8: case ZLUA_SV_BOOL: return 1;
	case ZLUA_SV_I16: case ZLUA_SV_U16: return 2;
	case ZLUA_SV_I32: case ZLUA_SV_U32: case ZLUA_SV_F32: return 4;
	case ZLUA_SV_I64: case ZLUA_SV_U64: case ZLUA_SV_F64:
	case ZLUA_SV_INT: case ZLUA_SV_UINT: case ZLUA_SV_UINTPTR: return 8;
	}
	return 0;
}

/* [lua] Grows env->dirs[which] to hold index n; raises on failure. */
static void dirs_reserve(lua_State *L, zlua_env *env, int which, size_t n)
{
	size_t cap = env->dirs_cap[which] ? env->dirs_cap[which] : 64;
	zlua_fielddir **p;
	if (n < env->dirs_cap[which])
		return;
	while (cap <= n)
		cap *= 2;
	p = (zlua_fielddir **)realloc(env->dirs[which], cap * sizeof *p);
	if (p == NULL) {
		luaL_error(L, "not enough memory");
		return;
	}
	memset(p + env->dirs_cap[which], 0, (cap - env->dirs_cap[which]) * sizeof *p);
	env->dirs[which] = p;
	env->dirs_cap[which] = cap;
}

void zlua_dir_make(lua_State *L, zlua_env *env, int which, int t, uint32_t type_id,
		   size_t size, const char *tname)
{
	size_t n = 0, names = strlen(tname) + 1, k, i = 0;
	zlua_fielddir *d;
	char *s;
	int anchor;
	t = lua_absindex_compat(L, t);
	dirs_reserve(L, env, which, type_id);
	lua_pushnil(L);
	while (lua_next(L, t)) {
		if (lua_type(L, -2) == LUA_TSTRING) {
			lua_tolstring(L, -2, &k);
			n++;
			names += k + 1;
		}
		lua_pop(L, 1);
	}
	lua_pushvalue(L, t);
	anchor = luaL_ref(L, LUA_REGISTRYINDEX); /* may raise: before the malloc */
	d = (zlua_fielddir *)malloc(sizeof *d + n * sizeof d->f[0] + names);
	if (d == NULL) {
		luaL_error(L, "not enough memory");
		return;
	}
	s = (char *)(d->f + n);
	d->type_id = type_id;
	d->size = size;
	d->anchor = anchor;
	memcpy(s, tname, strlen(tname) + 1);
	d->tname = s;
	s += strlen(tname) + 1;
	lua_pushnil(L);
	while (lua_next(L, t)) {
		lua_Integer code = lua_type(L, -1) == LUA_TNUMBER ? lua_tointeger(L, -1) : -1;
		size_t ks = code >= 0 ? kind_size((int)(code & 0xff)) : 0;
		if (lua_type(L, -2) == LUA_TSTRING && i < n && ks != 0 &&
		    (size_t)(code >> 8) + ks <= size) {
			const char *key = lua_tolstring(L, -2, &k);
			memcpy(s, key, k + 1);
			d->f[i].hint = key; /* interned, kept alive by the anchored table */
			d->f[i].len = k;
			d->f[i].name = s;
			d->f[i].code = code;
			s += k + 1;
			i++;
		}
		lua_pop(L, 1);
	}
	d->n = (uint32_t)i;
	free(env->dirs[which][type_id]); /* a type bound again after a failed build */
	env->dirs[which][type_id] = d;
}

void zlua_dirs_free(zlua_env *env)
{
	int w;
	size_t i;
	for (w = 0; w < 2; w++) {
		for (i = 0; i < env->dirs_cap[w]; i++)
			free(env->dirs[w][i]);
		free(env->dirs[w]);
		env->dirs[w] = NULL;
		env->dirs_cap[w] = 0;
	}
}

size_t zlua_dir_size(const zlua_fielddir *d) { return d->size; }
size_t zlua_dir_count(const zlua_fielddir *d) { return d->n; }
const zlua_dirent *zlua_dir_entry(const zlua_fielddir *d, size_t i) { return &d->f[i]; }

const zlua_dirent *zlua_dir_find(lua_State *L, const zlua_fielddir *d)
{
	size_t len;
	const char *k = lua_tolstring(L, 2, &len);
	uint32_t i;
	/* Interned strings (all of LuaJIT's, Lua 5.4's up to 40 bytes) are
	 * unique: the common case is one pointer comparison. */
	for (i = 0; i < d->n; i++)
		if (d->f[i].hint == (const void *)k)
			return &d->f[i];
	for (i = 0; i < d->n; i++)
		if (d->f[i].len == len && memcmp(d->f[i].name, k, len) == 0)
			return &d->f[i];
	return NULL;
}

#ifdef ZLUA_LUAJIT
#define sv_pushint(L, i) lua_pushnumber((L), (lua_Number)(i))
#else
#define sv_pushint(L, i) lua_pushinteger((L), (lua_Integer)(i))
#endif

void zlua_sv_read(lua_State *L, int kind, const unsigned char *q)
{
	union {
		int8_t i8; int16_t i16; int32_t i32; int64_t i64;
		uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64;
		float f32; double f64;
	} v;
	switch (kind) {
	case ZLUA_SV_I8: memcpy(&v.i8, q, 1); sv_pushint(L, v.i8); break;
	case ZLUA_SV_I16: memcpy(&v.i16, q, 2); sv_pushint(L, v.i16); break;
	case ZLUA_SV_I32: memcpy(&v.i32, q, 4); sv_pushint(L, v.i32); break;
	case ZLUA_SV_I64:
	case ZLUA_SV_INT: memcpy(&v.i64, q, 8); sv_pushint(L, v.i64); break;
	case ZLUA_SV_U8: memcpy(&v.u8, q, 1); sv_pushint(L, v.u8); break;
	case ZLUA_SV_U16: memcpy(&v.u16, q, 2); sv_pushint(L, v.u16); break;
	case ZLUA_SV_U32: memcpy(&v.u32, q, 4); sv_pushint(L, v.u32); break;
	case ZLUA_SV_U64:
	case ZLUA_SV_UINT:
	case ZLUA_SV_UINTPTR:
		memcpy(&v.u64, q, 8);
		if (v.u64 > (uint64_t)INT64_MAX)
			lua_pushnumber(L, (lua_Number)v.u64); /* as Go pushes it */
		else
			sv_pushint(L, (int64_t)v.u64);
		break;
	case ZLUA_SV_F32: memcpy(&v.f32, q, 4); lua_pushnumber(L, v.f32); break;
	case ZLUA_SV_F64: memcpy(&v.f64, q, 8); lua_pushnumber(L, v.f64); break;
	default: lua_pushboolean(L, *q != 0);
	}
}

static const char *const sv_kindname[] = {
	"", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
	"uint64", "float32", "float64", "bool", "int", "uint", "uintptr"
};

/* [lua] Raises the field error of the value at 3, in the words of the Go
 * field setter. */
static int sv_fielderr(lua_State *L, const zlua_fielddir *d, const char *detail)
{
	luaL_where(L, 1);
	lua_pushliteral(L, "bad value for field '");
	lua_pushvalue(L, 2); /* a string: the key that named the field */
	lua_pushfstring(L, "' of %s (%s)", d->tname, detail);
	lua_concat(L, 4);
	return lua_error(L);
}

static int sv_typeerr(lua_State *L, const zlua_fielddir *d, const char *want)
{
	const char *got = zlua_typename(zlua_envof(L), L, 3);
	lua_pushfstring(L, "%s expected, got %s", want, got);
	return sv_fielderr(L, d, lua_tostring(L, -1));
}

/* [lua] Converts the value at 3 to an integer like the Go setter: numbers
 * and numeric strings with an integral value. */
static int64_t sv_toint(lua_State *L, const zlua_fielddir *d)
{
	lua_Number n;
	int t;
#ifndef ZLUA_LUAJIT
	/* integers, floats with an integral value, numeric strings of those
	 * (LuaJIT's lua_tointegerx truncates, so it takes the long way) */
	lua_Integer i = lua_tointegerx(L, 3, &t);
	if (t)
		return (int64_t)i;
#endif
	t = lua_type(L, 3);
	if (t != LUA_TNUMBER && !(t == LUA_TSTRING && lua_isnumber(L, 3)))
		return sv_typeerr(L, d, "number");
	n = lua_tonumber(L, 3);
#ifdef ZLUA_LUAJIT
	/* 2^63 is the float of every int64 from 2^63 - 512 up (INT64_MAX
	 * included): it reads as INT64_MAX, as in Go's floatToInt */
	if (n == 9223372036854775808.0)
		return INT64_MAX;
#endif
	if (!(n >= -9223372036854775808.0 && n < 9223372036854775808.0) ||
	    (lua_Number)(int64_t)n != n)
		return sv_fielderr(L, d, "number has no integer representation");
	return (int64_t)n;
}

static int sv_range(lua_State *L, const zlua_fielddir *d, int kind)
{
	lua_pushfstring(L, "number out of range for %s", sv_kindname[kind]);
	return sv_fielderr(L, d, lua_tostring(L, -1));
}

/* Whether kind is unsigned. */
static int kind_unsigned(int kind)
{
	return (kind >= ZLUA_SV_U8 && kind <= ZLUA_SV_U64) || kind == ZLUA_SV_UINT ||
	       kind == ZLUA_SV_UINTPTR;
}

/* [lua] Converts the value at 3 to an unsigned kind like the Go setter
 * (callbackgate's readUint): integers, and numeric strings of them, from 0
 * up; floats with an integral value up to 2^64, which reads as MaxUint64
 * (it is the float every uint64 from 2^64 - 1024 up is pushed as); the
 * caller checks the narrower kinds' range. */
static uint64_t sv_touint(lua_State *L, const zlua_fielddir *d, int kind)
{
	lua_Number n;
	int t;
#ifndef ZLUA_LUAJIT
	/* exactly, as Lua reads "9223372036854775807" (a float would round
	 * it to 2^63); LuaJIT's lua_tointegerx truncates */
	lua_Integer i = lua_tointegerx(L, 3, &t);
	if (t) {
		if (i < 0)
			return (uint64_t)sv_range(L, d, kind);
		return (uint64_t)i;
	}
#endif
	t = lua_type(L, 3);
	if (t != LUA_TNUMBER && !(t == LUA_TSTRING && lua_isnumber(L, 3)))
		return (uint64_t)sv_typeerr(L, d, "number");
	n = lua_tonumber(L, 3);
	/* nan and inf, then a fraction (every float beyond 2^63 is integral) */
	if (n - n != 0 || (n >= -9223372036854775808.0 && n < 9223372036854775808.0 &&
			   (lua_Number)(int64_t)n != n))
		return (uint64_t)sv_fielderr(L, d, "number has no integer representation");
	if (n == 18446744073709551616.0)
		return UINT64_MAX;
	if (n < 0 || n > 18446744073709551616.0)
		return (uint64_t)sv_range(L, d, kind);
	return (uint64_t)n;
}

void zlua_sv_write(lua_State *L, const zlua_fielddir *d, int kind, unsigned char *q)
{
	int64_t i;
	uint64_t u;
	switch (kind) {
	case ZLUA_SV_F32:
	case ZLUA_SV_F64: {
		int isnum;
		/* numbers and numeric strings, in one call */
		lua_Number n = lua_tonumberx(L, 3, &isnum);
		if (!isnum) {
			sv_typeerr(L, d, "number");
			return;
		}
		if (kind == ZLUA_SV_F32) {
			float f;
			/* a finite number beyond float32 is refused (the Go setter
			 * agrees); inf and nan convert */
			if (n == n && (n > FLT_MAX || n < -FLT_MAX) && n - n == 0) {
				sv_range(L, d, kind);
				return;
			}
			f = (float)n;
			memcpy(q, &f, 4);
		} else {
			double v = (double)n;
			memcpy(q, &v, 8);
		}
		return;
	}
	case ZLUA_SV_BOOL:
		if (lua_type(L, 3) != LUA_TBOOLEAN) {
			sv_typeerr(L, d, "boolean");
			return;
		}
		*q = (unsigned char)lua_toboolean(L, 3);
		return;
	}
	if (kind_unsigned(kind)) {
		u = sv_touint(L, d, kind);
		switch (kind) {
		case ZLUA_SV_U8:
			if (u > UINT8_MAX) break;
			{ uint8_t v = (uint8_t)u; memcpy(q, &v, 1); }
			return;
		case ZLUA_SV_U16:
			if (u > UINT16_MAX) break;
			{ uint16_t v = (uint16_t)u; memcpy(q, &v, 2); }
			return;
		case ZLUA_SV_U32:
			if (u > UINT32_MAX) break;
			{ uint32_t v = (uint32_t)u; memcpy(q, &v, 4); }
			return;
		default: /* ZLUA_SV_U64, UINT, UINTPTR */
			memcpy(q, &u, 8);
			return;
		}
		sv_range(L, d, kind);
		return;
	}
	i = sv_toint(L, d);
	switch (kind) {
	case ZLUA_SV_I8:
		if (i < INT8_MIN || i > INT8_MAX) break;
		{ int8_t v = (int8_t)i; memcpy(q, &v, 1); }
		return;
	case ZLUA_SV_I16:
		if (i < INT16_MIN || i > INT16_MAX) break;
		{ int16_t v = (int16_t)i; memcpy(q, &v, 2); }
		return;
	case ZLUA_SV_I32:
		if (i < INT32_MIN || i > INT32_MAX) break;
		{ int32_t v = (int32_t)i; memcpy(q, &v, 4); }
		return;
	default: /* ZLUA_SV_I64, INT */
		memcpy(q, &i, 8);
		return;
	}
	sv_range(L, d, kind);
}
