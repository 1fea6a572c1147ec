/* debughook.c: debug.sethook and debug.gethook as scripts know them, on top
 * of zlua's one C hook (hook.c), so that a script's hook and the time limit
 * of a limited call coexist. The script's hook (function, mask, count) is
 * kept in a record: one per thread on Lua 5.4, one for the state on LuaJIT,
 * whose hooks are global. The C hook calls the function for the script's
 * events; outside limited calls it is installed with exactly the script's
 * mask and count, so the behaviour is the stock library's. gethook always
 * reports the script's own values. */
#include "zlua.h"

#ifdef ZLUA_LUAJIT
#define TAIL_EVENT "tail return"
#define CALL_EVENT(ev) ((ev) == LUA_HOOKCALL)
#else
#define TAIL_EVENT "tail call"
#define CALL_EVENT(ev) ((ev) == LUA_HOOKCALL || (ev) == LUA_HOOKTAILCALL)
#endif

/* Records live in the table registry[env->hooks_ref]: on Lua 5.4 keyed by
 * thread (weak keys), the record a userdata whose user value is the hook
 * function; on LuaJIT the record is at [1] and the function at [2]. A
 * script with debug.getregistry can replace any of it, so every read
 * checks types: a record holds integers only. */

zlua_hookrec *zlua_hookrec_of(lua_State *L, zlua_env *env, int idx, int pushfn)
{
	zlua_hookrec *rec = NULL;
	if (!env->script_hooks) {
		if (pushfn)
			lua_pushnil(L);
		return NULL;
	}
	idx = idx != 0 ? lua_absindex_compat(L, idx) : 0;
	lua_rawgeti(L, LUA_REGISTRYINDEX, env->hooks_ref); /* [H] */
	if (lua_type(L, -1) != LUA_TTABLE) {
		lua_pop(L, 1);
		if (pushfn)
			lua_pushnil(L);
		return NULL;
	}
#ifdef ZLUA_LUAJIT
	(void)idx;
	lua_rawgeti(L, -1, 1); /* [H, rec] */
#else
	if (idx != 0)
		lua_pushvalue(L, idx);
	else
		lua_pushthread(L);
	lua_rawget(L, -2); /* [H, rec] */
#endif
	if (lua_type(L, -1) == LUA_TUSERDATA && zlua_rawlen(L, -1) == sizeof *rec)
		rec = (zlua_hookrec *)lua_touserdata(L, -1);
	if (!pushfn) {
		lua_pop(L, 2);
		return rec;
	}
#ifdef ZLUA_LUAJIT
	lua_rawgeti(L, -2, 2);
#else
	if (rec != NULL)
		lua_getiuservalue(L, -1, 1);
	else
		lua_pushnil(L);
#endif
	lua_replace(L, -3);
	lua_pop(L, 1); /* [fn] */
	return rec;
}

#ifdef ZLUA_LUAJIT
/* Whether the event ar reports belongs to one of the C stack wrappers
 * (cstack.c, chunk "=zlua.cstack") or to the check they call: stock
 * LuaJIT runs none of that code, so a script's hook must not see it. Only
 * asked when a script has a hook. */
static int wrapper_event(lua_State *L, lua_Debug *ar)
{
	lua_Debug up;
	if (ar->event == LUA_HOOKCOUNT || !lua_getinfo(L, "S", ar))
		return 0;
	if (strcmp(ar->source, "=zlua.cstack") == 0)
		return 1;
	return ar->what != NULL && strcmp(ar->what, "C") == 0 && lua_getstack(L, 1, &up) &&
	       lua_getinfo(L, "S", &up) && strcmp(up.source, "=zlua.cstack") == 0;
}
#endif

void zlua_script_hook(lua_State *L, zlua_env *env, lua_Debug *ar)
{
	static const char *const names[] = { "call", "return", "line", "count", TAIL_EVENT };
	zlua_hookrec *rec;
#ifdef ZLUA_LUAJIT
	if (wrapper_event(L, ar))
		return;
#endif
	rec = zlua_hookrec_of(L, env, 0, 1);
	if (lua_type(L, -1) != LUA_TFUNCTION || /* none, or a coroutine's inherited one */
	    (ar->event == LUA_HOOKLINE && (rec == NULL || !(rec->mask & LUA_MASKLINE))) ||
	    (CALL_EVENT(ar->event) && (rec == NULL || !(rec->mask & LUA_MASKCALL)))) {
		lua_pop(L, 1); /* (line and call events zlua asked for, see hook.c) */
		return;
	}
	lua_pushstring(L, ar->event >= 0 && ar->event <= 4 ? names[ar->event] : "?");
	if (ar->currentline >= 0)
		lua_pushinteger(L, ar->currentline);
	else
		lua_pushnil(L);
	if (env->limit_depth == 0) {
		lua_call(L, 2, 0);
		return;
	}
	/* Inside a limited call an error leaving the hook is marked: message
	 * handlers run without hooks, and zlua's then skip the script's. */
	if (lua_pcall(L, 2, 0, 0) != LUA_OK) {
		env->hook_raised = 1;
		lua_error(L);
	}
}

/* The LUA_MASK* bits of a sethook mask string and count. */
static int make_mask(const char *s, int count)
{
	int mask = 0;
	if (strchr(s, 'c') != NULL)
		mask |= LUA_MASKCALL;
	if (strchr(s, 'r') != NULL)
		mask |= LUA_MASKRET;
	if (strchr(s, 'l') != NULL)
		mask |= LUA_MASKLINE;
	if (count > 0)
		mask |= LUA_MASKCOUNT;
	return mask;
}

/* The mask string gethook reports for mask: "c", "r", "l" in that order. */
static const char *mask_string(int mask, char *buf)
{
	char *p = buf;
	if (mask & LUA_MASKCALL)
		*p++ = 'c';
	if (mask & LUA_MASKRET)
		*p++ = 'r';
	if (mask & LUA_MASKLINE)
		*p++ = 'l';
	*p = 0;
	return buf;
}

/* [lua] Pushes the record table, making a new one if a script replaced
 * it. [-0, +1] */
static void push_records(lua_State *L, zlua_env *env)
{
	lua_rawgeti(L, LUA_REGISTRYINDEX, env->hooks_ref);
	if (lua_type(L, -1) == LUA_TTABLE)
		return;
	lua_pop(L, 1);
	lua_newtable(L);
#ifndef ZLUA_LUAJIT
	lua_createtable(L, 0, 1);
	lua_pushliteral(L, "k");
	lua_setfield(L, -2, "__mode");
	lua_setmetatable(L, -2);
	/* Where the stock library keeps its per-thread hooks (a table with
	 * weak keys): the official test suite checks it (db.lua). */
	lua_pushvalue(L, -1);
	lua_setfield(L, LUA_REGISTRYINDEX, "_HOOKKEY");
#endif
	lua_pushvalue(L, -1);
	lua_rawseti(L, LUA_REGISTRYINDEX, env->hooks_ref);
}

/* [lua] Pushes a new record userdata (Lua 5.4: with one user value).
 * [-0, +1] */
static zlua_hookrec *new_record(lua_State *L)
{
#ifdef ZLUA_LUAJIT
	zlua_hookrec *rec = (zlua_hookrec *)lua_newuserdata(L, sizeof *rec);
#else
	zlua_hookrec *rec = (zlua_hookrec *)lua_newuserdatauv(L, sizeof *rec, 1);
#endif
	memset(rec, 0, sizeof *rec);
	return rec;
}

/* [lua] debug.sethook([thread,] hook, mask [, count]) with the standard
 * library's arguments and errors; records the script's hook and applies
 * it merged with the time limit. Lua 5.4 sets the hook of the thread
 * given (default: the running one); LuaJIT's hook is the state's. */
static int db_sethook(lua_State *L)
{
	zlua_env *env = zlua_envof(L);
	int arg = lua_type(L, 1) == LUA_TTHREAD ? 1 : 0;
	int mask = 0, count = 0;
	zlua_hookrec *rec;
	if (!lua_isnoneornil(L, arg + 1)) {
		const char *smask = luaL_checkstring(L, arg + 2);
		luaL_checktype(L, arg + 1, LUA_TFUNCTION);
		count = (int)luaL_optinteger(L, arg + 3, 0);
		mask = make_mask(smask, count);
	}
	lua_settop(L, arg + 1); /* [thread,] hook or nil */
	push_records(L, env);   /* [thread,] hook, H */
#ifdef ZLUA_LUAJIT
	lua_rawgeti(L, -1, 1);
	rec = lua_type(L, -1) == LUA_TUSERDATA && zlua_rawlen(L, -1) == sizeof *rec ?
		(zlua_hookrec *)lua_touserdata(L, -1) : NULL;
	if (rec == NULL) {
		lua_pop(L, 1);
		rec = new_record(L);
		lua_pushvalue(L, -1);
		lua_rawseti(L, -3, 1);
	}
	lua_pushvalue(L, arg + 1);
	lua_rawseti(L, -3, 2); /* the function stays even when the mask is empty */
#else
	if (arg)
		lua_pushvalue(L, 1);
	else
		lua_pushthread(L); /* [thread,] hook, H, key */
	if (mask == 0) { /* off: gethook reports no hook */
		lua_pushnil(L);
		lua_rawset(L, -3);
		rec = NULL;
	} else {
		lua_pushvalue(L, -1);
		lua_rawget(L, -3); /* the thread's record, updated in place */
		rec = lua_type(L, -1) == LUA_TUSERDATA && zlua_rawlen(L, -1) == sizeof *rec ?
			(zlua_hookrec *)lua_touserdata(L, -1) : NULL;
		if (rec == NULL) {
			lua_pop(L, 1);
			rec = new_record(L);
		}
		lua_pushvalue(L, arg + 1);
		lua_setiuservalue(L, -2, 1);
		lua_rawset(L, -3); /* H[key] = record */
	}
#endif
	if (rec != NULL) {
		rec->mask = mask;
		rec->count = count;
		rec->left = count;
	}
	env->script_hooks = 1;
	zlua_hook_apply(L, env, arg, 1); /* the count starts now, as in stock */
	return 0;
}

/* [lua] debug.gethook([thread]) with the standard library's results, from
 * the script's record: Lua 5.4 returns fail when the thread has no hook,
 * else function (nil for a hook a coroutine inherited), mask, count;
 * LuaJIT always returns the state's function, mask and count. */
static int db_gethook(lua_State *L)
{
	zlua_env *env = zlua_envof(L);
	char buf[4];
	int arg = lua_type(L, 1) == LUA_TTHREAD ? 1 : 0;
	zlua_hookrec *rec;
#ifdef ZLUA_LUAJIT
	arg = 0; /* LuaJIT reports the state's hook whatever the argument */
#endif
	rec = zlua_hookrec_of(L, env, arg, 1); /* [fn] */
#ifndef ZLUA_LUAJIT
	if (rec == NULL || rec->mask == 0) {
		lua_pushnil(L);
		return 1;
	}
#endif
	lua_pushstring(L, mask_string(rec != NULL ? rec->mask : 0, buf));
	lua_pushinteger(L, rec != NULL ? rec->count : 0);
	return 3;
}

void zlua_hook_inherit(lua_State *L, zlua_env *env, int idx)
{
#ifdef ZLUA_LUAJIT
	(void)L;
	(void)env;
	(void)idx;
#else
	/* A new thread copies its creator's hook, mask and count; the stock
	 * library then finds no function for it, so it records nothing and
	 * gethook reports nil with the creator's mask and count. */
	zlua_hookrec *from = zlua_hookrec_of(L, env, 0, 0), *rec;
	int mask, count;
	if (from == NULL || from->mask == 0)
		return;
	mask = from->mask;
	count = from->count;
	idx = lua_absindex_compat(L, idx);
	push_records(L, env);
	lua_pushvalue(L, idx);
	rec = new_record(L);
	rec->mask = mask;
	rec->count = count;
	rec->left = count;
	lua_rawset(L, -3);
	lua_pop(L, 1);
#endif
}

void zlua_open_debughook(lua_State *L, zlua_env *env)
{
	lua_getglobal(L, "debug");
	if (lua_type(L, -1) != LUA_TTABLE) { /* LibsSafe */
		lua_pop(L, 1);
		return;
	}
	env->hooks_ref = LUA_NOREF;
	lua_pushboolean(L, 0);
	env->hooks_ref = luaL_ref(L, LUA_REGISTRYINDEX); /* a slot push_records fills */
	push_records(L, env);
#ifdef ZLUA_LUAJIT
	new_record(L);
	lua_rawseti(L, -2, 1);
#endif
	lua_pop(L, 1);
	lua_pushcfunction(L, db_sethook);
	lua_setfield(L, -2, "sethook");
	lua_pushcfunction(L, db_gethook);
	lua_setfield(L, -2, "gethook");
	lua_pop(L, 1);
}
