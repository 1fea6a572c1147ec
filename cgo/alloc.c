/* alloc.c: the allocator of every state. It keeps the Lua heap's byte count
 * and peak, refuses growth past the env's limit (Lua then raises "not enough
 * memory", which pcall can catch), and can fail one chosen allocation so
 * tests can prove every allocation point is protected. */
#include <stdio.h>
#include <stdlib.h>

#include "zlua.h"

void *zlua_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	zlua_env *env = (zlua_env *)ud;
	size_t old = ptr != NULL ? osize : 0; /* osize is a type tag for new blocks */
	void *p;
	if (nsize > old) {
		/* Only growth may fail: Lua assumes shrinking and freeing succeed. */
		env->alloc_count++;
		if (zlua_interrupted(env) && !env->hook_hurried) /* one load when no limit runs */
			zlua_hook_hurry_running(env);
		if (env->alloc_fail_at != 0 && env->alloc_count >= env->alloc_fail_at)
			return NULL; /* every later one too: Lua 5.4 retries once after a collection */
		if (env->mem_limit != 0 &&
		    (nsize - old > env->mem_limit || env->mem_used > env->mem_limit - (nsize - old))) {
			if (env->mem_grace == 0 || nsize - old > env->mem_limit / 2) {
				env->mem_refused = 1;
				return NULL;
			}
			env->mem_grace--; /* LuaJIT's stuck collector, see protect.c */
		}
	}
	/* A ByObj userdata freed without its __gc (a script swapped its
	 * metatable, or the finalizer's call failed for memory) leaves the
	 * address fast path here, before the block can be reused (ownership
	 * by address, read.c), and gives back its slot count (ownaddr.c). */
	if (nsize == 0 && osize == env->ud_block && ptr != NULL && osize != 0)
		zlua_obj_freed(env, (unsigned char *)ptr + env->ud_off);
	else if (env->probing == 2 && nsize == 0 && ptr == env->probe_block)
		env->probe_size = osize; /* zlua_ownaddr_init's probe is freed */
	if (env->base_alloc != NULL) {
		p = env->base_alloc(env->base_ud, ptr, osize, nsize);
	} else if (nsize == 0) {
		free(ptr);
		p = NULL;
	} else {
		p = realloc(ptr, nsize);
	}
	if (env->probing == 1 && ptr == NULL && p != NULL) {
		env->probe_block = p; /* zlua_obj_init's probe userdata */
		env->probing = 0;
	}
	/* One writer: plain reads, atomic stores (plain moves on x86-64) so
	 * that zlua_mem_stats may read them from another thread. A new peak
	 * is stored before the bytes that reach it, and the bytes with
	 * release order: a reader that sees them sees that peak too. */
	if (nsize == 0) {
		__atomic_store_n(&env->mem_used, env->mem_used - old, __ATOMIC_RELEASE);
	} else if (p != NULL) {
		size_t used = env->mem_used - old + nsize;
		if (used > env->mem_peak)
			__atomic_store_n(&env->mem_peak, used, __ATOMIC_RELAXED);
		__atomic_store_n(&env->mem_used, used, __ATOMIC_RELEASE);
	}
	return p;
}

uint64_t zlua_calls(const zlua_env *env)
{
	return __atomic_load_n(&env->calls, __ATOMIC_RELAXED);
}

zlua_memstats zlua_mem_stats(const zlua_env *env)
{
	zlua_memstats m;
	m.used = __atomic_load_n(&env->mem_used, __ATOMIC_ACQUIRE);
	m.peak = __atomic_load_n(&env->mem_peak, __ATOMIC_RELAXED); /* >= used */
	return m;
}

/* An error raised outside protection is a zlua bug: say why, and abort
 * (Lua 5.4 aborts after the handler returns; LuaJIT would exit(1), which
 * hides where it happened), so the Go runtime prints the goroutine that
 * made the call. */
static int panic(lua_State *L)
{
	const char *msg = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "?";
	fprintf(stderr, "zlua: unprotected Lua error (a zlua bug): %s\n", msg);
	fflush(stderr);
	abort();
	return 0;
}

#ifndef ZLUA_LUAJIT

_Static_assert(LUA_EXTRASPACE >= sizeof(zlua_env *), "zlua_envof needs a pointer of extra space");

lua_State *zlua_newstate(zlua_env *env)
{
	lua_State *L = lua_newstate(zlua_alloc, env);
	if (L != NULL) {
		/* zlua_envof's load: before any thread is made, so every
		 * thread inherits it (lua_newthread copies the main thread's) */
		*(zlua_env **)lua_getextraspace(L) = env;
		lua_atpanic(L, panic);
	}
	return L;
}
#else
/* LuaJIT: builds without GC64 refuse a custom allocator in lua_newstate on
 * x86-64, so the state is made with its own allocator, which zlua_alloc
 * then wraps. The heap's size at that moment comes from the GC counters,
 * which track exactly the bytes the allocator handed out. */
lua_State *zlua_newstate(zlua_env *env)
{
	lua_State *L = luaL_newstate();
	if (L == NULL)
		return NULL;
	env->base_alloc = lua_getallocf(L, &env->base_ud);
	env->mem_used = (size_t)lua_gc(L, LUA_GCCOUNT, 0) * 1024 + (size_t)lua_gc(L, LUA_GCCOUNTB, 0);
	env->mem_peak = env->mem_used;
	lua_setallocf(L, zlua_alloc, env);
	lua_atpanic(L, panic);
	return L;
}
#endif
