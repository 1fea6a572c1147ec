/*
 * zlua_calls.h: part of zlua.h, through zlua_runtime.h, which includes it
 * (never include it alone): calls from Go into Lua (call.c) and the
 * inline helpers of their results.
 * The rules of zlua.h's opening comment hold here.
 */
#ifndef ZLUA_CALLS_H
#define ZLUA_CALLS_H

/* ---- calls from Go (call.c) ---- */

#define ZLUA_CALL_RES 4
#define ZLUA_CALL_IN 4

/* Results of zlua_callref, in memory Go owns for the call. */
typedef struct zlua_callres {
	int32_t n;      /* results produced */
	int32_t popped; /* 1: all were scalars, read here and popped */
	int32_t base;   /* stack top before the call (results start above) */
	int32_t status; /* zlua_resume_scalars: the thread's status */
	zlua_arg res[ZLUA_CALL_RES];
	/* Arguments of zlua_callscalars, written by Go before the call: nil,
	 * booleans (v.b), integers (isint, v.i), floats (v.n), opaque
	 * handles (light userdata, v.i) and held objects (LUA_TUSERDATA,
	 * zlua_obj_push_held) only. */
	zlua_arg in[ZLUA_CALL_IN];
} zlua_callres;

/* [go-safe] Calls the committed program "REF f, args..." under lua_pcall
 * with zlua's message handler. simple != 0 promises the program only holds
 * ops that need not allocate (nil, booleans, numbers, refs, objects) and
 * at most 12 values: then it runs without the dispatcher, unless an
 * object's userdata is not in the cache. nres is a count or LUA_MULTRET.
 * Up to ZLUA_CALL_RES results are read into r; if every result is a scalar
 * they are popped. Stack: [-0, +results (unless popped) or +1 error]. */
int zlua_callref(zlua_env *env, lua_State *L, int nres, int simple, zlua_callres *r);
/* [go-safe] Calls the function at registry ref (with the value at
 * selfref first unless selfref is LUA_NOREF: a bound method's receiver)
 * with the nin scalar arguments of r->in, under lua_pcall with zlua's
 * message handler, and reads the results like zlua_callref. Nothing before
 * lua_pcall can raise (registry reads, scalar pushes and cache reads, nin
 * <= ZLUA_CALL_IN), so no push program and no dispatcher is needed.
 * Held objects (zlua_obj_push_held) may be among the arguments of
 * zlua_callheld, which returns ZLUA_CALL_MISS, having called nothing, when
 * a held object's userdata is not in the cache. Stack: [-0, +results (unless popped) or
 * +1 error; -0, +0 for ZLUA_CALL_MISS]. */
int zlua_callscalars(zlua_env *env, lua_State *L, int ref, int selfref, int nin, int nres,
		     zlua_callres *r);
int zlua_callheld(zlua_env *env, lua_State *L, int ref, int selfref, int nin, int nres,
		  zlua_callres *r);
/* [go-safe] Pushes _G[name] under protection (the committed program holds
 * name) and reads it into r->res[0] like a call's one result: popped when
 * it is a scalar. Stack: [-0, +1 (unless popped) or +1 error]. */
int zlua_getglobal(zlua_env *env, lua_State *L, zlua_callres *r);
/* [go-safe] Runs the table operation opcode (its program: the table,
 * then its operands) under protection with nres (0 or 1) results, the
 * one result read into r->res[0] as zlua_getglobal reads it, with the
 * stack's entry top in r->base: a Table.Get or Set in one crossing.
 * Stack: [-0, +nres (unless popped) or +1 error]. */
int zlua_tableop(zlua_env *env, lua_State *L, int opcode, int nres, zlua_callres *r);
/* The thread-local byte whose address is zlua_tid(). Initial-exec: the
 * variable lives in the program itself (or a library loaded with it),
 * and the access is then two instructions with no call (the model Go's
 * own runtime uses for its TLS slot). */
extern __thread char zlua_tid_anchor __attribute__((tls_model("initial-exec")));
/* [go-safe] The calling thread's yield clock (call.c): when any Env last
 * yielded the goroutine on this thread to the Go scheduler. [-0, +0] */
int64_t zlua_thread_yield_at(void);
void zlua_set_thread_yield_at(int64_t t);
/* [go-safe] An address unique to the calling OS thread; inline, since
 * the trampoline takes it on every Lua→Go call. [-0, +0] */
static inline uintptr_t zlua_tid(void)
{
	return (uintptr_t)&zlua_tid_anchor;
}
/* [go-safe] Records the calling thread as the owner's around a call into
 * Go (zluaGateCall, zluaLeafCall): the outermost one on this thread
 * stores tid and zlua_owner_end clears it when Go returns; a nested one,
 * or one inside Go's Hold (which recorded the thread itself), finds tid
 * there and leaves it. The thread is the owner goroutine's for the whole
 * cgo call that runs Lua, so no other goroutine can run on it while the
 * word names it. Release stores: plain moves on x86. Returns whether this
 * call recorded it. [-0, +0] */
static inline int zlua_owner_begin(zlua_env *env, uintptr_t tid)
{
	if (__atomic_load_n(env->owner_tid, __ATOMIC_RELAXED) == tid)
		return 0;
	__atomic_store_n(env->owner_tid, tid, __ATOMIC_RELEASE);
	return 1;
}
/* [go-safe] Ends what zlua_owner_begin recorded (own != 0). A Go function
 * that called runtime.Goexit never comes back here: Go clears the word
 * itself (callbackgate's abandon). [-0, +0] */
static inline void zlua_owner_end(zlua_env *env, int own)
{
	if (own)
		__atomic_store_n(env->owner_tid, 0, __ATOMIC_RELEASE);
}
/* [go-safe] Counts one Lua->Go call (env->calls, see there) and raises
 * env->queued when env->tick_left runs out, which sends the call down the
 * dispatcher's slow path, where Go sees whether the goroutine ran too long
 * without passing through its scheduler and sets the next tick
 * (callbackgate's yield.go). Until then tick_left has wrapped around and
 * queued stays raised. [-0, +0] */
static inline void zlua_count_call(zlua_env *env)
{
	__atomic_store_n(&env->calls, env->calls + 1, __ATOMIC_RELAXED);
	if (__builtin_expect(env->tick_left-- == 0, 0))
		env->queued = 1;
}
/* [go-safe] Whether *owner (read atomically) is zlua_tid(): load and
 * compare happen in one call, on one thread, so a goroutine that moved
 * threads cannot match a thread it has left. */
int zlua_on_thread(const uintptr_t *owner);

/* [go-safe] Pushes the value of one non-allocating push-program op (nil,
 * booleans, integers, floats, registry refs) and advances *pp past its
 * operand; returns 0, pushing nothing, for any other op. Shared by the
 * protected interpreter and the unprotected fast call path. [-0, +1|0] */
static inline int zlua_push_scalar_op(lua_State *L, int op, const unsigned char **pp)
{
	const unsigned char *p = *pp;
	switch (op) {
	case ZLUA_OP_NIL:
		lua_pushnil(L);
		return 1;
	case ZLUA_OP_TRUE:
	case ZLUA_OP_FALSE:
		lua_pushboolean(L, op == ZLUA_OP_TRUE);
		return 1;
	case ZLUA_OP_INT: {
		int64_t i;
		memcpy(&i, p, sizeof i);
		*pp = p + sizeof i;
#ifdef ZLUA_LUAJIT
		lua_pushnumber(L, (lua_Number)i);
#else
		lua_pushinteger(L, (lua_Integer)i);
#endif
		return 1;
	}
	case ZLUA_OP_NUM: {
		double d;
		memcpy(&d, p, sizeof d);
		*pp = p + sizeof d;
		lua_pushnumber(L, (lua_Number)d);
		return 1;
	}
	case ZLUA_OP_REF: {
		int32_t ref;
		memcpy(&ref, p, sizeof ref);
		*pp = p + sizeof ref;
		lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
		return 1;
	}
	}
	return 0;
}

/* [go-safe] Pushes a scalar argument written by Go (zlua_callres.in:
 * nil, booleans, integers, floats, opaque handles as light userdata);
 * never allocates: handles lie below 2^39, in the LuaJIT light userdata
 * segment zlua_sv_init interned at boot. Shared by zlua_callscalars and
 * zlua_resume_scalars. [-0, +1] */
static inline void zlua_push_in(lua_State *L, const zlua_arg *a)
{
	switch (a->type) {
	case LUA_TLIGHTUSERDATA:
		lua_pushlightuserdata(L, (void *)(uintptr_t)a->v.i);
		break;
	case LUA_TBOOLEAN:
		lua_pushboolean(L, a->v.b);
		break;
	case LUA_TNUMBER:
#ifndef ZLUA_LUAJIT
		if (a->isint) {
			lua_pushinteger(L, a->v.i);
			break;
		}
#endif
		lua_pushnumber(L, a->isint ? (lua_Number)a->v.i : a->v.n);
		break;
	default:
		lua_pushnil(L);
	}
}

#endif
