/* structs.c: the C half of the StructRegistry. A Go struct pushed by value
 * becomes a ByVal userdata: blittable structs carry a copy of their bytes,
 * whose numeric and boolean fields are read and written here, from a
 * per-type field table, without entering Go; the others name a Go
 * companion slot released by a pure-C __gc. */
#include <float.h>

#include "zlua.h"

static uint32_t sv_u32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

size_t zlua_sv_push(lua_State *L, zlua_env *env, const unsigned char *p)
{
	uint32_t type_id = sv_u32(p), size = sv_u32(p + 8);
	uint32_t companion = sv_u32(p + 12), gen = sv_u32(p + 16);
	int mtref = (int)(int32_t)sv_u32(p + 4);
	ZLuaByValHeader *u = (ZLuaByValHeader *)zlua_newuserdata(L, sizeof *u + size);
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
	if (companion != 0)
		env->svstate[companion] = 1; /* from here on __gc owns the slot */
	return 20 + size;
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

/* The C copy of a type's field table, upvalue of its __index and
 * __newindex: the type id and, per field, its interned name and code.
 * Interned strings (all of LuaJIT's, Lua 5.4's up to 40 bytes) are unique
 * and never move, so a key is found by comparing pointers, in fewer API
 * calls than a table lookup; the field table (upvalue 1, which keeps the
 * names alive) serves the rest. */
typedef struct zlua_svdir {
	uint32_t magic; /* ZLUA_DIRMAGIC */
	uint32_t type_id;
	uint32_t n;
	uint32_t pad;
	struct {
		const char *name;
		lua_Integer code;
	} f[1];
} zlua_svdir;

/* [lua] Pushes the directory of the field table at t. [-0, +1] */
static void sv_newdir(lua_State *L, int t, uint32_t type_id)
{
	uint32_t n = 0;
	zlua_svdir *d;
	lua_pushnil(L);
	while (lua_next(L, t)) {
		n++;
		lua_pop(L, 1);
	}
	d = (zlua_svdir *)zlua_newuserdata(L, sizeof *d + (n ? n - 1 : 0) * sizeof d->f[0]);
	d->magic = ZLUA_DIRMAGIC;
	d->pad = 0;
	d->type_id = type_id;
	d->n = 0;
	lua_pushnil(L);
	while (lua_next(L, t)) {
		if (lua_type(L, -2) == LUA_TSTRING && d->n < n) {
			d->f[d->n].name = lua_tostring(L, -2);
			d->f[d->n].code = lua_tointeger(L, -1);
			d->n++;
		}
		lua_pop(L, 1);
	}
}

void zlua_sv_indexer(lua_State *L, zlua_env *env)
{
	int mt = lua_gettop(L) - 6;
	(void)env; /* the metamethods find it with zlua_envof */
	sv_newdir(L, mt + 1, (uint32_t)lua_tointeger(L, mt + 5));
	lua_replace(L, mt + 5);
	/* __index: fields, methods, getter, directory */
	lua_pushvalue(L, mt + 1);
	lua_pushvalue(L, mt + 2);
	lua_pushvalue(L, mt + 3);
	lua_pushvalue(L, mt + 5);
	lua_pushcclosure(L, zlua_sv_index, 4);
	lua_setfield(L, mt, "__index");
	/* __newindex: fields, setter, directory, name */
	lua_pushvalue(L, mt + 1);
	lua_pushvalue(L, mt + 4);
	lua_pushvalue(L, mt + 5);
	lua_pushvalue(L, mt + 6);
	lua_pushcclosure(L, zlua_sv_newindex, 4);
	lua_setfield(L, mt, "__newindex");
	lua_settop(L, mt);
}

/* [lua] The directory in upvalue idx, or NULL. debug.setupvalue can put
 * any value there: a userdata counts as a directory only with the magic
 * and the length its entry count needs. Entries still come from memory a
 * C module's userdata could imitate, so field accesses are bounds-checked
 * against the payload too (sv_field). [-0, +0] */
static const zlua_svdir *sv_dir(lua_State *L, int idx)
{
	const zlua_svdir *d = (const zlua_svdir *)lua_touserdata(L, idx);
	size_t len;
	if (d == NULL) /* not a userdata */
		return NULL;
	len = zlua_rawlen(L, idx); /* 0 for a light userdata: never read */
	if (len < sizeof *d || d->magic != ZLUA_DIRMAGIC ||
	    d->n > (len - sizeof *d) / sizeof d->f[0] + 1)
		return NULL;
	return d;
}

/* Bytes a field of kind occupies; 0 for a code that names no kind. */
static size_t sv_width(int kind)
{
	switch (kind) {
	case ZLUA_SV_I8: case ZLUA_SV_U8: case ZLUA_SV_BOOL: return 1;
	case ZLUA_SV_I16: case ZLUA_SV_U16: return 2;
	case ZLUA_SV_I32: case ZLUA_SV_U32: case ZLUA_SV_F32: return 4;
	case ZLUA_SV_I64: case ZLUA_SV_U64: case ZLUA_SV_F64: return 8;
	}
	return 0;
}

/* The field of code inside a payload of size bytes at q, or NULL when the
 * code's kind or extent does not fit (a code a script forged through a
 * replaced field table or directory). */
static unsigned char *sv_field(unsigned char *q, uint32_t size, lua_Integer code)
{
	size_t w = sv_width((int)(code & 0xff));
	lua_Integer off = code >> 8;
	if (w == 0 || off < 0 || (uint64_t)off > size || size - (uint64_t)off < w)
		return NULL;
	return q + off;
}

/* [lua] The payload of the blittable ByVal userdata at idx when it is one
 * of the type of directory d (its size in *size); NULL otherwise. The
 * metamethods can be fetched with debug.getmetatable and called on
 * anything, hence the type and size checks before the header is read.
 * [-0, +0] */
static unsigned char *sv_payload(lua_State *L, int idx, const zlua_svdir *d, uint32_t *size)
{
	size_t len;
	/* NULL for anything but a userdata (LuaJIT's objlen would convert a
	 * number), and the length of a light userdata is 0: never read */
	ZLuaByValHeader *u = (ZLuaByValHeader *)lua_touserdata(L, idx);
	if (u == NULL)
		return NULL;
	len = zlua_rawlen(L, idx);
	if (len < sizeof *u)
		return NULL;
	if (u->header.magic != ZLUA_MAGIC || len < sizeof *u + u->size ||
	    u->header.kind != ZLUA_KIND_BYVAL || u->companion != 0 ||
	    u->header.type_id != d->type_id)
		return NULL;
	*size = u->size;
	return ZLUA_BYVAL_PAYLOAD(u);
}

/* [lua] The code of the string key at 2: from the directory by pointer,
 * else from the field table (upvalue 1); -1 when not a C field. */
static lua_Integer sv_code(lua_State *L, const zlua_svdir *d)
{
	const char *k = lua_tostring(L, 2);
	lua_Integer code = -1;
	uint32_t i;
	for (i = 0; i < d->n; i++)
		if (d->f[i].name == k)
			return d->f[i].code;
	if (lua_type(L, lua_upvalueindex(1)) != LUA_TTABLE) /* replaced by a script */
		return -1;
	lua_pushvalue(L, 2);
	lua_rawget(L, lua_upvalueindex(1));
	if (lua_type(L, -1) == LUA_TNUMBER)
		code = lua_tointeger(L, -1);
	lua_pop(L, 1);
	return code;
}

#ifdef ZLUA_LUAJIT
#define sv_pushint(L, i) lua_pushnumber((L), (lua_Number)(i))
#else
#define sv_pushint(L, i) lua_pushinteger((L), (lua_Integer)(i))
#endif

/* [lua] Pushes the field of kind at q. [-0, +1] */
static void sv_read(lua_State *L, int kind, const unsigned char *q)
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
	case ZLUA_SV_I64: memcpy(&v.i64, q, 8); sv_pushint(L, v.i64); break;
	case ZLUA_SV_U8: memcpy(&v.u8, q, 1); sv_pushint(L, v.u8); break;
	case ZLUA_SV_U16: memcpy(&v.u16, q, 2); sv_pushint(L, v.u16); break;
	case ZLUA_SV_U32: memcpy(&v.u32, q, 4); sv_pushint(L, v.u32); break;
	case ZLUA_SV_U64:
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

int zlua_sv_index(lua_State *L)
{
	if (lua_type(L, 2) == LUA_TSTRING) {
		const zlua_svdir *d = sv_dir(L, lua_upvalueindex(4));
		uint32_t size;
		unsigned char *q = d != NULL ? sv_payload(L, 1, d, &size) : NULL;
		if (q != NULL) {
			lua_Integer code = sv_code(L, d);
			unsigned char *f = code >= 0 ? sv_field(q, size, code) : NULL;
			if (f != NULL) {
				sv_read(L, (int)(code & 0xff), f);
				return 1;
			}
		}
		lua_settop(L, 2);
		if (lua_type(L, lua_upvalueindex(2)) == LUA_TTABLE) {
			lua_pushvalue(L, 2);
			lua_rawget(L, lua_upvalueindex(2));
			if (!lua_isnil(L, -1))
				return 1; /* a method: no Go call */
			lua_pop(L, 1);
		}
	}
	lua_settop(L, 2);
	lua_pushvalue(L, lua_upvalueindex(3));
	lua_insert(L, 1);
	lua_call(L, 2, 1);
	return 1;
}

static const char *const sv_kindname[] = {
	"", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
	"uint64", "float32", "float64", "bool"
};

/* [lua] Raises the field error of the value at 3, in the words of the Go
 * field setter. */
static int sv_fielderr(lua_State *L, const char *detail)
{
	/* upvalue 4 is the type's name unless a script replaced it */
	const char *type = lua_type(L, lua_upvalueindex(4)) == LUA_TSTRING ?
		lua_tostring(L, lua_upvalueindex(4)) : "?";
	return luaL_error(L, "bad value for field '%s' of %s (%s)", lua_tostring(L, 2), type, detail);
}

static int sv_typeerr(lua_State *L, const char *want)
{
	const char *got = zlua_typename(zlua_envof(L), L, 3);
	lua_pushfstring(L, "%s expected, got %s", want, got);
	return sv_fielderr(L, lua_tostring(L, -1));
}

/* [lua] Converts the value at 3 to an integer like the Go setter: numbers
 * and numeric strings with an integral value. */
static int64_t sv_toint(lua_State *L)
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
		return sv_typeerr(L, "number");
	n = lua_tonumber(L, 3);
	if (!(n >= -9223372036854775808.0 && n < 9223372036854775808.0) ||
	    (lua_Number)(int64_t)n != n)
		return sv_fielderr(L, "number has no integer representation");
	return (int64_t)n;
}

static int sv_range(lua_State *L, int kind)
{
	lua_pushfstring(L, "number out of range for %s", sv_kindname[kind]);
	return sv_fielderr(L, lua_tostring(L, -1));
}

/* [lua] Stores a float from 2^63 up to 2^64 at 3 into the uint64 at q,
 * as the Go setter does (Go pushes an uint64 above INT64_MAX as the
 * nearest float); refuses other floats beyond int64 like it. Returns 0 for
 * values the integer path handles. */
static int sv_write_u64(lua_State *L, unsigned char *q)
{
	int t = lua_type(L, 3);
	lua_Number n;
	uint64_t v;
#ifndef ZLUA_LUAJIT
	if (t == LUA_TNUMBER && lua_isinteger(L, 3))
		return 0;
#endif
	if (t != LUA_TNUMBER && !(t == LUA_TSTRING && lua_isnumber(L, 3)))
		return 0;
	n = lua_tonumber(L, 3);
	if (!(n >= 9223372036854775808.0)) /* also nan */
		return 0;
	/* every float from 2^53 up is integral */
	if (n - n != 0)
		return sv_fielderr(L, "number has no integer representation"); /* inf */
	if (n >= 18446744073709551616.0)
		return sv_range(L, ZLUA_SV_U64);
	v = (uint64_t)n;
	memcpy(q, &v, 8);
	return 1;
}

/* [lua] Stores the value at 3 as kind at q. */
static void sv_write(lua_State *L, int kind, unsigned char *q)
{
	int64_t i;
	switch (kind) {
	case ZLUA_SV_F32:
	case ZLUA_SV_F64: {
		int isnum;
		/* numbers and numeric strings, in one call */
		lua_Number n = lua_tonumberx(L, 3, &isnum);
		if (!isnum) {
			sv_typeerr(L, "number");
			return;
		}
		if (kind == ZLUA_SV_F32) {
			float f;
			/* a finite number beyond float32 is refused (the Go setter
			 * agrees); inf and nan convert */
			if (n == n && (n > FLT_MAX || n < -FLT_MAX) && n - n == 0) {
				sv_range(L, kind);
				return;
			}
			f = (float)n;
			memcpy(q, &f, 4);
		} else {
			double d = (double)n;
			memcpy(q, &d, 8);
		}
		return;
	}
	case ZLUA_SV_BOOL:
		if (lua_type(L, 3) != LUA_TBOOLEAN) {
			sv_typeerr(L, "boolean");
			return;
		}
		*q = (unsigned char)lua_toboolean(L, 3);
		return;
	case ZLUA_SV_U64:
		if (sv_write_u64(L, q))
			return;
		break;
	}
	i = sv_toint(L);
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
	case ZLUA_SV_I64:
		memcpy(q, &i, 8);
		return;
	case ZLUA_SV_U8:
		if (i < 0 || i > UINT8_MAX) break;
		{ uint8_t v = (uint8_t)i; memcpy(q, &v, 1); }
		return;
	case ZLUA_SV_U16:
		if (i < 0 || i > UINT16_MAX) break;
		{ uint16_t v = (uint16_t)i; memcpy(q, &v, 2); }
		return;
	case ZLUA_SV_U32:
		if (i < 0 || i > (int64_t)UINT32_MAX) break;
		{ uint32_t v = (uint32_t)i; memcpy(q, &v, 4); }
		return;
	default: /* ZLUA_SV_U64 */
		if (i < 0) break;
		{ uint64_t v = (uint64_t)i; memcpy(q, &v, 8); }
		return;
	}
	sv_range(L, kind);
}

int zlua_sv_newindex(lua_State *L)
{
	if (lua_type(L, 2) == LUA_TSTRING) {
		const zlua_svdir *d = sv_dir(L, lua_upvalueindex(3));
		uint32_t size;
		unsigned char *q = d != NULL ? sv_payload(L, 1, d, &size) : NULL;
		if (q != NULL) {
			lua_Integer code = sv_code(L, d);
			unsigned char *f = code >= 0 ? sv_field(q, size, code) : NULL;
			if (f != NULL) {
				sv_write(L, (int)(code & 0xff), f);
				return 0;
			}
		}
	}
	lua_settop(L, 3);
	lua_pushvalue(L, lua_upvalueindex(2));
	lua_insert(L, 1);
	lua_call(L, 3, 0);
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
	lua_settop(L, top);
	return 0;
}

int zlua_svstate_reserve(zlua_env *env, size_t n)
{
	size_t cap = env->svstate_cap ? env->svstate_cap : 1024;
	unsigned char *p;
	if (n < env->svstate_cap)
		return 1;
	while (cap <= n)
		cap *= 2;
	p = (unsigned char *)realloc(env->svstate, cap);
	if (p == NULL)
		return 0;
	memset(p + env->svstate_cap, 0, cap - env->svstate_cap);
	env->svstate = p;
	env->svstate_cap = cap;
	return 1;
}
