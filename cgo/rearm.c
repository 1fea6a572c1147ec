/* rearm.c: hooks back on for a Lua 5.4 coroutine that an error from a hook
 * killed. While a hook runs, Lua 5.4 turns hooks off for its thread
 * (allowhook = 0) and turns them back on when the hook returns, or when a
 * protected call inside the thread catches an error raised in it. An error
 * a hook raises in a coroutine with no protected call of its own (zlua's
 * interruption, its "C stack overflow", a script's hook that errs) unwinds
 * straight to lua_resume: the coroutine is dead with hooks off for good.
 * Closing it later (coroutine.close, coroutine.wrap's failure path, zlua's
 * Thread.Resume) runs its pending __close handlers with no hook at all, so
 * no deadline could stop a loop in them. lua_resume's callers in zlua call
 * zlua_rearm_hooks once it returned an error: nothing runs on the dead
 * coroutine then, and hooks on is the state every idle thread is in.
 *
 * The flag is not in Lua's API. lua_State starts with the collector's
 * header (next pointer, type and mark bytes), then the status and
 * allowhook bytes: the same in every Lua 5.4 release. zlua does not take
 * that on trust: once per process it checks both offsets against a state
 * of the linked library (status against lua_status of a running and a
 * suspended thread, allowhook as seen from inside a hook and outside), and
 * writes the byte only if all four checks hold. */
#include "zlua.h"

#ifndef ZLUA_LUAJIT
#include <pthread.h>

#define OFF_STATUS (sizeof(void *) + 2)
#define OFF_ALLOWHOOK (sizeof(void *) + 3)

static pthread_once_t check_once = PTHREAD_ONCE_INIT;
static int layout_ok;      /* written once under check_once */
static int seen_in_hook = -1; /* allowhook as the probe hook saw it (check_once only) */

static unsigned char byte_at(lua_State *L, size_t off)
{
	return ((const unsigned char *)L)[off];
}

static void probe_hook(lua_State *L, lua_Debug *ar)
{
	(void)ar;
	seen_in_hook = byte_at(L, OFF_ALLOWHOOK);
}

static int probe_yield(lua_State *L)
{
	return lua_yield(L, 0);
}

static int probe_noop(lua_State *L)
{
	(void)L;
	return 0;
}

/* [lua] The probes, under lua_pcall on the private state (lua_newthread
 * may raise for memory). Pushes whether all held. [-0, +1] */
static int probe_all(lua_State *L)
{
	lua_State *co, *hooked;
	int n, ok = byte_at(L, OFF_STATUS) == LUA_OK && byte_at(L, OFF_ALLOWHOOK) == 1;
	co = lua_newthread(L);
	lua_pushcfunction(co, probe_yield);
	ok = ok && lua_resume(co, L, 0, &n) == LUA_YIELD && lua_status(co) == LUA_YIELD &&
	     byte_at(co, OFF_STATUS) == LUA_YIELD && byte_at(co, OFF_ALLOWHOOK) == 1;
	hooked = lua_newthread(L);
	lua_sethook(hooked, probe_hook, LUA_MASKCALL, 0);
	lua_pushcfunction(hooked, probe_noop);
	ok = ok && lua_resume(hooked, L, 0, &n) == LUA_OK && seen_in_hook == 0 &&
	     byte_at(hooked, OFF_ALLOWHOOK) == 1;
	lua_pushboolean(L, ok);
	return 1;
}

/* The check, once per process, on a private state of the linked library
 * (called from Go: nothing may raise outside the protected call). */
static void check_layout(void)
{
	lua_State *L = luaL_newstate();
	if (L == NULL)
		return;
	lua_pushcfunction(L, probe_all); /* a light C function: no allocation */
	layout_ok = lua_pcall(L, 0, 1, 0) == LUA_OK && lua_toboolean(L, -1);
	lua_close(L);
}

int zlua_rearm_supported(void)
{
	pthread_once(&check_once, check_layout);
	return layout_ok;
}

void zlua_rearm_hooks(lua_State *co)
{
	int st = lua_status(co);
	if (st == LUA_OK || st == LUA_YIELD || !zlua_rearm_supported())
		return; /* only a thread an error killed */
	((unsigned char *)co)[OFF_ALLOWHOOK] = 1;
}
#else
int zlua_rearm_supported(void)
{
	return 1; /* nothing to rearm: LuaJIT has no to-be-closed variables, so
		   * no code runs on a coroutine an error killed */
}
#endif
