/* state.c: creating and closing a state with zlua's registry entries. */
#include "zlua.h"

const char zlua_marker = 0;

#ifdef ZLUA_LUAJIT
/* LuaJIT numbers are doubles; the integer subtype does not exist. */
int zlua_isinteger(lua_State *L, int idx)
{
	(void)L;
	(void)idx;
	return 0;
}
#endif


#ifdef ZLUA_LUAJIT
int zlua_collect(lua_State *L);  /* protect.c */
#endif

void zlua_new_metatable(lua_State *L, zlua_env *env, const char *name)
{
	lua_createtable(L, 0, 4);
	lua_pushlightuserdata(L, (void *)&zlua_marker);
	lua_pushlightuserdata(L, env);
	lua_rawset(L, -3);
	lua_pushstring(L, name);
	lua_setfield(L, -2, "__name");
	lua_pushstring(L, ZLUA_PROTECTED_MT);
	lua_setfield(L, -2, "__metatable");
}

void zlua_push_regtable(lua_State *L, int ref)
{
	if (zlua_rawgeti_type(L, LUA_REGISTRYINDEX, ref) != LUA_TTABLE)
		luaL_error(L, "zlua: registry entry %d is not zlua's table (replaced by a script)", ref);
}

/* [lua] Boot step run under protection: creates the dispatcher, the message
 * handler, the errinfo table, the function sentinel metatable and the
 * anchored "__name" key, each kept in the registry. [-0, +0] */
static int boot(lua_State *L)
{
	zlua_env *env = (zlua_env *)lua_touserdata(L, 1);

	lua_pushcfunction(L, zlua_dispatch); /* finds env with zlua_envof */
	env->dispatch_ref = luaL_ref(L, LUA_REGISTRYINDEX);

	lua_pushcfunction(L, zlua_msgh);
	env->msgh_ref = luaL_ref(L, LUA_REGISTRYINDEX);

	lua_createtable(L, 3, 0);
	env->errinfo_ref = luaL_ref(L, LUA_REGISTRYINDEX);

	zlua_new_metatable(L, env, "zlua.function");
	lua_pushcfunction(L, zlua_funcud_gc);
	lua_setfield(L, -2, "__gc");
	env->funcmt_ref = luaL_ref(L, LUA_REGISTRYINDEX);

	lua_pushliteral(L, "__name");
	env->name_ref = luaL_ref(L, LUA_REGISTRYINDEX);

#ifdef ZLUA_LUAJIT
	lua_pushcfunction(L, zlua_collect);
	env->collect_ref = luaL_ref(L, LUA_REGISTRYINDEX);
	/* LuaJIT keeps the ref freelist at registry[0], nil until the first
	 * luaL_unref stores into it. Given an integer here (luaL_ref and
	 * luaL_unref only copy integers into it from then on), the key exists
	 * through every rehash, so releasing a ref while Lua runs (zlua_unrefs
	 * from a Go call) stores into an existing slot and never allocates.
	 * (Once the registry has an array part, index 0 is an array slot
	 * anyway; this does not rely on that.) */
	lua_rawgeti(L, LUA_REGISTRYINDEX, 0);
	if (lua_isnil(L, -1)) {
		lua_pushinteger(L, 0);
		lua_rawseti(L, LUA_REGISTRYINDEX, 0);
	}
	lua_pop(L, 1);
#endif

	lua_pushliteral(L, "FILE*");
	env->filemt_ref = luaL_ref(L, LUA_REGISTRYINDEX);

	/* LuaJIT interns the segment of a light userdata's address the first
	 * time one is pushed (an allocation): the dispatcher's token is
	 * pushed here, under protection, so zlua_op never allocates for it */
	lua_pushlightuserdata(L, &env->op_token);
	lua_pop(L, 1);

	zlua_resume_boot(L);
	return 0;
}

/* [go-safe] Runs boot protected on either backend: LuaJIT's pushcclosure
 * allocates, so there lua_cpcall makes the closure inside protection.
 * [-0, +0] */
static int protected_boot(lua_State *L, zlua_env *env)
{
	int st;
#ifdef ZLUA_LUAJIT
	st = lua_cpcall(L, boot, env);
#else
	lua_pushcfunction(L, boot); /* light C function: no allocation */
	lua_pushlightuserdata(L, env);
	st = lua_pcall(L, 1, 0, 0);
#endif
	if (st != LUA_OK)
		lua_pop(L, 1);
	return st;
}

zlua_env *zlua_env_new(uintptr_t goid)
{
	zlua_env *env = (zlua_env *)calloc(1, sizeof *env);
	if (env == NULL)
		return NULL;
	env->goid = goid;
	env->owner_tid = &env->own_tid;
	env->dispatch_ref = env->msgh_ref = env->errinfo_ref = LUA_NOREF;
	env->funcmt_ref = env->name_ref = env->filemt_ref = LUA_NOREF;
	env->collect_ref = LUA_NOREF;
	env->cache_ref = env->indexer_ref = env->ffi_ref = env->jiteq_ref = env->jitval_ref = LUA_NOREF;
	env->hooks_ref = env->limflag_ref = env->jitstatus_ref = env->package_ref = env->eq_ref = LUA_NOREF;
	env->L = zlua_newstate(env);
	if (env->L == NULL || protected_boot(env->L, env) != LUA_OK) {
		zlua_env_close(env);
		return NULL;
	}
	return env;
}

void zlua_env_close_state(zlua_env *env)
{
	if (env->L == NULL)
		return;
	lua_close(env->L); /* runs every __gc; they may still use env */
	env->L = NULL;
#ifdef ZLUA_LUAJIT
	zlua_close_arena(env); /* after the state: its blocks live in the arena */
#endif
	/* The standard streams are not closed with the state (io never closes
	 * them), so output a script wrote with io.write or print could sit in
	 * stdio's buffers until a process exit that does not flush them (Go's
	 * os.Exit): flush them now, as the lua interpreter's exit does. */
	fflush(stdout);
	fflush(stderr);
}

void zlua_env_abandoned(zlua_env *env)
{
	if (env->L == NULL)
		return;
	/* What the abandoned call left that points into its dead C frames or
	 * would stop the finalizers lua_close runs: the operation's arguments
	 * on that stack, the C stack base of that thread (another thread
	 * closes), a limited call's hook and interrupt, a leaf call's open
	 * results. The Lua side needs nothing: lua_close unwinds the main
	 * thread's CallInfo list (Lua 5.4) or its frames (LuaJIT) itself and
	 * runs every finalizer in a fresh protected call. */
	env->op_pending = NULL;
	env->cstack_base = 0;
	env->errinfo_set = 0;
	env->hook_raised = 0;
	env->limit_depth = 0;
	env->int_first_len = 0;
	__atomic_store_n(&env->interrupt, 0, __ATOMIC_RELEASE);
	lua_sethook(env->L, NULL, 0, 0);
	zlua_jit_leafreset(env);
}

/* envs zlua_env_close kept for the signal's handler (poke.c) */
static int kept_envs;

void zlua_env_close(zlua_env *env)
{
	if (env == NULL)
		return;
	zlua_env_close_state(env);
	zlua_reclaim(env);
	free(env->prog);
	free(env->leaf.prog);
	free(env->freed);
	free(env->armed);
	free(env->fastfn);
	free(env->objcnt);
	free(env->objcharge);
	free(env->slot_ud);
	free(env->objfreed);
	free(env->svstate);
	free(env->svcharge);
	free(env->svfreed);
	zlua_dirs_free(env);
	free(env->warnbuf);
	/* A thread still names env for the signal's handler (a limited call
	 * whose goroutine moved to another thread): the struct stays, with no
	 * limit running, so the handler there reads it and does nothing. */
	if (env->limits_open == 0)
		free(env);
	else
		__atomic_add_fetch(&kept_envs, 1, __ATOMIC_RELAXED);
}

int zlua_kept_envs(void)
{
	return __atomic_load_n(&kept_envs, __ATOMIC_RELAXED);
}

int zlua_prog_reserve(zlua_env *env, size_t need)
{
	return zlua_prog_reserve_max(env, need, (size_t)-1);
}

int zlua_prog_reserve_max(zlua_env *env, size_t need, size_t max)
{
	size_t cap = env->prog_cap ? env->prog_cap : 256;
	unsigned char *p;
	if (need <= env->prog_cap)
		return 1;
	while (cap < need)
		cap *= 2;
	if (cap > max && need <= max)
		cap = max;
	p = (unsigned char *)realloc(env->prog, cap);
	if (p == NULL)
		return 0;
	env->prog = p;
	env->prog_cap = cap;
	return 1;
}

void zlua_prog_shrink(zlua_env *env)
{
	free(env->prog);
	env->prog = NULL;
	env->prog_cap = 0;
	env->prog_len = 0;
#ifdef ZLUA_LUAJIT
	if (env->leaf.open == 0 && env->leaf.prog_cap > ZLUA_PROG_KEEP) {
		free(env->leaf.prog);
		env->leaf.prog = NULL;
		env->leaf.prog_cap = 0;
		env->leaf.prog_len = 0;
	}
#endif
}

int zlua_armed_reserve(zlua_env *env, size_t n)
{
	size_t cap = env->armed_cap ? env->armed_cap : 1024;
	unsigned char *p;
	if (n < env->armed_cap)
		return 1;
	while (cap <= n)
		cap *= 2;
	p = (unsigned char *)realloc(env->armed, cap);
	if (p == NULL)
		return 0;
	memset(p + env->armed_cap, 0, cap - env->armed_cap);
	env->armed = p;
	env->armed_cap = cap;
	if (env->fastfn_cap < ZLUA_FAST_FNS) {
		/* the fast ids' state grows with armed; without it (no memory)
		 * the new ids take the sentinel's trampoline */
		size_t fcap = cap < ZLUA_FAST_FNS ? cap : ZLUA_FAST_FNS;
		zlua_fastfn *f = (zlua_fastfn *)realloc(env->fastfn, fcap * sizeof *f);
		if (f != NULL) {
			memset(f + env->fastfn_cap, 0, (fcap - env->fastfn_cap) * sizeof *f);
			env->fastfn = f;
			env->fastfn_cap = fcap;
		}
	}
	return 1;
}

void zlua_reclaim(zlua_env *env)
{
	while (env->inflight != NULL) {
		zlua_inflight *f = env->inflight;
		env->inflight = f->next;
		free(f);
	}
}
