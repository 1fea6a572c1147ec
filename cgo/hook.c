/* hook.c: time limits. A limited call installs a count hook that checks,
 * every ZLUA_HOOK_COUNT instructions, a flag that Go sets from any goroutine
 * when the call's context is done, and raises a Lua error then. No Go code
 * runs per tick. */
#include "zlua.h"

/* [lua] The count hook. The env is the allocator's ud. Raises once a
 * context is done; then fires on every instruction, so a pcall in a loop
 * cannot hold the error back. Raises "C stack overflow" when the thread's
 * C stack grew past ZLUA_CSTACK_LIMIT below the outermost protected
 * operation. A coroutine hooked by an earlier limited call drops the hook
 * at its first tick. */
static void limit_hook(lua_State *L, lua_Debug *ar)
{
	void *ud;
	zlua_env *env;
	(void)ar;
	lua_getallocf(L, &ud);
	env = (zlua_env *)ud;
	if (env->limit_depth == 0) {
		lua_sethook(L, NULL, 0, 0);
		return;
	}
	if (env->cstack_base != 0 && env->cstack_base - (uintptr_t)&ud > ZLUA_CSTACK_LIMIT) {
		lua_sethook(L, limit_hook, LUA_MASKCOUNT, 1); /* until unwound below the limit */
		luaL_where(L, 0);
		lua_pushliteral(L, "C stack overflow");
		lua_concat(L, 2);
		lua_error(L);
		return;
	}
	if (zlua_interrupted(env)) {
		lua_sethook(L, limit_hook, LUA_MASKCOUNT, 1);
		zlua_raise_interrupt(L, env, 0);
		return;
	}
	if (lua_gethookcount(L) != ZLUA_HOOK_COUNT)
		lua_sethook(L, limit_hook, LUA_MASKCOUNT, ZLUA_HOOK_COUNT);
}

void zlua_limit_begin(zlua_env *env, lua_State *L)
{
#ifdef ZLUA_LUAJIT
	/* Compiled traces never call hooks: run interpreted while limited.
	 * Inside a __gc LuaJIT refuses the switch; hooks are off there anyway
	 * (on both backends), so the call runs unlimited, as on Lua 5.4. */
	if (env->limit_depth == 0) {
		zlua_opargs a;
		memset(&a, 0, sizeof a);
		a.n = 0;
		env->limit_jit = zlua_op(env, L, ZLUA_DO_JITMODE, 0, 0, &a) == LUA_OK;
		if (!env->limit_jit)
			lua_pop(L, 1);
	}
#endif
	env->limit_depth++;
	lua_sethook(L, limit_hook, LUA_MASKCOUNT, ZLUA_HOOK_COUNT);
}

void zlua_limit_end(zlua_env *env, lua_State *L)
{
	if (--env->limit_depth > 0)
		return;
	lua_sethook(L, NULL, 0, 0);
#ifdef ZLUA_LUAJIT
	if (env->limit_jit) {
		zlua_opargs a;
		memset(&a, 0, sizeof a);
		a.n = 1;
		if (zlua_op(env, L, ZLUA_DO_JITMODE, 0, 0, &a) != LUA_OK)
			lua_pop(L, 1); /* inside __gc: the compiler stays off */
	}
#endif
}

void zlua_interrupt(zlua_env *env, int reason)
{
	/* Plain atomic stores: the hook reads them on the Lua thread. */
	__atomic_store_n(&env->interrupt_reason, reason, __ATOMIC_RELAXED);
	__atomic_add_fetch(&env->interrupt, 1, __ATOMIC_RELEASE);
}

void zlua_interrupt_clear(zlua_env *env)
{
	__atomic_sub_fetch(&env->interrupt, 1, __ATOMIC_RELEASE);
}

#ifdef ZLUA_LUAJIT
void zlua_open_limits(lua_State *L, zlua_env *env)
{
	/* LuaJIT hooks are global to the state: every coroutine sees them. */
	(void)L;
	(void)env;
}
#else
/* Lua 5.4 hooks belong to one thread, and a coroutine copies its creator's
 * hook when created. A coroutine created before a limited call would run
 * unhooked, so resume, wrap and close hook it first. */

/* [go-safe] Hooks thread co if a limited call is running. [-0, +0] */
static void hook_thread(zlua_env *env, lua_State *co)
{
	if (env->limit_depth > 0 && lua_gethook(co) != limit_hook)
		lua_sethook(co, limit_hook, LUA_MASKCOUNT, ZLUA_HOOK_COUNT);
}

/* [lua] Resumes co with narg values from L's top; pushes the results on L
 * and returns their count, or pushes the error and returns -1. */
static int resume(lua_State *L, zlua_env *env, lua_State *co, int narg)
{
	int st, nres;
	/* lua_resume itself refuses dead and non-suspended coroutines. */
	if (!lua_checkstack(co, narg)) {
		lua_pushliteral(L, "too many arguments to resume");
		return -1;
	}
	hook_thread(env, co);
	lua_xmove(L, co, narg);
	st = lua_resume(co, L, narg, &nres);
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
	return -1;
}

/* [lua] coroutine.resume. Upvalue 1: env. */
static int co_resume(lua_State *L)
{
	zlua_env *env = (zlua_env *)lua_touserdata(L, lua_upvalueindex(1));
	lua_State *co = lua_tothread(L, 1);
	int r;
	luaL_argexpected(L, co != NULL, 1, "thread");
	r = resume(L, env, co, lua_gettop(L) - 1);
	if (r < 0) {
		lua_pushboolean(L, 0);
		lua_insert(L, -2);
		return 2;
	}
	lua_pushboolean(L, 1);
	lua_insert(L, -(r + 1));
	return r + 1;
}

/* [lua] The function coroutine.wrap returns. Upvalues: env, coroutine. */
static int co_wrapped(lua_State *L)
{
	zlua_env *env = (zlua_env *)lua_touserdata(L, lua_upvalueindex(1));
	lua_State *co = lua_tothread(L, lua_upvalueindex(2));
	int r = resume(L, env, co, lua_gettop(L));
	int st;
	if (r >= 0)
		return r;
	st = lua_status(co);
	if (st != LUA_OK && st != LUA_YIELD) { /* the coroutine failed: close it */
#if LUA_VERSION_RELEASE_NUM >= 50406
		st = lua_closethread(co, L);
#else
		st = lua_resetthread(co);
#endif
		lua_xmove(co, L, 1); /* the error, possibly replaced by a __close */
	}
	if (st != LUA_ERRMEM && lua_type(L, -1) == LUA_TSTRING) {
		luaL_where(L, 1);
		lua_insert(L, -2);
		lua_concat(L, 2);
	}
	return lua_error(L);
}

/* [lua] coroutine.wrap. Upvalue 1: env. */
static int co_wrap(lua_State *L)
{
	lua_State *co;
	luaL_checktype(L, 1, LUA_TFUNCTION);
	co = lua_newthread(L);
	lua_pushvalue(L, 1);
	lua_xmove(L, co, 1);
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, -2);
	lua_pushcclosure(L, co_wrapped, 2);
	return 1;
}

/* [lua] coroutine.close: hooks co (its __close handlers run on it), then
 * runs the original. Upvalues: env, original close. */
static int co_close(lua_State *L)
{
	zlua_env *env = (zlua_env *)lua_touserdata(L, lua_upvalueindex(1));
	lua_State *co = lua_tothread(L, 1);
	luaL_argexpected(L, co != NULL, 1, "thread");
	hook_thread(env, co);
	lua_pushvalue(L, lua_upvalueindex(2));
	lua_insert(L, 1);
	lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
	return lua_gettop(L);
}

void zlua_open_limits(lua_State *L, zlua_env *env)
{
	lua_getglobal(L, "coroutine");
	if (lua_type(L, -1) != LUA_TTABLE) {
		lua_pop(L, 1);
		return;
	}
	lua_pushlightuserdata(L, env);
	lua_pushcclosure(L, co_resume, 1);
	lua_setfield(L, -2, "resume");
	lua_pushlightuserdata(L, env);
	lua_pushcclosure(L, co_wrap, 1);
	lua_setfield(L, -2, "wrap");
	lua_pushlightuserdata(L, env);
	lua_getfield(L, -2, "close");
	lua_pushcclosure(L, co_close, 2);
	lua_setfield(L, -2, "close");
	lua_pop(L, 1);
}
#endif
