/* sandbox.c: the safe library set (Options.Libs = LibsSafe). The standard
 * libraries are opened, then everything that reaches files, processes, the
 * C loader, bytecode, the debug interface or raw memory is removed, and the
 * few functions that could bypass that are replaced. docs/SANDBOX.md lists
 * the result. */
#include "zlua.h"

static const char *const removed_globals[] = {
	"io", "debug", "dofile", "loadfile", "jit", "newproxy", NULL
};
static const char *const kept_os[] = { "time", "clock", "date", "difftime", NULL };
static const char *const removed_package[] = {
	"loadlib", "searchpath", "cpath", "path", NULL
};
/* collectgarbage options that stop or retune the collector of a state
 * other scripts share are refused; "collect", "count" and "step" go to the
 * stock function; any other option is refused in the stock words, named
 * here (the stock function, called from this C function, would say '?'). */
static const char *const refused_gc[] = { "stop",         "restart",      "setpause",  "setstepmul",
					  "incremental", "generational", "isrunning", NULL };
static const char *const allowed_gc[] = { "collect", "count", "step", NULL };

/* The most a reader's pieces may add up to in the sandbox's load on
 * LuaJIT, which gathers them before parsing (a MemoryLimit or a deadline
 * stops it sooner). */
#define ZLUA_LOAD_GATHER_MAX ((size_t)64 << 20)

#ifndef ZLUA_LUAJIT
/* The stack slot stream_reader keeps the current piece in (after the
 * reader, name, mode and env arguments), as stock load's reserved slot. */
#define ZLUA_READER_SLOT 5

/* [lua] lua_Reader of the sandbox's load on Lua 5.4, as stock load's
 * generic_reader: calls the reader function at 1 and keeps the piece
 * it returned in ZLUA_READER_SLOT while the parser reads it; raises the
 * reader's error or "reader function must return a string" (lua_load
 * catches both). [-0, +0] */
static const char *stream_reader(lua_State *L, void *ud, size_t *size)
{
	(void)ud;
	luaL_checkstack(L, 2, "too many nested functions");
	lua_pushvalue(L, 1);
	lua_call(L, 0, 1);
	if (lua_isnil(L, -1)) {
		lua_pop(L, 1);
		*size = 0;
		return NULL;
	}
	if (!lua_isstring(L, -1))
		luaL_error(L, "reader function must return a string");
	lua_replace(L, ZLUA_READER_SLOT);
	return lua_tolstring(L, ZLUA_READER_SLOT, size);
}
#endif

/* [lua] Appends piece 3 to the table of pieces 1 at index 2. Called
 * under protection: a memory error growing the table is load's "nil,
 * message". [-0, +0] */
static int append_piece(lua_State *L)
{
	lua_settop(L, 3);
	lua_rawseti(L, 1, (int)lua_tointeger(L, 2));
	return 0;
}

/* [lua] The pieces of table 1, 1..n (n at 2), concatenated. Called under
 * protection, as append_piece. [-0, +1] */
static int concat_pieces(lua_State *L)
{
	luaL_Buffer b;
	int i, n = (int)lua_tointeger(L, 2);
	luaL_buffinit(L, &b);
	for (i = 1; i <= n; i++) {
		lua_rawgeti(L, 1, i);
		luaL_addvalue(&b);
	}
	luaL_pushresult(&b);
	return 1;
}

/* [lua] safe_load's gathering of reader function 1's pieces into one
 * string at 1. The reader is called from safe_load itself, as stock load
 * calls it from its own C function (its error levels and the C levels of
 * nested loads are the stock ones); storing and joining the pieces runs
 * under protection. Returns 0 done; 1 with load's two results pushed (the
 * reader's error, a non-string piece, a memory error, too much).
 * [-0, +0] on 0 (the string replaces argument 1); [-0, +2] on 1 */
static int gather_reader(lua_State *L)
{
	size_t total = 0, len;
	int n = 0, tab;
	/* pushed once (LuaJIT's lua_pushcfunction allocates a closure,
	 * which in the loop would raise a memory error outside protection) */
	lua_pushcfunction(L, append_piece);
	lua_pushcfunction(L, concat_pieces);
	lua_newtable(L);
	tab = lua_gettop(L);
	for (;;) {
		const char *p;
		lua_pushvalue(L, 1);
		if (lua_pcall(L, 0, 1, 0) != LUA_OK)
			goto fail; /* the reader's error */
		if (lua_isnil(L, -1) || (lua_type(L, -1) == LUA_TSTRING && zlua_rawlen(L, -1) == 0)) {
			lua_pop(L, 1);
			break;
		}
		if (!lua_isstring(L, -1)) { /* a number is a string here, as in stock */
			lua_pop(L, 1);
			lua_pushnil(L);
			/* the stock words, at the caller's position as both
			 * backends give it (on LuaJIT the caller is zlua.cstack's
			 * wrapper, which puts its own caller's position instead) */
			luaL_where(L, 1);
			lua_pushliteral(L, "reader function must return a string");
			lua_concat(L, 2);
			return 1;
		}
		p = lua_tolstring(L, -1, &len);
		if (len > ZLUA_LOAD_GATHER_MAX - total) {
			/* the stock load parses as it reads and stops a reader that
			 * never ends at its first error; gathering first must stop
			 * somewhere too (probe Z2-F1: a reader of "x x " forever
			 * took the host's memory) */
			lua_pop(L, 1);
			lua_pushliteral(L, "chunk too large for the sandbox's load");
			goto fail;
		}
		total += len;
		/* piece on top: append_piece(tab, n + 1, piece) */
		lua_pushvalue(L, tab - 2); /* append_piece */
		lua_pushvalue(L, tab);
		lua_pushinteger(L, ++n);
		lua_pushvalue(L, -4);
		if (lua_pcall(L, 3, 0, 0) != LUA_OK)
			goto fail; /* no memory for it */
		lua_pop(L, 1);
		if (n == 1 && p[0] == LUA_SIGNATURE[0])
			break; /* a binary chunk: refused at its first piece */
	}
	lua_pushvalue(L, tab - 1); /* concat_pieces */
	lua_pushvalue(L, tab);
	lua_pushinteger(L, n);
	if (lua_pcall(L, 2, 1, 0) != LUA_OK)
		goto fail;
	lua_replace(L, 1);
	lua_settop(L, tab - 3);
	return 0;
fail: /* the error value on top */
	lua_pushnil(L);
	lua_insert(L, -2);
	return 1;
}

/* [lua] load / loadstring that only accept text. On Lua 5.4 a reader
 * function goes to the stock load with mode "t", which streams its pieces
 * into the parser; on LuaJIT (and for a mode without 't') its pieces are
 * gathered first, the binary check made on the first: LuaJIT's own load
 * runs the reader inside a C protected call, where an interruption the
 * hook raises leaves the state's hooks off (cstack.c). Upvalue 1: the
 * original load. */
static int safe_load(lua_State *L)
{
	int n = lua_gettop(L), base, t1 = lua_type(L, 1);
	size_t len;
	const char *s, *mode;
	/* The stock checks and words, in the backend's order, before anything
	 * runs: an optional mode and an optional name (LuaJIT checks the name
	 * first), then a chunk (string) or a reader (function). */
#ifdef ZLUA_LUAJIT
	luaL_optstring(L, 2, NULL);
	mode = luaL_optstring(L, 3, "bt");
#else
	mode = luaL_optstring(L, 3, "bt");
	luaL_optstring(L, 2, NULL);
#endif
	if (t1 != LUA_TSTRING && t1 != LUA_TNUMBER)
		luaL_checktype(L, 1, LUA_TFUNCTION);
	if (n < 2) {
		lua_settop(L, 2); /* a chunk name slot; the env stays absent */
		n = 2;
	}
#ifndef ZLUA_LUAJIT
	if (lua_type(L, 1) == LUA_TFUNCTION && strchr(mode, 't') != NULL) {
		/* Lua 5.4: streamed into the parser, text only, as the stock
		 * load does it (luaB_load): the reader called from lua_load
		 * inside this function, so its error levels and the C levels of
		 * nested loads are the stock ones */
		int env = n >= 4, st;
		const char *name = luaL_optstring(L, 2, "=(load)");
		lua_settop(L, ZLUA_READER_SLOT);
		st = lua_load(L, stream_reader, NULL, name, "t");
		if (st != LUA_OK) {
			lua_pushnil(L);
			lua_insert(L, -2);
			return 2;
		}
		if (env) {
			lua_pushvalue(L, 4);
			if (!lua_setupvalue(L, -2, 1))
				lua_pop(L, 1);
		}
		return 1;
	}
#endif
	if (lua_type(L, 1) == LUA_TFUNCTION) {
		if (lua_isnil(L, 2)) {
			lua_pushliteral(L, "=(load)");
			lua_replace(L, 2);
		}
		/* as stock load, nil and the message for an error while
		 * reading, a memory error gathering the pieces included (probe
		 * Z3-F8: it was raised) */
		if (gather_reader(L))
			return 2;
	}
	s = luaL_checklstring(L, 1, &len);
	if (len > 0 && s[0] == LUA_SIGNATURE[0]) {
		lua_pushnil(L);
		lua_pushliteral(L, "attempt to load a binary chunk (mode is 't')");
		return 2;
	}
	if (strchr(mode, 't') == NULL) { /* a text chunk the script refused */
		lua_pushnil(L);
#ifdef ZLUA_LUAJIT
		lua_pushliteral(L, "attempt to load chunk with wrong mode");
#else
		lua_pushfstring(L, "attempt to load a text chunk (mode is '%s')", mode);
#endif
		return 2;
	}
	if (len > ZLUA_LOAD_PIECE && zlua_envof(L)->limit_depth > 0) {
		/* Inside a limited call the parser gets the chunk in pieces,
		 * and the interruption between two (zlua_load_chunk). Loaded
		 * here, through a C reader, not by giving the original load a
		 * reader function: on LuaJIT the hurried hook's call event would
		 * raise inside that function's call, which leaves LuaJIT's hooks
		 * off for good (cstack.c). Then as the stock load ends: the
		 * chunk named by itself by default, the env argument set (5.4:
		 * the first upvalue; LuaJIT: a table as the environment), nil
		 * and the message on failure. */
		int st = zlua_load_chunk(L, zlua_envof(L), s, len, luaL_optstring(L, 2, s), "t");
		if (st != LUA_OK) {
			lua_pushnil(L);
			lua_insert(L, -2);
			return 2;
		}
		if (n >= 4) {
#ifdef ZLUA_LUAJIT
			if (lua_istable(L, 4)) {
				lua_pushvalue(L, 4);
				lua_setfenv(L, -2);
			}
#else
			lua_pushvalue(L, 4);
			if (!lua_setupvalue(L, -2, 1))
				lua_pop(L, 1);
#endif
		}
		return 1;
	}
	base = lua_gettop(L);
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_pushvalue(L, 1);
	lua_pushvalue(L, 2);
	lua_pushliteral(L, "t");
	if (n >= 4)
		lua_pushvalue(L, 4); /* env, kept only when given (even nil) */
	lua_call(L, n >= 4 ? 4 : 3, LUA_MULTRET);
	return lua_gettop(L) - base;
}

/* [lua] collectgarbage limited to options that cannot stop or retune the
 * collector for the scripts that share the state. Upvalue 1: original. */
static int safe_collectgarbage(lua_State *L)
{
	const char *opt = luaL_optstring(L, 1, "collect");
	int i, n = lua_gettop(L), base;
	for (i = 0; refused_gc[i] != NULL; i++)
		if (strcmp(opt, refused_gc[i]) == 0)
			return luaL_argerror(L, 1, lua_pushfstring(L, "option '%s' is not allowed in the sandbox", opt));
	for (i = 0; allowed_gc[i] != NULL; i++)
		if (strcmp(opt, allowed_gc[i]) == 0)
			break;
	if (allowed_gc[i] == NULL)
		return luaL_argerror(L, 1, lua_pushfstring(L, "invalid option '%s'", opt));
#ifndef ZLUA_LUAJIT
	if (strcmp(opt, "step") == 0)
		luaL_optinteger(L, 2, 0); /* checked here: the stock function's error would name '?' */
#endif
	base = lua_gettop(L);
	lua_pushvalue(L, lua_upvalueindex(1));
	for (i = 1; i <= n; i++)
		lua_pushvalue(L, i);
	lua_call(L, n, LUA_MULTRET);
	return lua_gettop(L) - base;
}

#ifdef ZLUA_LUAJIT
/* [lua] The end of a LuaJIT wrapper that checked its arguments: calls the
 * stock function (upvalue 1) with the first n arguments and returns
 * nres, its results in their place. [-k, +nres] */
static int call_stock(lua_State *L, int n, int nres)
{
	lua_settop(L, n);
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, n, nres);
	return nres;
}

/* [lua] LuaJIT's setfenv without level 0: setfenv(0, t) replaces the
 * running thread's globals, which on the main thread are the environment
 * of every chunk the host loads later, its own included, and hands them
 * to the script (probe A3-F6). Functions and levels of the script's own
 * stack stay as stock; the arguments are checked here, in stock's words,
 * so that errors name 'setfenv', and the stock function (upvalue 1),
 * called one C level deeper, is given the level plus one. [-0, +1] */
static int safe_setfenv(lua_State *L)
{
	lua_Debug ar;
	luaL_checktype(L, 2, LUA_TTABLE);
	if (lua_type(L, 1) != LUA_TFUNCTION) {
		int level = (int)luaL_checkinteger(L, 1);
		if (level == 0)
			return luaL_error(L, "'setfenv' cannot change the thread's environment in the sandbox");
		if (lua_getstack(L, level, &ar) == 0)
			return luaL_argerror(L, 1, "invalid level");
		lua_pushinteger(L, level + 1);
		lua_replace(L, 1);
	}
	return call_stock(L, 2, 1);
}
#endif

/* [lua] setmetatable refusing metatables with __gc: finalizers run with
 * hooks disabled, so no time limit could stop one. */
static int safe_setmetatable(lua_State *L)
{
	int t = lua_type(L, 2);
	luaL_checktype(L, 1, LUA_TTABLE);
	/* the stock checks and words first, in their order (LuaJIT's
	 * argument error names no type), then the sandbox's own */
	if (t != LUA_TNIL && t != LUA_TTABLE)
#ifdef ZLUA_LUAJIT
		return luaL_argerror(L, 2, "nil or table expected");
#else
		return luaL_typeerror(L, 2, "nil or table"); /* names __name, as stock */
#endif
	if (luaL_getmetafield(L, 1, "__metatable"))
		return luaL_error(L, "cannot change a protected metatable");
	if (t == LUA_TTABLE) {
		lua_pushliteral(L, "__gc");
		lua_rawget(L, 2);
		if (!lua_isnil(L, -1))
			return luaL_argerror(L, 2, "__gc metamethods are not allowed in the sandbox");
		lua_pop(L, 1);
	}
	lua_settop(L, 2);
	lua_setmetatable(L, 1);
	return 1;
}

#ifdef ZLUA_LUAJIT
/* [lua] package.seeall refusing a protected metatable: the stock function
 * (upvalue 1) writes __index = _G into the table's metatable through the
 * raw API, which __metatable does not stop, so a mod could turn a host's
 * read-only proxy into a window on the globals (probe B2-F1). Unprotected
 * tables get stock's effect, so module(..., package.seeall) keeps
 * working. [-0, +0] */
static int safe_seeall(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	if (luaL_getmetafield(L, 1, "__metatable"))
		return luaL_error(L, "cannot change a protected metatable");
	return call_stock(L, 1, 0);
}
#endif

/* [lua] Replaces t[name] (t at idx) with a C closure over the old value.
 * [-0, +0] */
static void wrap_field(lua_State *L, int idx, const char *name, lua_CFunction f)
{
	idx = lua_absindex_compat(L, idx);
	lua_getfield(L, idx, name);
	if (lua_isnil(L, -1)) {
		lua_pop(L, 1);
		return;
	}
	lua_pushcclosure(L, f, 1);
	lua_setfield(L, idx, name);
}

/* [lua] Removes ffi, the jit modules and LuaJIT's string.buffer (whose
 * ref() and reserve() hand out raw uint8_t * cdata that a script can
 * index and offset without ffi: every address in the process) from
 * package.loaded/preload at idx. [-0, +0] */
static void drop_native_modules(lua_State *L, int idx)
{
	int again = 1;
	idx = lua_absindex_compat(L, idx);
	while (again) { /* restart after each removal: next() needs the key */
		again = 0;
		lua_pushnil(L);
		while (lua_next(L, idx)) {
			lua_pop(L, 1);
			if (lua_type(L, -1) == LUA_TSTRING) {
				const char *k = lua_tostring(L, -1);
				if (strcmp(k, "ffi") == 0 || strcmp(k, "jit") == 0 ||
				    strncmp(k, "jit.", 4) == 0 || strcmp(k, "io") == 0 ||
				    strcmp(k, "debug") == 0 || strcmp(k, "string.buffer") == 0) {
					lua_pushnil(L);
					lua_rawset(L, idx);
					again = 1;
					break;
				}
			}
		}
	}
}

void zlua_open_safe(lua_State *L, zlua_env *env)
{
	int i;
	luaL_openlibs(L);
#ifdef ZLUA_LUAJIT
	zlua_jit_keepffi(L, env); /* before ffi leaves package.loaded */
	if (env->mem_limit != 0)
		zlua_jit_nostitch(L, env); /* before jit does */
#else
	(void)env;
#endif
	zlua_pushglobaltable(L); /* [G] */

	/* os: only the clock and calendar functions */
	lua_getfield(L, -1, "os");
	lua_createtable(L, 0, 4); /* [G, os, safe os] */
	for (i = 0; kept_os[i] != NULL; i++) {
		lua_getfield(L, -2, kept_os[i]);
		lua_setfield(L, -2, kept_os[i]);
	}
	lua_setfield(L, -3, "os");
	lua_pop(L, 1);

	for (i = 0; removed_globals[i] != NULL; i++) {
		lua_pushnil(L);
		lua_setfield(L, -2, removed_globals[i]);
	}
	lua_getfield(L, -1, "string");
	lua_pushnil(L);
	lua_setfield(L, -2, "dump");
	lua_pop(L, 1);

	wrap_field(L, -1, "load", safe_load);
	wrap_field(L, -1, "loadstring", safe_load);
	wrap_field(L, -1, "collectgarbage", safe_collectgarbage);
#ifdef ZLUA_LUAJIT
	wrap_field(L, -1, "setfenv", safe_setfenv);
#endif
	lua_pushcfunction(L, safe_setmetatable);
	lua_setfield(L, -2, "setmetatable");

	/* package: require of preloaded modules only */
	lua_getfield(L, -1, "package"); /* [G, package] */
	for (i = 0; removed_package[i] != NULL; i++) {
		lua_pushnil(L);
		lua_setfield(L, -2, removed_package[i]);
	}
#ifdef ZLUA_LUAJIT
	wrap_field(L, -1, "seeall", safe_seeall);
#endif
	lua_getfield(L, -1, "searchers"); /* 5.4 */
	if (lua_isnil(L, -1)) {
		lua_pop(L, 1);
		lua_getfield(L, -1, "loaders"); /* LuaJIT */
	}
	for (i = (int)zlua_rawlen(L, -1); i > 1; i--) {
		lua_pushnil(L);
		lua_rawseti(L, -2, i);
	}
	lua_pop(L, 1);
	lua_getfield(L, -1, "preload");
	drop_native_modules(L, -1);
	lua_pop(L, 1);
	lua_getfield(L, -1, "loaded"); /* [G, package, loaded] */
	drop_native_modules(L, -1);
	lua_getfield(L, -3, "os");
	lua_setfield(L, -2, "os");
	lua_pop(L, 3);
}
