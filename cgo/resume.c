/* resume.c: threads (coroutines) driven from Go. Creating one and
 * resuming it are protected operations (the dispatcher calls these), so
 * lua_resume runs in C below zlua's lua_pcall with no Go frame in between:
 * it catches the coroutine's own errors and yields, and anything raised
 * around it (pushing the arguments, growing a stack, a refusal) is caught
 * by that lua_pcall. lua_resume is only ever called on a suspended
 * coroutine: a dead, running or normal one is refused here first, in the
 * standard library's words, because lua_resume's own refusals push a
 * message onto the coroutine, where an allocation failure could not be
 * caught safely. */
#include "zlua.h"

int zlua_costatus(lua_State *L, lua_State *co)
{
	lua_Debug ar;
	if (co == L)
		return ZLUA_CO_RUNNING;
	switch (lua_status(co)) {
	case LUA_YIELD:
		return ZLUA_CO_SUSPENDED;
	case LUA_OK:
		if (lua_getstack(co, 0, &ar)) /* it resumed another one */
			return ZLUA_CO_NORMAL;
		return lua_gettop(co) == 0 ? ZLUA_CO_DEAD : ZLUA_CO_SUSPENDED;
	default: /* it failed */
		return ZLUA_CO_DEAD;
	}
}

/* [lua] lua_resume of co from L with the n values on top of co, on
 * either backend; *nres gets the values co yielded or returned (LuaJIT
 * leaves only those on co). Raises only what lua_resume itself raises.
 * [-n, +*nres] on co */
static int resume_co(lua_State *co, lua_State *L, int n, int *nres)
{
	int st;
#ifdef ZLUA_LUAJIT
	(void)L;
	st = lua_resume(co, n);
	*nres = lua_gettop(co);
#else
	zlua_env *env = zlua_envof(L);
	lua_State *prev = env->running;
	env->running = co;
	st = lua_resume(co, L, n, nres);
	env->running = prev;
	zlua_rearm_hooks(co); /* after an error a hook raised: rearm.c */
#endif
	return st;
}

void zlua_resume_boot(lua_State *L)
{
#ifndef ZLUA_LUAJIT
	/* lua_resume refuses to start a coroutine when the C stack is deep
	 * with a message it creates on the coroutine; anchored here, the
	 * string exists and that creation never allocates. */
	lua_pushliteral(L, "C stack overflow");
	luaL_ref(L, LUA_REGISTRYINDEX);
	/* After a coroutine fails with LUA_ERRERR, lua_resume sets this
	 * message outside its protected call (luaD_seterrorobj); on the
	 * one-crossing path (zlua_resume_scalars) nothing catches a raise
	 * there, so the string must exist and its creation never allocate. */
	lua_pushliteral(L, "error in error handling");
	luaL_ref(L, LUA_REGISTRYINDEX);
#else
	(void)L;
#endif
}

int zlua_thread_new(lua_State *L, zlua_env *env, zlua_opargs *a)
{
	lua_State *co;
	zlua_prog_run(L, env, a->prog, a->prog_len); /* [f] */
	if (lua_type(L, -1) != LUA_TFUNCTION)
		return luaL_error(L, "zlua: thread body is a %s value", luaL_typename(L, -1));
	co = lua_newthread(L); /* [f, co] */
	lua_pushvalue(L, -2);
	lua_xmove(L, co, 1);
	zlua_hook_inherit(L, env, -1); /* as coroutine.create does (debughook.c) */
	return 1;
}

#ifdef ZLUA_LUAJIT
/* [lua] Makes room for n values on the suspended coroutine at index coidx
 * of L (co). LuaJIT raises a failed growth on co itself, and its raise
 * resets co's status to LUA_OK: a yielded coroutine would look not
 * started, and a later resume (by zlua or a script) would call whatever
 * its stack holds. So the growth is a protected operation of its own
 * (ZLUA_DO_GROWCO, on the dispatcher created at boot: nothing allocated
 * when the room exists), and a yielded coroutine the raise broke (its
 * status no longer LUA_YIELD) is killed: its stack is emptied, which
 * LuaJIT's resume sees as dead, and *killed tells Go (zlua_costatus may
 * call it normal). Returns 1 on success; else 0 with the error on L.
 * [-0, +0 or +1 error] */
static int room_on(lua_State *L, zlua_env *env, int coidx, lua_State *co, int n, int *killed)
{
	zlua_opargs g;
	int top = lua_gettop(co), yielded = lua_status(co) == LUA_YIELD;
	*killed = 0;
	memset(&g, 0, sizeof g);
	g.n = n;
	luaL_checkstack(L, 4, "zlua: cannot resume");
	lua_pushvalue(L, coidx);
	if (zlua_op(env, L, ZLUA_DO_GROWCO, 1, 0, &g) == LUA_OK)
		return 1;
	if (yielded && lua_status(co) != LUA_YIELD) { /* the raise broke it */
		lua_settop(co, 0);
		*killed = 1;
	} else {
		lua_settop(co, top); /* intact (not started, or the raise was L's) */
	}
	return 0;
}
#endif

/* [lua] luaL_traceback of the thread that argument 1, a light userdata,
 * points to (failed's protected step). [-1, +1] */
static int co_traceback(lua_State *L)
{
	luaL_traceback(L, (lua_State *)lua_touserdata(L, 1), NULL, 0);
	return 1;
}

/* [lua] After lua_resume failed with status st and left the error value on
 * co: pushes that value on L (possibly replaced, on Lua 5.4, by an error
 * of a __close handler) and records its message with co's traceback.
 * Lua 5.4 closes co (its pending to-be-closed variables run, with the
 * error), as coroutine.close would; the thread is then dead with an empty
 * stack on both backends. Returns the final status. [-0, +1] */
static int failed(lua_State *L, zlua_env *env, lua_State *co, int st)
{
	int errv;
	luaL_checkstack(L, 8, "zlua: cannot read a thread's error");
	lua_xmove(co, L, 1); /* [err] */
	errv = lua_gettop(L);
	/* [err, tb]: taken before co unwinds, under protection: a thread that
	 * died of the memory limit holds what filled the heap, and a raise
	 * here would skip the close that lets it go (nil then stands for the
	 * traceback). */
	lua_pushcfunction(L, co_traceback);
	lua_pushlightuserdata(L, co);
	if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
		lua_pop(L, 1);
		lua_pushnil(L);
	}
#ifndef ZLUA_LUAJIT
	lua_pushvalue(L, errv);
	lua_xmove(L, co, 1); /* back on co's top, where closing looks for it */
	st = zlua_close_thread(L, env, co);
	if (st != LUA_OK) { /* always, for a failed thread: the error, maybe a new one */
		lua_xmove(co, L, 1);
		lua_replace(L, errv);
	}
#endif
	zlua_errinfo_record(L, env, errv, errv + 1); /* as the message handler would */
	lua_settop(L, errv);
	return st;
}

int zlua_thread_resume(lua_State *L, zlua_env *env, zlua_opargs *a)
{
	int base = lua_gettop(L), narg, st, nres;
	lua_State *co;
	zlua_prog_run(L, env, a->prog, a->prog_len); /* [co, args...] */
	co = lua_tothread(L, base + 1);
	narg = lua_gettop(L) - base - 1;
	if (co == NULL)
		return luaL_error(L, "zlua: resume of a %s value", luaL_typename(L, base + 1));
	/* Checked after the program ran: a finalizer run by its allocations
	 * may have resumed co meanwhile. */
	switch (zlua_costatus(L, co)) {
	case ZLUA_CO_DEAD:
		lua_pushliteral(L, "cannot resume dead coroutine");
		return lua_error(L);
	case ZLUA_CO_RUNNING:
	case ZLUA_CO_NORMAL:
		lua_pushliteral(L, "cannot resume non-suspended coroutine");
		return lua_error(L);
	}
#ifdef ZLUA_LUAJIT
	{
		int killed;
		if (!room_on(L, env, base + 1, co, narg + 1, &killed)) {
			if (killed)
				a->ref = ZLUA_CO_KILLED;
			return lua_error(L); /* after room_on's cleanup: the error on L */
		}
	}
#else
	if (!lua_checkstack(co, narg + 1)) /* Lua 5.4: never raises */
		return luaL_error(L, "too many arguments to resume");
#endif
	zlua_hook_thread(L, env, base + 1); /* limited when a limited call runs */
	if (zlua_interrupted(env)) /* its context is done: co stops at its first instruction */
		zlua_hook_hurry(co);
	lua_xmove(L, co, narg);
	st = resume_co(co, L, narg, &nres);
	env->hook_raised = 0; /* an error the coroutine's hook raised has been handled */
	if (st == LUA_OK || st == LUA_YIELD) {
		if (!lua_checkstack(L, nres + 1)) {
			lua_pop(co, nres);
			return luaL_error(L, "too many results to resume");
		}
		lua_xmove(co, L, nres);
		a->ref = st;
		return nres;
	}
	if (zlua_interrupted(env))
		zlua_hook_hurry(L); /* Lua code running in L stops at once too */
	a->ref = failed(L, env, co, st);
	return 1;
}

int zlua_thread_failed(lua_State *L, zlua_env *env, zlua_opargs *a)
{
	lua_State *co = lua_tothread(L, 1);
	if (zlua_interrupted(env))
		zlua_hook_hurry(L);
	a->ref = failed(L, env, co, a->n);
	return 1;
}

int zlua_resume_scalars(zlua_env *env, lua_State *L, int ref, int nin, zlua_callres *r)
{
	int base = lua_gettop(L), st, nres, i, scalars = 1;
	lua_State *co;
	r->base = base;
	r->n = 0;
	r->popped = 1;
	r->status = LUA_OK;
	if (env->limit_depth > 0) /* the thread may need its hook: the full path */
		return ZLUA_RESUME_SLOW;
	if (zlua_cstack_low()) /* the full path's dispatcher refuses it */
		return ZLUA_RESUME_SLOW;
	lua_rawgeti(L, LUA_REGISTRYINDEX, ref); /* [co]: the ref anchors it too */
	co = lua_tothread(L, base + 1);
	if (co == NULL || zlua_costatus(L, co) != ZLUA_CO_SUSPENDED) {
		lua_settop(L, base);
		return ZLUA_RESUME_SLOW; /* the full path refuses it in Lua's words */
	}
#ifdef ZLUA_LUAJIT
	/* room_on's own luaL_checkstack(L, 4) finds the few slots every entry
	 * from Go has (zlua_op pushes three without asking, too); the growth
	 * of co that can raise runs under protection inside it. */
	{
		int killed;
		if (!room_on(L, env, base + 1, co, nin + 1, &killed)) { /* [co, err] */
			lua_remove(L, base + 1);
			r->status = killed ? ZLUA_CO_KILLED : LUA_OK;
			return LUA_ERRRUN;
		}
	}
#else
	if (!lua_checkstack(co, nin + 1)) { /* never raises in 5.4 */
		lua_settop(L, base);
		return ZLUA_RESUME_SLOW;
	}
#endif
	for (i = 0; i < nin; i++)
		zlua_push_in(co, &r->in[i]);
	st = resume_co(co, L, nin, &nres);
	env->hook_raised = 0;
	if (st != LUA_OK && st != LUA_YIELD) {
		zlua_opargs a; /* [co] */
		memset(&a, 0, sizeof a);
		a.n = st;
		a.ref = st;
		st = zlua_op(env, L, ZLUA_DO_COFAILED, 1, 1, &a); /* [err] */
		r->status = st == LUA_OK ? a.ref : LUA_OK;
		r->popped = 0;
		return st;
	}
	lua_settop(L, base);
	r->status = st;
	r->n = nres;
	for (i = 0; i < nres && i < ZLUA_CALL_RES; i++) {
		/* no env: a userdata is only typed here (its ownership check
		 * pushes on co, whose room is not ours); it moves to L below */
		zlua_read_arg(NULL, co, lua_gettop(co) - nres + 1 + i, &r->res[i]);
		if (r->res[i].type > LUA_TNUMBER || r->res[i].type == LUA_TLIGHTUSERDATA)
			scalars = 0;
	}
	if (scalars && nres <= ZLUA_CALL_RES) {
		lua_pop(co, nres);
		return LUA_OK;
	}
	/* Strings and objects move to L, where Go reads them. */
	if (!zlua_reserve(env, L, nres + 1)) { /* LuaJIT: its error value was popped */
		lua_pop(co, nres);
		return ZLUA_RESUME_NOROOM;
	}
	lua_xmove(co, L, nres);
	for (i = 0; i < nres && i < ZLUA_CALL_RES; i++)
		zlua_read_arg(env, L, base + 1 + i, &r->res[i]);
	r->popped = 0;
	return LUA_OK;
}
