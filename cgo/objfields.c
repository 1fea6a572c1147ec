/* objfields.c: ByObj work done without entering Go. Numeric and boolean
 * fields of a Go struct are read and written through its address, which
 * Go stores in the userdata once it has pinned the object (on the first
 * field access that reaches Go, so pushes never pay for it). __eq is
 * decided here when identity is known in C. A type without fields indexes
 * its methods table directly. */
#include "zlua.h"

/* The ByObj userdata at 1 as the C field functions see it. */
typedef struct objref {
	ZLuaObjectUserData *u;
	zlua_env *env;
	const zlua_fielddir *d; /* its binding's directory */
	int proven;             /* u is in the proven-address cache: ours */
} objref;

/* [lua] Whether the value at 1 is a live ByObj userdata whose object Go
 * has pinned, of a binding with a directory; fills o. Only the header is
 * checked here, the metatable by obj_ours once a field was found. The
 * metamethods can be fetched with debug.getmetatable and called on
 * anything, and their upvalues replaced with debug.setupvalue: nothing
 * here comes from an upvalue. [-0, +0] */
static int obj_fields(lua_State *L, objref *o)
{
	ZLuaObjectUserData *u = (ZLuaObjectUserData *)lua_touserdata(L, 1);
	if (u == NULL)
		return 0; /* not a userdata */
	o->env = zlua_envof(L);
	/* A proven address needs no length and magic check (and is ours);
	 * else a light userdata has length 0. */
	o->proven = zlua_isproven(o->env, u);
	if ((!o->proven && (zlua_rawlen(L, 1) != sizeof *u || u->header.magic != ZLUA_MAGIC)) ||
	    u->header.kind != ZLUA_KIND_BYOBJ || (u->header.flags & ZLUA_F_RELEASED) || u->ptr == 0)
		return 0;
	o->u = u;
	o->d = zlua_dir(o->env, ZLUA_DIR_OBJ, u->header.type_id);
	return o->d != NULL;
}

/* [lua] Whether the userdata of o is this env's: only zlua writes
 * headers, but what proves the header is one is the userdata's address
 * (the proven-address cache, or the keyed userdata of its slot, read.c)
 * or else the identity of its metatable. [-0, +0] */
static int obj_ours(lua_State *L, const objref *o)
{
	if (o->proven)
		return 1;
	if (!zlua_ownaddr(o->env, o->u) && !zlua_ownmt(o->env, L, 1, &o->u->header))
		return 0;
	zlua_prove(o->env, o->u); /* obj_fields checked its length */
	return 1;
}

/* The address of field f of o's object. */
static unsigned char *obj_field(const objref *o, const zlua_dirent *f)
{
	return (unsigned char *)(uintptr_t)o->u->ptr + (f->code >> 8);
}

ZLUA_HOT int zlua_obj_findex(lua_State *L)
{
	objref o;
	const zlua_dirent *f = NULL;
	if (lua_type(L, lua_upvalueindex(1)) == LUA_TTABLE) {
		/* Lua 5.4: one lookup answers both: the methods table also maps
		 * each C field's name to its index in the directory. */
		int t;
		lua_pushvalue(L, 2); /* nil when called without a key */
		t = zlua_rawget_type(L, lua_upvalueindex(1));
		if (t != LUA_TNUMBER && t != LUA_TNIL)
			return 1; /* a method */
		if (t == LUA_TNUMBER && obj_fields(L, &o)) {
			/* the binding id << 32 | the index: an index means
			 * nothing in another binding's directory (this
			 * __index called on another type's object through
			 * debug.getmetatable), which the Go getter refuses */
			uint64_t v = (uint64_t)lua_tointeger(L, -1);
			if (v >> 32 == o.u->header.type_id && (v & 0xffffffffu) < zlua_dir_count(o.d))
				f = zlua_dir_entry(o.d, (size_t)(v & 0xffffffffu));
		}
	} else if (lua_type(L, 2) == LUA_TSTRING && obj_fields(L, &o) &&
		   (uint64_t)lua_tointeger(L, lua_upvalueindex(1)) == o.u->header.type_id) {
		/* LuaJIT: its Lua closure looked methods up; upvalue 1 is the
		 * binding id (another binding's object: the Go getter) */
		f = zlua_dir_find(L, o.d);
	}
	if (f != NULL && obj_ours(L, &o)) {
		zlua_sv_read(L, (int)(f->code & 0xff), obj_field(&o, f));
		return 1;
	}
	lua_settop(L, 2);
	lua_pushvalue(L, lua_upvalueindex(2));
	lua_insert(L, 1);
	lua_call(L, 2, 1);
	return 1;
}

int zlua_obj_fnewindex(lua_State *L)
{
	objref o;
	const zlua_dirent *f;
	if (lua_type(L, 2) == LUA_TSTRING && obj_fields(L, &o) &&
	    (f = zlua_dir_find(L, o.d)) != NULL && obj_ours(L, &o)) {
		zlua_sv_write(L, o.d, (int)(f->code & 0xff), obj_field(&o, f));
		return 0;
	}
	lua_settop(L, 3);
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, 3, 0);
	return 0;
}

void zlua_obj_fields(lua_State *L, zlua_env *env)
{
	int mt = lua_gettop(L) - 7;
	/* a program op is only sure of 3 free slots (zlua_prog_run); this
	 * one pushes up to 10 */
	luaL_checkstack(L, 12, "zlua: too many values");
	zlua_dir_make(L, env, ZLUA_DIR_OBJ, mt + 4, (uint32_t)lua_tointeger(L, mt + 5),
		      (size_t)lua_tointeger(L, mt + 6), lua_tostring(L, mt + 7));
#ifdef ZLUA_LUAJIT
	{
		/* The JIT compiles the Lua closures (jitindex.c): methods are
		 * table hits, the fields of the directory (name -> index, -1 -
		 * index for booleans) are FFI calls, and only what those refuse
		 * calls the C closures. */
		uint32_t tid = (uint32_t)lua_tointeger(L, mt + 5);
		const zlua_fielddir *d = zlua_dir(env, ZLUA_DIR_OBJ, tid);
		lua_rawgeti(L, LUA_REGISTRYINDEX, env->indexer_ref);
		lua_pushvalue(L, mt + 1);
		lua_pushnumber(L, (lua_Number)tid);
		lua_pushvalue(L, mt + 2);
		lua_pushcclosure(L, zlua_obj_findex, 2);
		zlua_jit_fieldtable(L, d);
		lua_pushnumber(L, (lua_Number)tid);
		lua_pushvalue(L, mt + 3);
		lua_pushcclosure(L, zlua_obj_fnewindex, 1);
		lua_call(L, 5, 2);
		if (!lua_isnil(L, -1))
			lua_setfield(L, mt, "__newindex");
		else
			lua_pop(L, 1);
	}
#else
	{
		/* the methods table also maps each C field to its binding id
		 * << 32 | its directory index */
		uint32_t tid = (uint32_t)lua_tointeger(L, mt + 5);
		const zlua_fielddir *d = zlua_dir(env, ZLUA_DIR_OBJ, tid);
		size_t i, n = d != NULL ? zlua_dir_count(d) : 0;
		for (i = 0; i < n; i++) {
			const zlua_dirent *f = zlua_dir_entry(d, i);
			lua_pushlstring(L, f->name, f->len);
			lua_pushinteger(L, (lua_Integer)((uint64_t)tid << 32 | i));
			lua_rawset(L, mt + 1);
		}
	}
	lua_pushvalue(L, mt + 1);
	lua_pushvalue(L, mt + 2);
	lua_pushcclosure(L, zlua_obj_findex, 2);
#endif
	lua_setfield(L, mt, "__index");
	lua_getfield(L, mt, "__newindex"); /* LuaJIT: the FFI closure, if any */
	if (lua_isnil(L, -1)) {
		lua_pushvalue(L, mt + 3);
		lua_pushcclosure(L, zlua_obj_fnewindex, 1);
		lua_setfield(L, mt, "__newindex");
	}
	lua_settop(L, mt);
}

void zlua_obj_plainindex(lua_State *L, zlua_env *env)
{
	int mt = lua_gettop(L) - 2;
	(void)env;
	lua_createtable(L, 0, 1);
	lua_pushvalue(L, mt + 2);
	lua_pushcclosure(L, zlua_obj_nokey, 1);
	lua_setfield(L, -2, "__index");
	lua_setmetatable(L, mt + 1);
	lua_pushvalue(L, mt + 1);
	lua_setfield(L, mt, "__index");
	lua_settop(L, mt);
}

int zlua_obj_nokey(lua_State *L)
{
	int t = lua_type(L, 2);
	luaL_where(L, 1);
	if (lua_type(L, lua_upvalueindex(1)) == LUA_TSTRING)
		lua_pushvalue(L, lua_upvalueindex(1));
	else
		lua_pushliteral(L, "?");
	lua_pushliteral(L, " has no field or method '");
	/* the key as the Go getter spells it (Lua's tostring for numbers) */
	if (t == LUA_TSTRING) {
		lua_pushvalue(L, 2);
	} else if (t == LUA_TNUMBER && lua_tonumber(L, 2) != lua_tonumber(L, 2)) {
		lua_pushliteral(L, "nan");
	} else if (t == LUA_TNUMBER) {
		lua_pushvalue(L, 2);
		lua_tostring(L, -1); /* converts the copy */
	} else {
		lua_pushfstring(L, "(%s key)", zlua_typename(zlua_envof(L), L, 2));
	}
	lua_pushliteral(L, "'");
	lua_concat(L, 5);
	return lua_error(L);
}

/* Whether the value at idx is a full userdata of exactly a ByObj
 * userdata's size with zlua's header, kind ByObj and not released (a light
 * userdata has length 0). The metatable is not checked here. [-0, +0] */
static ZLUA_HOT const ZLuaObjectUserData *byobj_at(zlua_env *env, lua_State *L, int idx, int *proven)
{
	const ZLuaObjectUserData *u = (const ZLuaObjectUserData *)lua_touserdata(L, idx);
	if (u == NULL)
		return NULL;
	/* a proven address needs no length and magic check, and is ours */
	*proven = zlua_isproven(env, u);
	if ((!*proven && (zlua_rawlen(L, idx) != sizeof *u || u->header.magic != ZLUA_MAGIC)) ||
	    u->header.kind != ZLUA_KIND_BYOBJ || (u->header.flags & ZLUA_F_RELEASED))
		return NULL;
	return u;
}

ZLUA_HOT int zlua_obj_eq(lua_State *L)
{
	zlua_env *env = zlua_envof(L);
	int pa = 0, pb = 0;
	const ZLuaObjectUserData *ua = byobj_at(env, L, 1, &pa),
				 *ub = ua != NULL ? byobj_at(env, L, 2, &pb) : NULL;
	const zlua_udheader *a, *b;
	int ours = 0;
	/* Both must be env's (zlua_toown's rule): proved by their addresses
	 * (the proven-address cache, or keyed userdata, read.c), else by their
	 * metatables, checked with both pushed at once: one pop instead of
	 * two. */
	if (ub != NULL && (pa || zlua_ownaddr(env, ua)) && (pb || zlua_ownaddr(env, ub))) {
		ours = 1;
	} else if (ub != NULL && lua_getmetatable(L, 1)) {
		if (lua_getmetatable(L, 2)) {
			ours = zlua_ownmt_at(env, L, -2, &ua->header) &&
			       zlua_ownmt_at(env, L, -1, &ub->header);
			lua_pop(L, 2);
		} else {
			lua_pop(L, 1);
		}
	}
	if (!ours) {
		lua_pushboolean(L, 0); /* what the Go __eq answers for these */
		return 1;
	}
	a = &ua->header;
	b = &ub->header;
	if (ua->slot == ub->slot && ua->gen == ub->gen) {
		lua_pushboolean(L, 1);
		return 1;
	}
	/* One live keyed userdata per (object, binding): another slot of the
	 * same binding is another object. */
	if (a->type_id == b->type_id && (a->flags & b->flags & ZLUA_F_KEYED)) {
		lua_pushboolean(L, 0);
		return 1;
	}
	/* The same object through two bindings (views), or unkeyed. */
	lua_settop(L, 2);
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, 2, 1);
	return 1;
}
