/* coroutine.c: zlua's coroutine.create, resume, wrap and close (Lua 5.4),
 * with the standard library's semantics and messages. Lua 5.4 hooks belong
 * to one thread and a coroutine copies its creator's hook when created, so
 * a coroutine created before a limited call would run unhooked: resume,
 * wrap and close hook it first. Once a limited call's context is done, the
 * interruption a coroutine raised is raised again in the thread that
 * resumed it, so no script can catch it for good. LuaJIT keeps its own
 * library: its hooks are global to the state. */
#include "zlua.h"

#ifndef ZLUA_LUAJIT
/* Whether the value at idx is an interruption's message: a string that
 * ends with the text of env's interruption. [-0, +0] */
static int is_interruption(lua_State *L, zlua_env *env, int idx)
{
	size_t n, m;
	const char *s, *want;
	if (lua_type(L, idx) != LUA_TSTRING)
		return 0;
	s = lua_tolstring(L, idx, &n);
	want = zlua_interrupt_text(env);
	m = strlen(want);
	return n >= m && memcmp(s + n - m, want, m) == 0;
}

/* [lua] Resumes the coroutine at index coidx of L (co) with narg values
 * from L's top; pushes the results on L and returns their count, or
 * pushes the error and returns -1. A coroutine that failed while a
 * context is done raises its error in L instead. */
static int resume(lua_State *L, zlua_env *env, int coidx, lua_State *co, int narg)
{
	int st, nres;
	/* lua_resume itself refuses dead and non-suspended coroutines. */
	if (!lua_checkstack(co, narg)) {
		lua_pushliteral(L, "too many arguments to resume");
		return -1;
	}
	zlua_hook_thread(L, env, coidx);
	lua_xmove(L, co, narg);
	env->running = co;
	st = lua_resume(co, L, narg, &nres);
	env->running = L;
	zlua_rearm_hooks(co); /* after an error a hook raised: rearm.c */
	env->hook_raised = 0; /* an error the coroutine's hook raised has been handled */
	if (zlua_interrupted(env))
		zlua_hook_hurry(L); /* the hurry an allocation gave co is L's now */
	if (st == LUA_OK || st == LUA_YIELD) {
		if (!lua_checkstack(L, nres + 1)) {
			lua_pop(co, nres);
			lua_pushliteral(L, "too many results to resume");
			return -1;
		}
		lua_xmove(co, L, nres);
		return nres;
	}
	lua_xmove(co, L, 1);
	if (zlua_interrupted(env)) { /* L was hurried above */
		/* The coroutine's own interruption goes on as it is (its
		 * position is the coroutine's); any other failure met while the
		 * context is done (lua_resume refusing a dead coroutine, an
		 * error of the coroutine's code) gives way to the interruption,
		 * or it would become the limited call's error. */
		if (!is_interruption(L, env, -1)) {
			lua_pop(L, 1);
			return zlua_raise_interrupt(L, env, 1);
		}
		lua_error(L);
	}
	return -1;
}

/* [lua] coroutine.create: the standard function, plus the hook record a
 * new thread inherits (debughook.c). */
static int co_create(lua_State *L)
{
	lua_State *co;
	luaL_checktype(L, 1, LUA_TFUNCTION);
	co = lua_newthread(L);
	lua_pushvalue(L, 1);
	lua_xmove(L, co, 1);
	zlua_hook_inherit(L, zlua_envof(L), -1);
	return 1;
}

/* [lua] coroutine.resume. */
static int co_resume(lua_State *L)
{
	lua_State *co = lua_tothread(L, 1);
	int r;
	luaL_argexpected(L, co != NULL, 1, "thread");
	r = resume(L, zlua_envof(L), 1, co, lua_gettop(L) - 1);
	if (r < 0) {
		lua_pushboolean(L, 0);
		lua_insert(L, -2);
		return 2;
	}
	lua_pushboolean(L, 1);
	lua_insert(L, -(r + 1));
	return r + 1;
}

int zlua_close_thread(lua_State *L, zlua_env *env, lua_State *co)
{
	lua_State *prev = env->running;
	int st;
	env->running = co;
#if LUA_VERSION_RELEASE_NUM >= 50406
	st = lua_closethread(co, L);
#else
	(void)L;
	st = lua_resetthread(co);
#endif
	env->running = prev;
	return st;
}

/* [lua] The function coroutine.wrap returns. Upvalue 1: the coroutine
 * (checked: debug.setupvalue can replace it). */
static int co_wrapped(lua_State *L)
{
	lua_State *co = lua_tothread(L, lua_upvalueindex(1));
	int r, st;
	luaL_argexpected(L, co != NULL, 1, "coroutine");
	r = resume(L, zlua_envof(L), lua_upvalueindex(1), co, lua_gettop(L));
	if (r >= 0)
		return r;
	st = lua_status(co);
	if (st != LUA_OK && st != LUA_YIELD) { /* the coroutine failed: close it */
		st = zlua_close_thread(L, zlua_envof(L), co);
		lua_xmove(co, L, 1); /* the error, possibly replaced by a __close */
	}
	if (st != LUA_ERRMEM && lua_type(L, -1) == LUA_TSTRING) {
		luaL_where(L, 1);
		lua_insert(L, -2);
		lua_concat(L, 2);
	}
	return lua_error(L);
}

/* [lua] coroutine.wrap. */
static int co_wrap(lua_State *L)
{
	co_create(L);
	lua_pushcclosure(L, co_wrapped, 1);
	return 1;
}

/* [lua] coroutine.close: hooks co (its __close handlers run on it), then
 * runs the stock function in this frame (env->stock_coclose), so that its
 * errors ("cannot close a running coroutine") carry the script's position
 * as stock's do: called through lua_call, level 1 was this C function. */
static int co_close(lua_State *L)
{
	zlua_env *env = zlua_envof(L);
	lua_State *co = lua_tothread(L, 1);
	lua_State *prev = env->running;
	lua_Debug ar;
	int n;
	luaL_argexpected(L, co != NULL, 1, "thread");
	zlua_hook_thread(L, env, 1);
	/* A thread the stock function closes (dead, or suspended: not this
	 * one, and not one with a frame running) runs its __close handlers
	 * on itself, so it is the running one meanwhile (zlua_close_thread);
	 * the others are refused with an error before any code runs, and the
	 * error leaves this frame, so they are not named. */
	if (co != L && (lua_status(co) != LUA_OK || !lua_getstack(co, 0, &ar)))
		env->running = co;
	n = env->stock_coclose(L);
	env->running = prev;
	if (n >= 2 && lua_toboolean(L, -n) == 0 && zlua_interrupted(env)) {
		zlua_hook_hurry(L);
		lua_settop(L, lua_gettop(L) - n + 2);
		if (!is_interruption(L, env, -1)) { /* the coroutine's own error: as in resume */
			lua_pop(L, 1);
			return zlua_raise_interrupt(L, env, 1);
		}
		return lua_error(L); /* the interruption a __close handler met */
	}
	return n;
}

void zlua_open_coroutines(lua_State *L, zlua_env *env)
{
	lua_getglobal(L, "coroutine");
	if (lua_type(L, -1) != LUA_TTABLE) {
		lua_pop(L, 1);
		return;
	}
	lua_pushcfunction(L, co_create);
	lua_setfield(L, -2, "create");
	lua_pushcfunction(L, co_resume);
	lua_setfield(L, -2, "resume");
	lua_pushcfunction(L, co_wrap);
	lua_setfield(L, -2, "wrap");
	lua_getfield(L, -1, "close");
	/* a C function without upvalues (none to misread in our frame) */
	env->stock_coclose = NULL;
	if (lua_getupvalue(L, -1, 1) != NULL)
		lua_pop(L, 1);
	else
		env->stock_coclose = lua_tocfunction(L, -1);
	lua_pop(L, 1);
	if (env->stock_coclose != NULL) {
		lua_pushcfunction(L, co_close);
		lua_setfield(L, -2, "close");
	}
	lua_pop(L, 1);
}
#else
void zlua_open_coroutines(lua_State *L, zlua_env *env)
{
	(void)L;
	(void)env;
}
#endif
