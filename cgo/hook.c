/* hook.c: the one C hook of every state. It serves the time limits of
 * limited calls (a count event every env->hook_count instructions, at
 * most ZLUA_HOOK_COUNT and adapted to about a millisecond, checks a flag
 * that Go sets from any goroutine when the call's context is done, and
 * raises a Lua error then; once the flag is set, the allocator makes the
 * hook fire at the next instruction) and the hooks scripts set with
 * debug.sethook (debughook.c), so the two coexist. No Go code runs per
 * tick. */
#include "zlua.h"

#include <time.h>

/* [go-safe] The monotonic clock in nanoseconds (vDSO: no system call). */
static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* [go-safe] [-0, +0] Sets the count of the next checks from the time
 * the last n instructions took: a C function can run for long in one instruction
 * (string.rep, s:upper on a large string, table.insert at the front of a
 * long table), so 1000 of them can take seconds. A span longer than
 * ZLUA_HOOK_SPAN_NS scales the count down to what fits in the span (down
 * to 1: a check per instruction, when each is that slow); a span shorter
 * than a quarter of it doubles the count, up to ZLUA_HOOK_COUNT. A Go
 * function or a script's hook that ran long in between shrinks it too;
 * it grows back in a few checks. */
static void adapt_count(zlua_env *env, int n)
{
	uint64_t now = now_ns(), dt = now - env->hook_at;
	int c = env->hook_count;
	env->hook_at = now;
	if (n <= 0)
		n = 1;
	if (dt > ZLUA_HOOK_SPAN_NS) {
		uint64_t fit = (uint64_t)n * ZLUA_HOOK_SPAN_NS / dt;
		c = fit < 1 ? 1 : (int)fit;
	} else if (dt < ZLUA_HOOK_SPAN_NS / 4 && c < ZLUA_HOOK_COUNT) {
		c = c * 2 < ZLUA_HOOK_COUNT ? c * 2 : ZLUA_HOOK_COUNT;
	}
	env->hook_count = c;
}


int zlua_handler_guard(zlua_env *env)
{
	if (env->limit_depth == 0 || (!env->hook_raised && !zlua_interrupted(env)))
		return 0;
	env->hook_raised = 0;
	return 1;
}

/* The events a hurried hook fires on: the next instruction, and the next
 * call, C functions included. A C library function that calls C functions
 * in a loop (table.sort with rawequal as its comparator; on Lua 5.4 a sort
 * of a proxy table whose __index is a C function and whose __len is huge)
 * runs no instruction between them, but each call passes the call hook
 * (lua.c's and luajit.c's SIGINT hooks ask for calls for the same
 * reason). */
#define HURRY_MASK (LUA_MASKCOUNT | LUA_MASKCALL)

void zlua_hook_hurry(lua_State *L)
{
	lua_sethook(L, zlua_hook, lua_gethookmask(L) | HURRY_MASK, 1);
}

void zlua_hook_hurry_running(zlua_env *env)
{
#ifdef ZLUA_LUAJIT
	lua_State *T = env->L; /* LuaJIT's hooks belong to the state */
#else
	lua_State *T = env->running;
#endif
	env->hook_hurried = 1;
	if (T != NULL)
		zlua_hook_hurry(T);
}

/* [lua] Raises the interruption (or, deep, "C stack overflow") at L's
 * position from inside the hook; once the limited call raised an
 * interruption, raising it again repeats the first one's message and
 * position (zlua_push_interrupt). L's hook then fires on every instruction, so a pcall in a loop gets the error back at
 * its next instruction. The error is marked as raised from a hook: message
 * handlers run without hooks then, so zlua's do not call the script's
 * (xpcall.c). */
static void raise_from_hook(lua_State *L, zlua_env *env, int deep)
{
	int level = 0;
	lua_Debug up;
	zlua_hook_hurry(L);
	/* At the call or return of a C function (it, and perhaps table.sort
	 * below it, are C), the position is the nearest Lua caller's. Else
	 * level 0 is the running Lua function (at a count or line event, or
	 * a Lua callee at its call event on Lua 5.4: its first line). */
	while (lua_getstack(L, level, &up) && lua_getinfo(L, "S", &up) && up.what[0] == 'C')
		level++;
	if (deep) {
		zlua_where_script(L, level); /* the script's line, not a zlua closure's */
		lua_pushliteral(L, "C stack overflow");
		lua_concat(L, 2);
	} else {
		zlua_push_interrupt(L, env, level); /* the first one's message, once there is one */
	}
	env->hook_raised = 1;
	lua_error(L);
}

/* [go-safe] Whether the limited calls in progress want their count
 * event now. On Lua 5.4 a thread with any count hook runs
 * luaG_traceexec before every instruction (its CallInfo's trap stays
 * set), which doubles the time of plain Lua code; LuaJIT's interpreter
 * switches to its per-instruction dispatch. So when the poke signal can
 * reach the call's OS thread (poke.c, checked as the outermost limited
 * call begins), a limited call runs with no hook of its own until its
 * context is done: the watcher's signals (until the call ends), the
 * allocator and the coroutine, resume and close paths hurry the running
 * thread then, and from there on the count hook stays until the call
 * ends. Without the signal (ZLUA_POKE_SIGNAL=off, or a handler not
 * zlua's) the count hook runs from the start, as it must: nothing else
 * would stop a loop that neither allocates nor calls. */
static int limit_armed(zlua_env *env)
{
	if (env->limit_depth == 0)
		return 0;
	return !env->limit_lazy || env->hook_hurried || zlua_interrupted(env);
}

/* [lua] Applies the hook thread L (or the thread at index idx of L) needs
 * given its script record rec: the script's events and count, and while a
 * limited call runs a count event at least every env->hook_count
 * instructions. The script's count is kept exact across both by counting
 * down rec->left. lua_sethook restarts the count, so it is called only
 * when something changes, or when force says the count starts now (a
 * sethook). [-0, +0] */
static int apply(lua_State *L, zlua_env *env, int idx, zlua_hookrec *rec, int force)
{
	lua_State *T = idx != 0 ? lua_tothread(L, idx) : L;
	int mask = rec != NULL ? rec->mask : 0;
	int count = (mask & LUA_MASKCOUNT) ? rec->left : 0;
	int armed = limit_armed(env), changed;
#ifdef ZLUA_LUAJIT
	if (env->watch != 0) { /* debughook.c: every instruction for a while */
		mask |= LUA_MASKCOUNT;
		count = 1;
	} else if ((mask & LUA_MASKCOUNT) && env->hook_inwrap) {
		count = 1; /* until the wrapper's end (zlua_hook) */
	}
#endif
	if (armed) {
		/* A script's count of at most ZLUA_HOOK_EXACT is kept as it
		 * is, even when the limit's adaptive count is smaller (slow
		 * instructions or a slow Go call shrank it): with any other
		 * count, the count events lost while the script's hook function
		 * runs (hooks are off there; stock Lua loses them too) would not
		 * be stock's. So few instructions between checks keep the
		 * deadline. A larger count is composed with the limit's, which
		 * is exact unless the limit's count falls below the number of
		 * instructions the hook function runs. */
		int exact = (mask & LUA_MASKCOUNT) && rec->count <= ZLUA_HOOK_EXACT &&
			    count <= ZLUA_HOOK_EXACT; /* (left: bounded in a forged record too) */
		if (!(mask & LUA_MASKCOUNT) || count <= 0 || (count > env->hook_count && !exact))
			count = env->hook_count; /* (a record forged through the registry may say 0) */
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
		return 0;
	changed = 0;
	if (mask == 0) {
		if (lua_gethook(T) != NULL) {
			lua_sethook(T, NULL, 0, 0);
			changed = 1;
		}
	} else if (force || lua_gethook(T) != zlua_hook || lua_gethookmask(T) != mask ||
		   lua_gethookcount(T) != count) {
		lua_sethook(T, zlua_hook, mask, count);
		changed = 1;
	}
	/* A lazy limit's context that became done while this ran: the poke's
	 * handler may have hurried T between the test above and the
	 * lua_sethook that just replaced its hurry (it marks the state
	 * interrupted before it signals), so T is hurried again. */
	if (changed && !armed && env->limit_lazy && zlua_interrupted(env))
		zlua_hook_hurry(T);
	return changed;
}

void zlua_hook_apply(lua_State *L, zlua_env *env, int idx, int force)
{
	apply(L, env, idx, zlua_hookrec_of(L, env, idx, 0), force);
}

void zlua_hook_thread(lua_State *L, zlua_env *env, int idx)
{
	lua_State *co = lua_tothread(L, idx);
	/* covered: a count event at least every env->hook_count instructions
	 * (a lazy limit's context not done: none is due) */
	if (limit_armed(env) && co != NULL &&
	    !(lua_gethook(co) == zlua_hook && (lua_gethookmask(co) & LUA_MASKCOUNT) &&
	      lua_gethookcount(co) <= env->hook_count))
		zlua_hook_apply(L, env, idx, 0);
}

/* [lua] Whether the limit may raise at this event: always, but for the
 * call or return of zlua's own machinery, the dispatcher of an operation
 * Go asked for (a Go function that keeps working after the deadline
 * passed gets its Table.Get done; the Lua code it runs is stopped) or the
 * message handler, which turns the error being raised into the caller's;
 * and, on LuaJIT, for a call entering a Lua function: the count event of
 * its first instruction comes next and names its line (LuaJIT reports
 * line 0 at the call). [-0, +0] */
static int may_raise(lua_State *L, lua_Debug *ar)
{
	lua_CFunction f;
	if (ar->event == LUA_HOOKCOUNT || ar->event == LUA_HOOKLINE || !lua_getinfo(L, "f", ar))
		return 1;
	f = lua_tocfunction(L, -1);
	lua_pop(L, 1);
	if (f != NULL)
		return f != zlua_dispatch && f != zlua_msgh;
#ifdef ZLUA_LUAJIT
	return ar->event != LUA_HOOKCALL;
#else
	return 1;
#endif
}

#ifndef ZLUA_LUAJIT
/* [lua] Whether the event is the call of a __close method Lua 5.4 runs
 * while it unwinds the interruption to the dispatcher's pcall (a string
 * buffer's box that gsub, string.rep, table.concat or string.format left
 * open): a C function at the bottom of the stack, no Lua frame above it,
 * given the interruption's message as its error (second argument).
 * Raising again there would replace the error the script's position and
 * traceback were taken for with one that has neither (probe Z3-F6); the
 * hook stays hurried, so a call that goes on is stopped at its next event.
 * [-0, +0] */
static int closing_interruption(lua_State *L, zlua_env *env, const lua_Debug *ar)
{
	lua_Debug up;
	const char *msg, *want;
	size_t n, w;
	int level;
	if (ar->event != LUA_HOOKCALL || lua_gettop(L) < 2 || lua_type(L, 2) != LUA_TSTRING)
		return 0;
	for (level = 0; lua_getstack(L, level, &up); level++)
		if (!lua_getinfo(L, "S", &up) || up.what[0] != 'C')
			return 0;
	msg = lua_tolstring(L, 2, &n);
	want = zlua_interrupt_text(env);
	w = strlen(want);
	return n >= w && memcmp(msg + n - w, want, w) == 0;
}
#endif

void zlua_hook(lua_State *L, lua_Debug *ar)
{
	zlua_env *env = zlua_envof(L);
	zlua_hookrec *rec;
	int fire = 0;
#ifdef ZLUA_LUAJIT
	int inwrap = 0;
#endif
	env->hook_raised = 0; /* an error raised by the last hook has been handled */
	env->hook_hurried = 0;
	/* The limit is checked on every event: instructions a script's hook
	 * function runs count down the same counter, and a count event due
	 * while it runs is lost (hooks are off there), so with a line hook on
	 * a one-instruction loop the count events would never come. */
	if (env->limit_depth > 0) {
		int deep = env->cstack_base != 0 && env->cstack_base - (uintptr_t)&rec > ZLUA_CSTACK_LIMIT;
		if ((deep || zlua_interrupted(env)) && may_raise(L, ar)
#ifndef ZLUA_LUAJIT
		    && (deep || !closing_interruption(L, env, ar))
#endif
		)
			raise_from_hook(L, env, deep);
	}
	if (ar->event != LUA_HOOKCOUNT) { /* call, return, line: the script's */
		zlua_script_hook(L, env, ar);
		return;
	}
	if (env->limit_depth > 0)
		adapt_count(env, lua_gethookcount(L));
	rec = zlua_hookrec_of(L, env, 0, 0);
#ifdef ZLUA_LUAJIT
	if (env->watch != 0 || (rec != NULL && (rec->mask & LUA_MASKCOUNT)))
		inwrap = zlua_jit_count_event(L, env);
#endif
	if (rec != NULL && (rec->mask & LUA_MASKCOUNT)) {
		int n = lua_gethookcount(L); /* instructions since the last count event */
#ifdef ZLUA_LUAJIT
		/* Stock LuaJIT runs no instruction of zlua's Lua wrappers
		 * (debughook.c), so the script's count skips them where it can
		 * tell: an event due inside one waits, the hook firing at every
		 * instruction meanwhile, for the first instruction after it, and
		 * those of the wrapper are not counted. The wrapper instructions
		 * before the event are (the count does not say where its
		 * instructions ran): exact with a count of 1, else a script's
		 * event can come up to a wrapper's few instructions early per
		 * wrapper call since the last one. */
		if (inwrap) {
			rec->left -= n - 1;
			if (rec->left < 1)
				rec->left = 1;
			env->hook_inwrap = 1;
			n = 0;
		} else {
			env->hook_inwrap = 0;
		}
#endif
		rec->left -= n;
		if (rec->left <= 0) {
			rec->left = rec->count;
			fire = 1;
		}
	}
	/* also drops a limit that has ended. lua_sethook walks the thread's
	 * whole CallInfo list (Lua 5.4 sets every Lua frame's trap), so at a
	 * deep recursion (a stack overflow test: about a million frames) it
	 * takes milliseconds: that time is zlua's, not the script's, and is
	 * not measured, or the next span would look slow, shrink the count,
	 * which calls lua_sethook again, and so on, down to a walk of the
	 * whole stack per instruction. */
	if (apply(L, env, 0, rec, 0))
		env->hook_at = now_ns();
	if (fire)
		zlua_script_hook(L, env, ar);
}

#ifdef ZLUA_LUAJIT
/* [go-safe] Sets the flag zlua's Lua-side xpcall and jit.on read
 * (xpcall.c); setting it forgets the compiler state a script asked for
 * during the last limited call. Needs 2 free stack slots. [-0, +0] */
static void set_limited_flag(lua_State *L, zlua_env *env, int on)
{
	lua_rawgeti(L, LUA_REGISTRYINDEX, env->limflag_ref);
	if (lua_type(L, -1) == LUA_TTABLE) { /* unless a script replaced it */
		lua_pushboolean(L, on);
		lua_rawseti(L, -2, 1); /* an existing array slot: no allocation */
		if (on) {
			lua_pushnil(L);
			lua_rawseti(L, -2, 2);
		}
	}
	lua_pop(L, 1);
}

/* [go-safe] Whether the outermost limited call's end turns the compiler
 * back on: the last jit.on() or jit.off() a script called during it, else
 * the state the compiler had before it. Raw reads only: never raises.
 * Needs 2 free stack slots. [-0, +0] */
static int jit_wanted(lua_State *L, zlua_env *env)
{
	int want = env->limit_jit_on;
	lua_rawgeti(L, LUA_REGISTRYINDEX, env->limflag_ref);
	if (lua_type(L, -1) == LUA_TTABLE) {
		lua_rawgeti(L, -1, 2);
		if (lua_type(L, -1) == LUA_TBOOLEAN)
			want = lua_toboolean(L, -1);
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	return want;
}
#endif

zlua_limitprev zlua_limit_begin(zlua_env *env, lua_State *L)
{
	zlua_limitprev prev;
	prev.running = env->running;
	prev.poke = zlua_poke_begin(env);
	prev.tid = zlua_own_tid();
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
	if (env->limit_depth == 0) {
		env->hook_at = now_ns();
		env->limit_lazy = zlua_poke_ready_at(env->hook_at);
		env->hook_raised = 0;
		env->hook_hurried = 0;
		env->int_first_len = 0;
		env->hook_count = ZLUA_HOOK_COUNT_START;
	}
	if (zlua_poke_nest_full())
		env->limit_lazy = 0; /* the handler cannot see this env */
	env->running = L; /* the thread the limited chunk runs on */
	env->limit_depth++;
	zlua_hook_apply(L, env, 0, 0);
	return prev;
}

void zlua_limit_end(zlua_env *env, lua_State *L, lua_State *prev, uintptr_t prev_poke, int tid)
{
	zlua_poke_end(env, prev_poke, tid);
	env->running = prev; /* an outer call's thread: never a thread gone since */
	--env->limit_depth;
	zlua_interrupt_forget(env);
	if (env->limit_depth > 0) {
		/* A nested limited call (a fresh context) began and ended inside
		 * an outer one whose context is done: its begin reset the hook's
		 * hurry, so the outer code would run on to the next count event
		 * (a short chunk ran to its end); hurry again. */
		if (zlua_interrupted(env))
			zlua_hook_hurry_running(env);
		return;
	}
	zlua_hook_apply(L, env, 0, 0); /* the script's own hook, if any, stays */
#ifdef ZLUA_LUAJIT
	if (env->limit_jit && !jit_wanted(L, env))
		env->limit_jit = 0; /* it was off, or a script turned it off */
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
	zlua_open_cstack(L, env);
}
