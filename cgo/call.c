/* call.c: Go calling a Lua function it holds by registry ref, in one
 * crossing for common cases. */
#include "zlua.h"

__thread char zlua_tid_anchor __attribute__((tls_model("initial-exec")));

/* The calling thread's last yield to the Go scheduler taken by any Env
 * (callbackgate's yield.go), in nanoseconds of Go's monotonic clock since
 * its base; 0 before the first. Per thread, not per Env: a goroutine
 * that drives many Envs stays on one thread through all the cgo calls
 * between two of its passes through the scheduler. */
static __thread int64_t zlua_yield_clock;

int64_t zlua_thread_yield_at(void)
{
	return zlua_yield_clock;
}

void zlua_set_thread_yield_at(int64_t t)
{
	zlua_yield_clock = t;
}

int zlua_on_thread(const uintptr_t *owner)
{
	return __atomic_load_n(owner, __ATOMIC_SEQ_CST) == zlua_tid();
}

/* [go-safe] Interprets a program of non-allocating ops only (nil,
 * booleans, numbers, refs, objects whose userdata is in the cache):
 * nothing here can raise, so it may run outside protection. The caller
 * guarantees the stack slots (one more than the values, for the cache).
 * Returns 0 on anything else (the caller then takes the protected path). */
static int run_simple(zlua_env *env, lua_State *L, const unsigned char *p, size_t n)
{
	const unsigned char *end = p + n;
	while (p < end) {
		int op = *p++;
		if (zlua_push_scalar_op(L, op, &p))
			continue;
		if (op == ZLUA_OP_OBJ) { /* a cached userdata is found without allocating */
			uint32_t slot, gen;
			memcpy(&slot, p, sizeof slot);
			memcpy(&gen, p + 4, sizeof gen);
			if (!p[16] || !zlua_obj_cached(L, env, slot, gen))
				return 0;
			p += 17;
			continue;
		}
		if (op == ZLUA_OP_LIGHTUD) { /* an opaque handle: LuaJIT's segment is interned (zlua_sv_init) */
			uint64_t h;
			memcpy(&h, p, sizeof h);
			p += sizeof h;
			lua_pushlightuserdata(L, (void *)(uintptr_t)h);
			continue;
		}
		return 0;
	}
	return 1;
}

/* [go-safe] Reads the results of a call that started at stack top base
 * into r: they start above base, or above base + 1 when msgh (the message
 * handler is still there, below them). When all are scalars they are
 * popped with the handler; otherwise the handler is removed and they stay,
 * starting above base. [-(msgh), -results if popped] */
static void read_results(zlua_env *env, lua_State *L, int base, int msgh, zlua_callres *r)
{
	int first = base + 1 + msgh, n = lua_gettop(L) - first + 1, i, scalars = 1;
	r->n = n;
	r->popped = 0;
	for (i = 0; i < n && i < ZLUA_CALL_RES; i++) {
		zlua_read_arg(env, L, first + i, &r->res[i]);
		if (r->res[i].type > LUA_TNUMBER || r->res[i].type == LUA_TLIGHTUSERDATA)
			scalars = 0; /* strings and objects must stay on the stack */
	}
	if (scalars && n <= ZLUA_CALL_RES) {
		lua_settop(L, base);
		r->popped = 1;
	} else if (msgh) {
		lua_remove(L, base + 1); /* strings read in place stay valid */
	}
}

/* [go-safe] read_results for a call made with nres 1 (lua_pcall left
 * exactly one result, above the message handler at base + 1) when that
 * result is nil, a boolean or a number: read without the loop and the
 * lua_gettop, then popped with the handler. Returns 0, changing nothing,
 * for any other value (read_results then reads it). [-(2), +0 if read] */
static inline int read_one_scalar(lua_State *L, int base, zlua_callres *r)
{
	zlua_arg *a = &r->res[0];
#ifndef ZLUA_LUAJIT
	if (lua_isinteger(L, -1)) {
		a->type = LUA_TNUMBER;
		a->isint = 1;
		a->v.i = lua_tointeger(L, -1);
	} else
#endif
	{
		int t = lua_type(L, -1);
		a->isint = 0;
		switch (t) {
		case LUA_TNUMBER:
			a->v.n = lua_tonumber(L, -1);
			break;
		case LUA_TBOOLEAN:
			a->v.b = lua_toboolean(L, -1);
			break;
		case LUA_TNIL:
			a->v.i = 0;
			break;
		default:
			return 0;
		}
		a->type = t;
	}
	a->len = 0;
	r->n = 1;
	r->popped = 1;
	lua_settop(L, base);
	return 1;
}

int zlua_callref(zlua_env *env, lua_State *L, int nres, int simple, zlua_callres *r)
{
	int base = lua_gettop(L), st;
	r->base = base;
	/* garbage a refused allocation left (see zlua_op) is collected after
	 * the program is copied, which zlua_op does: take that path */
	if (zlua_refusal_pending(env) && env->cstack_base == 0)
		simple = 0;
	else if (zlua_cstack_low()) /* zlua_op's dispatcher refuses it */
		simple = 0;
	if (simple) {
		size_t n = env->prog_len;
		env->prog_len = 0;
		zlua_push_msgh(L, env);
		/* No allocation happens before lua_pcall, so no finalizer can
		 * re-enter Go and rebuild env->prog while it is read in place. */
		if (!run_simple(env, L, env->prog, n)) {
			lua_settop(L, base);
			env->prog_len = n;
			simple = 0;
		} else {
			env->errinfo_set = 0;
			st = lua_pcall(L, lua_gettop(L) - base - 2, nres, base + 1);
			if (st == LUA_OK) {
				if (nres != 1 || !read_one_scalar(L, base, r))
					read_results(env, L, base, 1, r);
				return st;
			}
			lua_remove(L, base + 1);
		}
	}
	if (!simple) {
		zlua_opargs a;
		memset(&a, 0, sizeof a);
		a.n = nres;
		a.ref = LUA_NOREF;
		st = zlua_op(env, L, ZLUA_DO_CALLPROG, 0, nres, &a);
	}
	if (st == LUA_OK)
		read_results(env, L, base, 0, r);
	else if (simple && zlua_refusal_pending(env)) /* zlua_op did it on the other path */
		zlua_collect_after_refusal(env, L);
	return st;
}

/* zlua_callscalars, and with held 1 zlua_callheld: one body, inlined into
 * each, so that the scalar calls' argument loop stays as it was before
 * held objects. */
static inline __attribute__((always_inline)) int callscalars(zlua_env *env, lua_State *L, int ref,
							     int selfref, int nin, int nres,
							     zlua_callres *r, int held)
{
	int base = lua_gettop(L), st, i, nargs = nin;
	r->base = base;
	if (zlua_cstack_low()) { /* zlua_op's dispatcher raises the refusal */
		zlua_opargs a;
		memset(&a, 0, sizeof a);
		a.ref = LUA_NOREF;
		if ((st = zlua_op(env, L, ZLUA_DO_RESERVE, 0, 0, &a)) != LUA_OK)
			return st; /* the error value on top */
	}
	if (zlua_refusal_pending(env) && env->cstack_base == 0) /* see zlua_op */
		zlua_collect_after_refusal(env, L);
	zlua_push_msgh(L, env);
	lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
	if (selfref != LUA_NOREF) {
		lua_rawgeti(L, LUA_REGISTRYINDEX, selfref);
		nargs++;
	}
	if (held) {
		for (i = 0; i < nin; i++) {
			if (r->in[i].type != LUA_TUSERDATA) {
				zlua_push_in(L, &r->in[i]);
			} else if (!zlua_obj_push_held(L, env, &r->in[i])) {
				/* nothing ran since Go found the slot, so a hit
				 * is its live userdata; a miss calls nothing */
				lua_settop(L, base);
				return ZLUA_CALL_MISS;
			}
		}
	} else {
		for (i = 0; i < nin; i++)
			zlua_push_in(L, &r->in[i]);
	}
	env->errinfo_set = 0;
	st = lua_pcall(L, nargs, nres, base + 1);
	if (st == LUA_OK) {
		if (nres != 1 || !read_one_scalar(L, base, r))
			read_results(env, L, base, 1, r);
		return st;
	}
	lua_remove(L, base + 1); /* the message handler, below the error value */
	if (zlua_refusal_pending(env))
		zlua_collect_after_refusal(env, L);
	return st;
}

int zlua_callscalars(zlua_env *env, lua_State *L, int ref, int selfref, int nin, int nres,
		     zlua_callres *r)
{
	return callscalars(env, L, ref, selfref, nin, nres, r, 0);
}

int zlua_callheld(zlua_env *env, lua_State *L, int ref, int selfref, int nin, int nres,
		  zlua_callres *r)
{
	return callscalars(env, L, ref, selfref, nin, nres, r, 1);
}

int zlua_getglobal(zlua_env *env, lua_State *L, zlua_callres *r)
{
	return zlua_tableop(env, L, ZLUA_DO_GETGLOBAL, 1, r);
}

int zlua_tableop(zlua_env *env, lua_State *L, int opcode, int nres, zlua_callres *r)
{
	zlua_opargs a;
	int base = lua_gettop(L), st;
	memset(&a, 0, sizeof a);
	a.ref = LUA_NOREF;
	r->base = base;
	r->n = 0;
	r->popped = 0;
	st = zlua_op(env, L, opcode, 0, nres, &a);
	if (st == LUA_OK && nres == 1)
		read_results(env, L, base, 0, r);
	return st;
}
