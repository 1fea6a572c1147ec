/* hook.c: the one C hook of every state. It serves the time limits of
 * limited calls (a count event at least every ZLUA_HOOK_COUNT instructions
 * checks a flag that Go sets from any goroutine when the call's context is
 * done, and raises a Lua error then) and the hooks scripts set with
 * debug.sethook (debughook.c), so the two coexist. No Go code runs per
 * tick. */
#include "zlua.h"


int zlua_handler_guard(zlua_env *env)
{
	if (env->limit_depth == 0 || (!env->hook_raised && !zlua_interrupted(env)))
		return 0;
	env->hook_raised = 0;
	return 1;
}

void zlua_hook_hurry(lua_State *L)
{
	lua_sethook(L, zlua_hook, lua_gethookmask(L) | LUA_MASKCOUNT, 1);
}

/* [lua] Raises msg at L's position from inside the hook. L's hook then
 * fires on every instruction, so a pcall in a loop gets the error back at
 * its next instruction. The error is marked as raised from a hook: message
 * handlers run without hooks then, so zlua's do not call the script's
 * (xpcall.c). */
static void raise_from_hook(lua_State *L, zlua_env *env, const char *msg)
{
	zlua_hook_hurry(L);
	zlua_where_script(L, 0); /* the script's line, not a zlua closure's */
	lua_pushstring(L, msg);
	lua_concat(L, 2);
	env->hook_raised = 1;
	lua_error(L);
}

/* [lua] Applies the hook thread L (or the thread at index idx of L) needs
 * given its script record rec: the script's events and count, and while a
 * limited call runs a count event at least every ZLUA_HOOK_COUNT
 * instructions. The script's count is kept exact across both by counting
 * down rec->left. lua_sethook restarts the count, so it is called only
 * when something changes, or when force says the count starts now (a
 * sethook). [-0, +0] */
static void apply(lua_State *L, zlua_env *env, int idx, zlua_hookrec *rec, int force)
{
	lua_State *T = idx != 0 ? lua_tothread(L, idx) : L;
	int mask = rec != NULL ? rec->mask : 0;
	int count = (mask & LUA_MASKCOUNT) ? rec->left : 0;
	if (env->limit_depth > 0) {
		if (!(mask & LUA_MASKCOUNT) || count <= 0 || count > ZLUA_HOOK_COUNT)
			count = ZLUA_HOOK_COUNT; /* (a record forged through the registry may say 0) */
		mask |= LUA_MASKCOUNT;
#ifdef ZLUA_LUAJIT
		/* LuaJIT reports return events from its per-instruction hook
		 * only when a line hook is set too (with a count hook alone
		 * they are lost, in the luajit binary as well): line events
		 * the script did not ask for are not passed on. */
		if (mask & LUA_MASKRET)
			mask |= LUA_MASKLINE;
#endif
	}
	if (T == NULL)
		return;
	if (mask == 0) {
		if (lua_gethook(T) != NULL)
			lua_sethook(T, NULL, 0, 0);
	} else if (force || lua_gethook(T) != zlua_hook || lua_gethookmask(T) != mask ||
		   lua_gethookcount(T) != count) {
		lua_sethook(T, zlua_hook, mask, count);
	}
}

void zlua_hook_apply(lua_State *L, zlua_env *env, int idx, int force)
{
	apply(L, env, idx, zlua_hookrec_of(L, env, idx, 0), force);
}

void zlua_hook_thread(lua_State *L, zlua_env *env, int idx)
{
	lua_State *co = lua_tothread(L, idx);
	/* covered: a count event at least every ZLUA_HOOK_COUNT instructions */
	if (env->limit_depth > 0 && co != NULL &&
	    !(lua_gethook(co) == zlua_hook && (lua_gethookmask(co) & LUA_MASKCOUNT) &&
	      lua_gethookcount(co) <= ZLUA_HOOK_COUNT))
		zlua_hook_apply(L, env, idx, 0);
}

void zlua_hook(lua_State *L, lua_Debug *ar)
{
	zlua_env *env = zlua_envof(L);
	zlua_hookrec *rec;
	int fire = 0;
	env->hook_raised = 0; /* an error raised by the last hook has been handled */
	/* The limit is checked on every event: instructions a script's hook
	 * function runs count down the same counter, and a count event due
	 * while it runs is lost (hooks are off there), so with a line hook on
	 * a one-instruction loop the count events would never come. */
	if (env->limit_depth > 0) {
		if (env->cstack_base != 0 && env->cstack_base - (uintptr_t)&rec > ZLUA_CSTACK_LIMIT)
			raise_from_hook(L, env, "C stack overflow");
		if (zlua_interrupted(env))
			raise_from_hook(L, env, zlua_interrupt_text(env));
	}
	if (ar->event != LUA_HOOKCOUNT) { /* call, return, line: the script's */
		zlua_script_hook(L, env, ar);
		return;
	}
	rec = zlua_hookrec_of(L, env, 0, 0);
	if (rec != NULL && (rec->mask & LUA_MASKCOUNT)) {
		rec->left -= lua_gethookcount(L); /* instructions since the last count event */
		if (rec->left <= 0) {
			rec->left = rec->count;
			fire = 1;
		}
	}
	apply(L, env, 0, rec, 0); /* also drops a limit that has ended */
	if (fire)
		zlua_script_hook(L, env, ar);
}

#ifdef ZLUA_LUAJIT
/* [go-safe] Sets the flag zlua's Lua-side xpcall and jit.on read
 * (xpcall.c). Needs 2 free stack slots. [-0, +0] */
static void set_limited_flag(lua_State *L, zlua_env *env, int on)
{
	lua_rawgeti(L, LUA_REGISTRYINDEX, env->limflag_ref);
	if (lua_type(L, -1) == LUA_TTABLE) { /* unless a script replaced it */
		lua_pushboolean(L, on);
		lua_rawseti(L, -2, 1); /* an existing array slot: no allocation */
	}
	lua_pop(L, 1);
}
#endif

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
		set_limited_flag(L, env, 1);
	}
#endif
	if (env->limit_depth == 0)
		env->hook_raised = 0;
	env->limit_depth++;
	zlua_hook_apply(L, env, 0, 0);
}

void zlua_limit_end(zlua_env *env, lua_State *L)
{
	if (--env->limit_depth > 0)
		return;
	zlua_hook_apply(L, env, 0, 0); /* the script's own hook, if any, stays */
#ifdef ZLUA_LUAJIT
	set_limited_flag(L, env, 0);
	if (env->limit_jit) {
		zlua_opargs a;
		/* The limited call's error (on the stack) keeps the message and
		 * traceback its handler recorded: this operation must not make
		 * them look stale. */
		int errinfo_set = env->errinfo_set;
		memset(&a, 0, sizeof a);
		a.n = 1;
		if (zlua_op(env, L, ZLUA_DO_JITMODE, 0, 0, &a) != LUA_OK)
			lua_pop(L, 1); /* inside __gc: the compiler stays off */
		else
			env->errinfo_set = errinfo_set;
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

void zlua_open_limits(lua_State *L, zlua_env *env)
{
	zlua_open_coroutines(L, env);
	zlua_open_xpcall(L, env);
	zlua_open_debughook(L, env);
}
