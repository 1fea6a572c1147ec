/* protect.c: every Lua API call that may raise and is requested by Go runs
 * here, under lua_pcall, with no Go frame between the raise and the catch. */
#include <sys/mman.h>

#include "zlua.h"

/* [lua] Pushes the result of errv's __tostring, called under protection:
 * 1 when it is a string; 0, with the stack as it was, when there is none,
 * it raised or it returned something else. The message handler runs it,
 * where an error would replace the error value being raised (Lua 5.4) or
 * become "error in error handling" (LuaJIT): the error object would lose
 * its identity through zlua's calls, though pcall keeps it. [-0, +(0|1)] */
static int tostring_meta(lua_State *L, int errv)
{
	int top = lua_gettop(L);
	if (!luaL_getmetafield(L, errv, "__tostring")) /* nothing pushed */
		return 0;
	lua_pushvalue(L, errv);
	if (lua_pcall(L, 1, 1, 0) == LUA_OK && lua_type(L, -1) == LUA_TSTRING)
		return 1;
	lua_settop(L, top);
	return 0;
}

void zlua_errinfo_record(lua_State *L, zlua_env *env, int errv, int tb)
{
	int t = lua_type(L, errv);
	/* inside a limited call, after an error from a hook no script code
	 * (__tostring) runs here: it would run without hooks */
	int guarded = zlua_handler_guard(env);
	int top = lua_gettop(L);
	errv = lua_absindex_compat(L, errv);
	tb = lua_absindex_compat(L, tb);
	if (t == LUA_TSTRING || t == LUA_TNUMBER) {
		lua_pushvalue(L, errv);
		lua_tostring(L, -1); /* converts the copy, never the error value */
	} else if (!guarded && tostring_meta(L, errv)) {
		/* message from __tostring */
	} else {
		lua_settop(L, top);
		lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, errv));
	}
	lua_rawgeti(L, LUA_REGISTRYINDEX, env->errinfo_ref);
	if (lua_type(L, -1) != LUA_TTABLE) { /* replaced by a script */
		lua_settop(L, top);
		return;
	}
	lua_pushvalue(L, -2);
	lua_rawseti(L, -2, 1);
	lua_pushvalue(L, tb);
	lua_rawseti(L, -2, 2);
	lua_pushvalue(L, errv);
	lua_rawseti(L, -2, 3);
	env->errinfo_set = 1;
	lua_settop(L, top);
}

/* [lua] zlua's message handler: records a printable message and a
 * traceback in the errinfo table and returns the error value unchanged, so
 * error objects keep their identity. A script reaches it through
 * debug.getregistry; called by hand it only records. [-0, +0] */
/* [lua] The traceback of an error raised once a limited call's context is
 * done: its first ZLUA_TB_INTERRUPTED levels from level 1, in
 * luaL_traceback's words for a Lua function's line, then "..." when there
 * are more. luaL_traceback also prints the last levels, which it finds by
 * a search whose cost grows with the stack's depth (lua_getstack walks
 * it): paid by every callback a Go function calls after the deadline,
 * each interrupted at its first instruction, it made a host's loop over
 * entities run seconds past the deadline of a deep script (probe Z3-F4).
 * Each lua_getstack here walks at most ZLUA_TB_INTERRUPTED levels.
 * [-0, +1] */
static void traceback_top(lua_State *L)
{
	luaL_Buffer b;
	lua_Debug ar;
	int level = 1;
	luaL_buffinit(L, &b);
	luaL_addstring(&b, "stack traceback:");
	while (lua_getstack(L, level, &ar)) {
		if (level > ZLUA_TB_INTERRUPTED) {
			luaL_addstring(&b, "\n\t...\t(the rest skipped: the call was interrupted)");
			break;
		}
		lua_getinfo(L, "Sln", &ar);
		luaL_addstring(&b, "\n\t");
		luaL_addstring(&b, ar.short_src);
		if (ar.currentline > 0) {
			lua_pushfstring(L, ":%d", ar.currentline);
			luaL_addvalue(&b);
		}
		if (ar.name != NULL) {
			lua_pushfstring(L, ": in function '%s'", ar.name);
			luaL_addvalue(&b);
		} else if (*ar.what == 'm') {
			luaL_addstring(&b, ": in main chunk");
		} else if (*ar.what == 'C') {
			luaL_addstring(&b, ": in ?");
		} else {
			lua_pushfstring(L, ": in function <%s:%d>", ar.short_src, ar.linedefined);
			luaL_addvalue(&b);
		}
		level++;
	}
	luaL_pushresult(&b);
}

int zlua_msgh(lua_State *L)
{
	zlua_env *env = zlua_envof(L);
	lua_settop(L, 1);
#ifdef ZLUA_LUAJIT
	if (env != NULL && (env->wrapret_n > 0 || env->watch != 0))
		zlua_jit_hook_unwound(L, env);
#endif
	if (env != NULL && zlua_interrupted(env)) {
		/* the first interruption raised again: the traceback of where
		 * it was first raised, which its message names */
		if (!zlua_push_interrupt_tb(L, env, 1))
			traceback_top(L);
	} else
		luaL_traceback(L, L, NULL, 1);
	zlua_errinfo_record(L, env, 1, 2);
	lua_settop(L, 1);
	return 1;
}

/* [lua] _G[name] = value (lua_settable: _G's __newindex runs) for the
 * SETGLOBAL program "STR name, value" with the globals table on top: the
 * name and the value are pushed above the table, so nothing rotates, and
 * a value that is one ByVal struct (SetGlobal of a struct, each frame) is
 * pushed without the program loop. setPlainGlobal writes the program:
 * it always begins with the name. [-0, +0] (the table stays) */
static void set_global(lua_State *L, zlua_env *env, const unsigned char *p, size_t n)
{
	const unsigned char *end = p + n;
	uint32_t len;
	memcpy(&len, p + 1, sizeof len); /* p[0] is ZLUA_OP_STR */
	lua_pushlstring(L, (const char *)p + 5, len);
	p += 5 + len;
	if (p < end && *p == ZLUA_OP_BYVAL && (size_t)(end - p) > 21) {
		uint32_t size;
		memcpy(&size, p + 9, sizeof size);
		if ((size_t)(end - p) == 21 + (size_t)size)
			p += 1 + zlua_sv_push(L, env, p + 1);
	}
	if (p < end)
		zlua_prog_run(L, env, p, (size_t)(end - p));
	lua_settable(L, -3);
}

/* [lua] The protected dispatcher: arg 1 the zlua_opargs as a light
 * userdata, then the operation's stack arguments. Returns the
 * operation's results. A script reaches it through debug.getregistry and
 * can read the light userdata of a running operation with debug.getlocal:
 * only the call zlua_op makes is served (the opargs it announced in
 * env->op_pending, taken once), anything else is an error. */
int zlua_dispatch(lua_State *L)
{
	zlua_env *env = zlua_envof(L);
	zlua_opargs *a = env->op_pending;
	int opcode, base, st;
	if (a == NULL || lua_touserdata(L, 1) != (void *)&env->op_token ||
	    lua_type(L, 1) != LUA_TLIGHTUSERDATA)
		return luaL_error(L, "zlua: the protected dispatcher is not callable from Lua");
	env->op_pending = NULL;
	opcode = a->opcode;
	/* Envs whose Go functions call into other Envs nest on this thread's
	 * C stack, each within its own bound: the thread's end bounds them
	 * all (cstack.c) */
	if (zlua_cstack_low())
		return luaL_error(L, "C stack overflow (calls into Lua nested too deep on this thread)");
	if (opcode == ZLUA_DO_SETGLOBAL) { /* program: name, value; no stack
					     * arguments: the opargs may stay */
		zlua_pushglobaltable(L);
		set_global(L, env, a->prog, a->prog_len);
		return 0;
	}
	/* stack now holds only the operation's arguments (with none, no
	 * rotation: lua_remove is a lua_rotate) */
	base = lua_gettop(L) - 1;
	if (base == 0)
		lua_settop(L, 0);
	else
		lua_remove(L, 1);
	switch (opcode) {
	case ZLUA_DO_GETGLOBAL: /* program: name */
		zlua_prog_run(L, env, a->prog, a->prog_len);
		zlua_pushglobaltable(L);
		lua_insert(L, -2);
		lua_gettable(L, -2);
		return 1;
	case ZLUA_DO_LOAD:
	case ZLUA_DO_DOSTRING:
		st = zlua_load_chunk(L, env, a->chunk, a->chunk_len, a->chunk_name, a->mode);
		if (st != LUA_OK)
			return lua_error(L); /* the syntax error message */
		if (opcode == ZLUA_DO_LOAD)
			return 1;
		lua_call(L, 0, 0);
		return 0;
	case ZLUA_DO_CALL: /* stack: f; program: args */
		zlua_prog_run(L, env, a->prog, a->prog_len);
		lua_call(L, lua_gettop(L) - base, a->n);
		return lua_gettop(L) - base + 1;
	case ZLUA_DO_CALLPROG: /* program: f, args */
		zlua_prog_run(L, env, a->prog, a->prog_len);
		lua_call(L, lua_gettop(L) - base - 1, a->n);
		return lua_gettop(L) - base;
	case ZLUA_DO_REF: /* stack: v */
		a->ref = luaL_ref(L, LUA_REGISTRYINDEX);
		return 0;
	case ZLUA_DO_OPENLIBS:
		luaL_openlibs(L);
		zlua_keep_package(L, env);
#ifdef ZLUA_LUAJIT
		zlua_jit_keepffi(L, env);
		if (env->mem_limit != 0)
			zlua_jit_nostitch(L, env);
#endif
		zlua_open_dbgmeta(L); /* keeps ownership by address exact */
		zlua_open_guards(L); /* first: LuaJIT's C stack wrappers wrap them */
		zlua_open_limits(L, env);
		zlua_open_patterns(L, env);
		return 0;
	case ZLUA_DO_INIT:
		zlua_obj_init(L, env);
		return 0;
	case ZLUA_DO_PROGREF: /* program: the value */
		zlua_prog_run(L, env, a->prog, a->prog_len);
		a->ref = luaL_ref(L, LUA_REGISTRYINDEX);
		return 0;
	case ZLUA_DO_OPENSAFE:
		zlua_open_safe(L, env);
		zlua_keep_package(L, env);
		zlua_open_guards(L);
		zlua_open_limits(L, env);
		zlua_open_patterns(L, env);
		return 0;
#ifdef ZLUA_LUAJIT
	case ZLUA_DO_JITMODE: /* compiled traces never run hooks */
		if (a->n == 0) {
			/* what the end of the limit gives back (hook.c) */
			env->limit_jit_on = 1;
			if (env->jitstatus_ref != LUA_NOREF) {
				lua_rawgeti(L, LUA_REGISTRYINDEX, env->jitstatus_ref);
				lua_call(L, 0, 1);
				env->limit_jit_on = lua_toboolean(L, -1);
				lua_pop(L, 1);
			}
			luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_OFF);
			luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_FLUSH);
		} else {
			luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_ON);
		}
		return 0;
#endif
	case ZLUA_DO_SVINIT:
		return zlua_sv_init(L, env, a);
	case ZLUA_DO_INDEX: /* [obj,] key */
		zlua_prog_run(L, env, a->prog, a->prog_len);
		lua_gettable(L, -2);
		return 1;
	case ZLUA_DO_NEWINDEX: /* [obj,] key, value */
		zlua_prog_run(L, env, a->prog, a->prog_len);
		lua_settable(L, -3);
		return 0;
	case ZLUA_DO_LEN: /* [obj] */
		zlua_prog_run(L, env, a->prog, a->prog_len);
		zlua_pushlen(L, -1);
		return 1;
	case ZLUA_DO_PAIRS: /* [obj] */
		zlua_prog_run(L, env, a->prog, a->prog_len);
		zlua_pairs(L);
		return 1;
	case ZLUA_DO_METHOD: /* [obj,] key */
		zlua_prog_run(L, env, a->prog, a->prog_len);
		lua_gettable(L, -2);
		lua_pushboolean(L, zlua_callable(L, -1));
		return 2;
	case ZLUA_DO_RAWINDEX:
	case ZLUA_DO_RAWNEWINDEX:
	case ZLUA_DO_RAWLEN:
	case ZLUA_DO_GETMETA:
	case ZLUA_DO_SETMETA:
		zlua_prog_run(L, env, a->prog, a->prog_len);
		return zlua_raw_op(L, opcode);
	case ZLUA_DO_PRELOAD:
		zlua_preload_table(L, env);
		return 1;
	case ZLUA_DO_NEWTHREAD: /* program: f */
		return zlua_thread_new(L, env, a);
	case ZLUA_DO_RESUME: /* program: co, args */
		return zlua_thread_resume(L, env, a);
	case ZLUA_DO_COFAILED: /* stack: co */
		return zlua_thread_failed(L, env, a);
	case ZLUA_DO_GROWCO: /* stack: co */
		lua_checkstack(lua_tothread(L, 1), a->n);
		return 0;
	case ZLUA_DO_RESERVE:
		luaL_checkstack(L, a->n, "zlua: cannot reserve stack");
		return 0;
	default:
		return luaL_error(L, "zlua: unknown protected operation %d", opcode);
	}
}

/* [lua] A full collection; LuaJIT's boot keeps it as a closure in the
 * registry (Lua 5.4 pushes it as a light C function, which allocates
 * nothing). */
int zlua_collect(lua_State *L)
{
	lua_gc(L, LUA_GCCOLLECT, 0);
	return 0;
}

/* [go-safe] Runs the collector closure made at boot under protection;
 * returns its status. Fetching it and lua_pcall allocate nothing. [-0, +0] */
static int collect(zlua_env *env, lua_State *L)
{
	int st;
#ifdef ZLUA_LUAJIT
	lua_rawgeti(L, LUA_REGISTRYINDEX, env->collect_ref);
#else
	lua_pushcfunction(L, zlua_collect);
#endif
	st = lua_pcall(L, 0, 0, 0);
	if (st != LUA_OK)
		lua_pop(L, 1);
	return st;
}

int zlua_collect_now(zlua_env *env, lua_State *L)
{
	if (!lua_checkstack(L, 2))
		return LUA_ERRMEM;
	return collect(env, L);
}

void zlua_collect_after_refusal(zlua_env *env, lua_State *L)
{
	/* LuaJIT does not collect before it reports an allocation failure, so
	 * after the limit refused one the heap may be full of garbage that no
	 * collection step will reach: collect it once the failed operation is
	 * over (finalizers may raise, hence the protection).
	 * A full collection first finishes the sweep of the cycle in progress,
	 * and the end of a sweep may shrink the string table: a new, smaller
	 * table is allocated before the old one is freed. With the heap at its
	 * limit that allocation fails, the sweep never ends, no new cycle can
	 * start, and the Env is out of memory for good. When the collection
	 * itself was refused, it runs once more with one allocation allowed
	 * past the limit (the string table's, at most half the limit since
	 * strings and their slots share the heap); the cycle then completes and
	 * frees the garbage. */
	env->mem_refused = 0;
	env->ext_refused = 0;
	if (collect(env, L) != LUA_OK && env->mem_refused) {
		env->mem_refused = 0;
		env->mem_grace = 1;
		collect(env, L);
		env->mem_grace = 0;
		env->mem_refused = 0;
	}
	env->ext_refused = 0;
#ifdef ZLUA_LUAJIT
	/* What Go held when the limit refused (handles, objects) is live
	 * still: once Go lets go of it, only another collection frees it
	 * before LuaJIT refuses again (outside probe G1-F4). */
	env->refusal_full = env->mem_limit != 0 && env->mem_used + env->ext_used > env->mem_limit / 2;
#endif
}

int zlua_op(zlua_env *env, lua_State *L, int opcode, int nargs, int nres,
	    zlua_opargs *a)
{
	unsigned char inline_prog[ZLUA_PROG_INLINE];
	unsigned char *heap_prog = NULL;
	int base = lua_gettop(L) - nargs;
	int st, outermost, charging = env->charging;
	zlua_opargs *pending;

	/* Copy the program before anything can allocate: a collection step
	 * may run finalizers that re-enter Go and rebuild env->prog. */
	a->prog = NULL;
	a->prog_len = 0;
	if (opcode == ZLUA_DO_SETGLOBAL || opcode == ZLUA_DO_GETGLOBAL ||
	    opcode == ZLUA_DO_CALL || opcode == ZLUA_DO_PROGREF ||
	    opcode == ZLUA_DO_CALLPROG || opcode == ZLUA_DO_SVINIT ||
	    (opcode >= ZLUA_DO_INDEX && opcode <= ZLUA_DO_PAIRS) ||
	    (opcode >= ZLUA_DO_METHOD && opcode <= ZLUA_DO_SETMETA) ||
	    opcode == ZLUA_DO_NEWTHREAD || opcode == ZLUA_DO_RESUME) {
		a->prog_len = env->prog_len;
		env->prog_len = 0;
	}
	if (a->prog_len > 0) {
		if (a->prog_len <= sizeof inline_prog) {
			memcpy(inline_prog, env->prog, a->prog_len);
			a->prog = inline_prog;
		} else {
			heap_prog = (unsigned char *)malloc(a->prog_len);
			if (heap_prog == NULL) {
				lua_settop(L, base);
				lua_pushnil(L); /* the error value: nothing can be allocated */
				return LUA_ERRMEM;
			}
			memcpy(heap_prog, env->prog, a->prog_len);
			a->prog = heap_prog;
		}
	}

	/* An outermost operation that ended normally after the limit refused
	 * an allocation (a script caught its memory error and went on) left
	 * the heap full of garbage that LuaJIT, which reports a failed
	 * allocation without collecting first, may not reach before this
	 * operation allocates: this call would fail for the last one's
	 * garbage. So may Lua 5.4 when Go copies were charged: its emergency
	 * collection runs no finalizer, and only those give charges back.
	 * Collect it first (after the program copy: finalizers may re-enter
	 * Go; one stack slot, of the three reserved for below). */
	if (zlua_refusal_pending(env) && env->cstack_base == 0)
		zlua_collect_after_refusal(env, L);
	/* message handler, dispatcher, opargs below the arguments (with no
	 * arguments each is pushed in place: no rotation). On Lua 5.4 both
	 * are light C functions, pushed without a registry lookup and without
	 * allocating; LuaJIT's lua_pushcfunction allocates a closure, so there
	 * they come from the registry, where boot keeps them. */
	zlua_push_msgh(L, env);
	if (nargs > 0)
		lua_insert(L, base + 1);
#ifdef ZLUA_LUAJIT
	lua_rawgeti(L, LUA_REGISTRYINDEX, env->dispatch_ref);
#else
	lua_pushcfunction(L, zlua_dispatch);
#endif
	if (nargs > 0)
		lua_insert(L, base + 2);
	/* The dispatcher's argument is the env's token, whose light userdata
	 * segment boot interned: pushing it never allocates. (The opargs live
	 * on this C stack, whose address LuaJIT may have to intern on a new
	 * thread, allocating outside protection.) Their address travels in
	 * env->op_pending. */
	lua_pushlightuserdata(L, &env->op_token);
	if (nargs > 0)
		lua_insert(L, base + 3);
	a->opcode = opcode;
	pending = env->op_pending;
	env->op_pending = a;
	env->errinfo_set = 0;
	/* The host's pushes are not charged (structs.c), but pushes made while
	 * a script's call runs are: a Go function it called passing its own
	 * by-value argument to a Lua callback hands the script a copy as its
	 * result would (probe Q). */
	outermost = env->cstack_base == 0;
	env->charging = !outermost;
	if (outermost) /* nested operations run on this thread, below us */
		env->cstack_base = (uintptr_t)&outermost;
	st = lua_pcall(L, nargs + 1, nres, base + 1);
	if (outermost) {
		env->cstack_base = 0;
		env->prog_active = 0; /* what a raise left counted ran no further */
		zlua_jit_leafreset(env); /* no Lua runs: no leaf results wait */
	}
	env->op_pending = pending;
	env->charging = charging;
	if (lua_gettop(L) == base + 1)
		lua_settop(L, base); /* the message handler, alone: no rotation */
	else
		lua_remove(L, base + 1); /* the message handler */
	free(heap_prog);
	if (st != LUA_OK && zlua_refusal_pending(env))
		zlua_collect_after_refusal(env, L);
	return st;
}

int zlua_errinfo(zlua_env *env, lua_State *L, const char **msg, size_t *msglen,
		 const char **tb, size_t *tblen)
{
	int same;
	if (!env->errinfo_set)
		return 0;
	lua_rawgeti(L, LUA_REGISTRYINDEX, env->errinfo_ref);
	if (lua_type(L, -1) != LUA_TTABLE) { /* replaced by a script */
		lua_pop(L, 1);
		return 0;
	}
	lua_rawgeti(L, -1, 3);
	same = lua_rawequal(L, -1, -3); /* recorded for this error value? */
	lua_pop(L, 1);
	if (!same) {
		lua_pop(L, 1);
		return 0;
	}
	lua_rawgeti(L, -1, 1);
	*msg = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, msglen) : NULL;
	lua_pop(L, 1);
	lua_rawgeti(L, -1, 2);
	*tb = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, tblen) : NULL;
	lua_pop(L, 2); /* the strings stay anchored in errinfo */
	return *msg != NULL;
}

void zlua_unref(lua_State *L, int ref)
{
	luaL_unref(L, LUA_REGISTRYINDEX, ref);
}

int zlua_ref_same(zlua_env *env, lua_State *L, int a, int b)
{
	int same;
	if (!zlua_reserve(env, L, 2))
		return -1;
	lua_rawgeti(L, LUA_REGISTRYINDEX, a);
	lua_rawgeti(L, LUA_REGISTRYINDEX, b);
	same = lua_rawequal(L, -1, -2);
	lua_pop(L, 2);
	return same;
}

int zlua_reserve(zlua_env *env, lua_State *L, int n)
{
#ifdef ZLUA_LUAJIT
	/* LuaJIT grows the stack with an allocation that may raise. */
	zlua_opargs a;
	memset(&a, 0, sizeof a);
	a.n = n + 8;
	if (zlua_op(env, L, ZLUA_DO_RESERVE, 0, 0, &a) != LUA_OK) {
		lua_pop(L, 1);
		return 0;
	}
	return 1;
#else
	(void)env;
	return lua_checkstack(L, n); /* never raises in 5.4 */
#endif
}

int zlua_op_far_opargs(zlua_env *env, lua_State *L)
{
	/* opargs in a fresh mapping far from the C stacks, the heap and the
	 * binary: a light userdata segment LuaJIT has not interned */
	void *p = mmap((void *)(uintptr_t)0x300000000000ull, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	zlua_opargs *a;
	int st;
	if (p == MAP_FAILED)
		return -1;
	if (((uintptr_t)p >> 39) == ((uintptr_t)env >> 39) ||
	    ((uintptr_t)p >> 39) == ((uintptr_t)&st >> 39)) {
		munmap(p, 4096);
		return -1; /* not another segment: nothing to show */
	}
	a = (zlua_opargs *)p;
	memset(a, 0, sizeof *a);
	a->ref = LUA_NOREF;
	lua_pushnil(L);
	st = zlua_op(env, L, ZLUA_DO_REF, 1, 0, a);
	if (st != LUA_OK)
		lua_pop(L, 1);
	munmap(p, 4096);
	return st;
}
