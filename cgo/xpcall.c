/* xpcall.c: message handlers that cannot outlive a limited call's context.
 * An error raised from inside a hook (the interruption, a script hook's
 * error) calls the message handler while hooks are still off, and on Lua
 * 5.4 an error raised inside a handler calls the handler again, also
 * without hooks: a handler that loops would never be stopped. During a
 * limited call zlua's xpcall passes Lua a guard in place of the script's
 * handler; the guard returns the error at once, without calling the
 * script's handler, when a context is done or the error came from a hook.
 * Outside limited calls xpcall is the stock function's behaviour. Same
 * arguments, results, messages and yields across it as the standard
 * xpcall on both backends. */
#include "zlua.h"

/* The guard factory (both backends) and, on LuaJIT, xpcall and jit.on.
 * The guard tail-calls the handler, so a traceback the handler takes looks
 * as without the guard (on Lua 5.4 a Lua handler's own frame is then
 * marked as tail-called, and a tail call to a C function keeps the
 * caller's frame: the usual handler debug.traceback gets a guard written
 * in C instead, which takes the traceback itself). LuaJIT's xpcall stays
 * the VM's fast function, tail-called with the caller's own arguments
 * (same messages, yields, compiled code); the guard is only made while
 * `limited[1]`, which zlua_limit_begin/end set. jit.on() with no function
 * argument is put off while limited (compiled code never runs hooks), and
 * jit.off() noted: `limited[2]` keeps the last of them, which the
 * outermost limited call's end applies instead of the compiler's state
 * before the call (hook.c, zlua_limit_end). */
static const char guard_src[] =
	"local pending, traceback, tbguard, xpcall, type, select, limited, jiton, jitoff = ...\n"
	"local function guard(h)\n"
	"  if h == traceback then return tbguard end\n"
	"  return function(e)\n"
	"    if pending() then return e end\n"
	"    return h(e)\n"
	"  end\n"
	"end\n"
	"if not xpcall then return guard end\n"
	"local function guarded(f, h, ...) return xpcall(f, guard(h), ...) end\n"
	"local on, off\n"
	"if jiton and jitoff then\n"
	"  on = function(...)\n"
	"    if limited[1] and (select('#', ...) == 0 or (...) == nil) then limited[2] = true return end\n"
	"    return jiton(...)\n"
	"  end\n"
	"  off = function(...)\n"
	"    if limited[1] and (select('#', ...) == 0 or (...) == nil) then limited[2] = false end\n"
	"    return jitoff(...)\n"
	"  end\n"
	"end\n"
	"return guard, function(...)\n"
	"  if limited[1] then\n"
	"    local f, h = ...\n"
	"    if type(h) == 'function' then return guarded(...) end\n"
	"  end\n"
	"  return xpcall(...)\n"
	"end, on, off\n";

/* [lua] pending(): whether a message handler must not run now (see
 * zlua_handler_guard). */
static int pending(lua_State *L)
{
	lua_pushboolean(L, zlua_handler_guard(zlua_envof(L)));
	return 1;
}

/* [lua] The guard of the standard debug.traceback as a message handler:
 * the same result, taken from the same level (level 0 is this function,
 * as it is debug.traceback without a guard). Upvalue 1: the original
 * traceback, for the rare thread argument. */
static int guard_traceback(lua_State *L)
{
	const char *msg;
	if (zlua_handler_guard(zlua_envof(L))) {
		lua_settop(L, 1);
		return 1;
	}
	if (lua_type(L, 1) == LUA_TTHREAD) { /* traceback of another thread */
		lua_pushvalue(L, lua_upvalueindex(1));
		lua_insert(L, 1);
		lua_call(L, lua_gettop(L) - 1, 1);
		return 1;
	}
	msg = lua_tostring(L, 1);
	/* not a message: untouched. Lua 5.4 gives nil a traceback, LuaJIT
	 * returns it as it is (only a call without argument gets one). */
#ifndef ZLUA_LUAJIT
	if (msg == NULL && !lua_isnoneornil(L, 1)) {
#else
	if (msg == NULL && !lua_isnone(L, 1)) {
#endif
		lua_settop(L, 1);
		return 1;
	}
	luaL_traceback(L, L, msg, 1);
	return 1;
}

#ifndef ZLUA_LUAJIT
/* [lua] The end of xpcall, also its continuation after a yield: true and
 * the results above the first `base` slots, or false and the error. */
static int xpcall_end(lua_State *L, int status, lua_KContext base)
{
	if (status == LUA_OK || status == LUA_YIELD)
		return lua_gettop(L) - (int)base;
	lua_pushboolean(L, 0);
	lua_insert(L, -2);
	return 2;
}

/* [lua] xpcall(f, msgh, ...). Upvalue 1: the guard factory (a script can
 * replace it with debug.setupvalue; it then only loses the guard). */
static int zlua_xpcall(lua_State *L)
{
	int nargs = lua_gettop(L) - 2, st;
	luaL_checktype(L, 2, LUA_TFUNCTION);
	if (zlua_envof(L)->limit_depth > 0) {
		lua_pushvalue(L, lua_upvalueindex(1));
		lua_pushvalue(L, 2);
		lua_call(L, 1, 1);
		lua_replace(L, 2);
	}
	lua_pushboolean(L, 1);
	lua_pushvalue(L, 1);
	lua_rotate(L, 3, 2); /* [f, msgh, true, f, args]: results land above true */
	st = lua_pcallk(L, nargs, LUA_MULTRET, 2, 2, xpcall_end);
	return xpcall_end(L, st, 2);
}
#endif

void zlua_open_xpcall(lua_State *L, zlua_env *env)
{
	int n = 3;
	if (zlua_load_own(L, guard_src, sizeof guard_src - 1, "=zlua.xpcall") != LUA_OK)
		lua_error(L);
	lua_pushcfunction(L, pending);
	lua_getglobal(L, "debug");
	if (lua_type(L, -1) == LUA_TTABLE)
		lua_getfield(L, -1, "traceback");
	else
		lua_pushnil(L);
	lua_remove(L, -2);
	lua_pushvalue(L, -1);
	lua_pushcclosure(L, guard_traceback, 1);
#ifdef ZLUA_LUAJIT
	lua_getglobal(L, "xpcall");
	zlua_jit_hook_fn(L, env, ZLUA_HOOKFN_XPCALL);
	lua_getglobal(L, "type");
	lua_getglobal(L, "select");
	/* limited[1], set by zlua_limit_begin/end; limited[2], the compiler
	 * state a script asked for while limited (two array slots: the
	 * wrappers' stores never allocate) */
	lua_createtable(L, 2, 0);
	lua_pushboolean(L, 0);
	lua_rawseti(L, -2, 1);
	lua_pushvalue(L, -1);
	env->limflag_ref = luaL_ref(L, LUA_REGISTRYINDEX);
	lua_getglobal(L, "jit");
	if (lua_type(L, -1) == LUA_TTABLE) {
		/* the original jit.status: the compiler's state before a limited
		 * call (hook.c) */
		lua_getfield(L, -1, "status");
		if (lua_type(L, -1) == LUA_TFUNCTION)
			env->jitstatus_ref = luaL_ref(L, LUA_REGISTRYINDEX);
		else
			lua_pop(L, 1);
		lua_getfield(L, -1, "on");
		lua_getfield(L, -2, "off");
	} else {
		lua_pushnil(L);
		lua_pushnil(L);
	}
	lua_remove(L, -3);
	n = 9;
	lua_call(L, n, 4); /* guard, xpcall, on, off */
	if (!lua_isnil(L, -1)) {
		lua_getglobal(L, "jit");
		lua_insert(L, -3);
		lua_setfield(L, -3, "off");
		lua_setfield(L, -2, "on");
		lua_pop(L, 1);
	} else {
		lua_pop(L, 2);
	}
	lua_setglobal(L, "xpcall");
	lua_pop(L, 1);
#else
	(void)env;
	lua_call(L, n, 1); /* guard */
	lua_pushcclosure(L, zlua_xpcall, 1);
	lua_setglobal(L, "xpcall");
#endif
}
