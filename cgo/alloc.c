/* alloc.c: the allocator of every state. It keeps the Lua heap's byte count
 * and peak, refuses growth past the env's limit (Lua then raises "not enough
 * memory", which pcall can catch), and can fail one chosen allocation so
 * tests can prove every allocation point is protected. */
#include <stdio.h>
#include <stdlib.h>

#include "zlua.h"

#ifdef ZLUA_LUAJIT
/* LuaJIT reports an allocation failure without collecting first (Lua 5.4
 * runs a full, emergency collection and retries), and its incremental
 * collector lets the heap reach about three times the live data before a
 * cycle frees anything: under a limit, garbage a collection would free
 * makes allocations fail. So the allocator paces the collector as the
 * used bytes (heap and charges) near the limit: at GC_KICK of it, the
 * collector steps at its next check (which LuaJIT makes before its
 * allocations, at a safe point) and at every KB allocated after, each
 * step GC_STEPMUL/200 times LuaJIT's default work, so the cycle in
 * progress (or a new one) ends within a few hundred KB. Two plain field
 * writes do it (lua_gc's RESTART: the threshold is now; SETSTEPMUL), none
 * allocates or collects: never a collection inside the allocator. The
 * step stays bounded: with steps of a whole cycle (stepmul 0 or 100000)
 * LuaJIT 2.1 crashed in compiled code that makes leaf calls under a limit
 * (TestLeafCallsUnderAMemoryLimit; a script's setstepmul does it too,
 * docs/ARCHITECTURE.md). The next kick waits until the used bytes have
 * grown by GC_GAP of the limit from their lowest since, so an Env whose
 * live data stays that high is not kicked at every allocation; once they
 * fall below the kick's level (the cycle freed something) the stepmul is
 * given back. The host's or a script's stopped collector stays stopped.
 * Envs below the kick pay two compares per growing allocation. */
#define GC_KICK(lim) ((lim) - (lim) / 4)
#define GC_GAP(lim) ((lim) / 8)
#define GC_STEPMUL 1000

__attribute__((noinline, cold)) static void gc_pace(zlua_env *env, size_t need)
{
	lua_State *L = env->L;
	size_t lim = env->mem_limit, kick;
	if (L == NULL)
		return; /* lua_newstate has not returned */
	if (need >= env->gc_kick) {
		if (!lua_gc(L, LUA_GCISRUNNING, 0))
			return;
		if (!env->gc_kicked) {
			env->gc_stepmul = lua_gc(L, LUA_GCSETSTEPMUL, GC_STEPMUL);
			env->gc_kicked = 1;
		}
		lua_gc(L, LUA_GCRESTART, 0);
		env->gc_kick = need + GC_GAP(lim);
		env->gc_relax = need;
		return;
	}
	/* need < gc_relax: the used bytes fell */
	if (env->gc_kicked) {
		lua_gc(L, LUA_GCSETSTEPMUL, env->gc_stepmul);
		env->gc_kicked = 0;
	}
	kick = need + GC_GAP(lim);
	if (kick <= GC_KICK(lim)) {
		env->gc_kick = GC_KICK(lim);
		env->gc_relax = 0;
	} else {
		env->gc_kick = kick;
		env->gc_relax = need;
	}
}
#endif

void zlua_set_mem_limit(zlua_env *env, size_t n)
{
#ifdef ZLUA_LUAJIT
	if (env->gc_kicked && env->L != NULL)
		lua_gc(env->L, LUA_GCSETSTEPMUL, env->gc_stepmul);
	env->gc_kicked = 0;
	env->gc_kick = GC_KICK(n);
	env->gc_relax = 0;
#endif
	env->mem_limit = n;
}

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
		/* Go copies charged to the limit (ext_used, structs.c) count
		 * with the heap: a plain addition, as neither nears SIZE_MAX */
		if (env->mem_limit != 0 &&
		    (nsize - old > env->mem_limit ||
		     env->mem_used + env->ext_used > env->mem_limit - (nsize - old))) {
			if (env->mem_grace == 0 || nsize - old > env->mem_limit / 2) {
				env->mem_refused = 1;
				if (env->ext_used != 0)
					env->ext_refused = 1;
				return NULL;
			}
			env->mem_grace--; /* LuaJIT's stuck collector, see protect.c */
		}
#ifdef ZLUA_LUAJIT
		if (env->mem_limit != 0) {
			size_t need = env->mem_used + env->ext_used + (nsize - old);
			if (need >= env->gc_kick || need < env->gc_relax)
				gc_pace(env, need);
		}
#endif
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
	m.ext = __atomic_load_n(&env->ext_used, __ATOMIC_RELAXED);
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
#include <pthread.h>

/* LuaJIT: the state's allocations go through zlua_alloc to LuaJIT's own
 * allocator (faster than malloc on LuaJIT's workloads, and leaner: a
 * million Go objects pushed take 100 MiB less resident with it). Its arena
 * is destroyed by lua_close only when the state's allocator is still
 * LuaJIT's own; through any other, lua_close frees the state's last block
 * and the arena with everything it mapped stays: about 100 KB resident per
 * closed Env or Reset, more with compiled code, which a server resetting
 * scripts all day cannot pay.
 *
 * So, where the library allows it, the arena belongs to a second, bare
 * state (luaL_newstate, about 12 KB) that zlua never runs: the Env's state
 * is made by lua_newstate with zlua_alloc over that arena's allocator, and
 * closing the bare state after it destroys the arena. x86-64 builds without
 * GC64 refuse a custom allocator in lua_newstate (they print "Must use
 * luaL_newstate() for 64 bit target" and return NULL), so whether the
 * linked library takes one is found out once per process without asking
 * it: the header of a bytecode dump carries the FR2 flag (0x08 after
 * "\x1bLJ" and version 2), which LuaJIT sets exactly when built with GC64.
 * Without GC64 the state's own allocator is wrapped (lua_setallocf) and
 * the arena is still lost at close (docs/ARCHITECTURE.md). */
static pthread_once_t gc64_once = PTHREAD_ONCE_INIT;
static int gc64; /* written once under gc64_once */

/* lua_dump's writer: keeps the first bytes written (the header); no Lua
 * API call. */
static int keep_header(lua_State *L, const void *p, size_t n, void *ud)
{
	unsigned char *h = (unsigned char *)ud; /* h[0]: bytes kept so far */
	size_t i;
	(void)L;
	for (i = 0; i < n && h[0] < 5; i++)
		h[1 + h[0]++] = ((const unsigned char *)p)[i];
	return 0;
}

/* [lua] The probe check_gc64 runs under lua_pcall: dumps an empty chunk
 * and pushes whether its header carries the FR2 flag. [-0, +1] */
static int probe_dump(lua_State *L)
{
	unsigned char h[6] = {0};
	luaL_loadstring(L, "return");
	lua_dump(L, keep_header, h);
	lua_pushboolean(L, h[0] == 5 && h[1] == 0x1b && h[2] == 'L' && h[3] == 'J' && h[4] == 2 &&
				   (h[5] & 0x08) != 0);
	return 1;
}

/* Once per process, on a private state (called from Go: lua_dump may
 * raise for memory, so it runs under lua_pcall). */
static void check_gc64(void)
{
	lua_State *L = luaL_newstate();
	if (L == NULL)
		return;
	lua_pushcfunction(L, probe_dump);
	gc64 = lua_pcall(L, 0, 1, 0) == LUA_OK && lua_toboolean(L, -1);
	lua_close(L);
}

int zlua_jit_own_allocator(void)
{
	pthread_once(&gc64_once, check_gc64);
	return gc64;
}

/* Spare arenas. A fresh arena's pages are mapped as the state first
 * touches them and unmapped when its owner is closed: on this kind of
 * machine those page faults and the unmapping's TLB shootdowns were most
 * of a LuaJIT Env's New and Close (1.1-1.3 ms against Lua 5.4's
 * 0.35 ms, where malloc reuses freed memory; outside probe C2-F9). So the
 * owner of a closed state whose heap stayed small waits here for the next
 * state instead of being closed: up to ARENA_SPARES of them, each the
 * arena of a heap that never passed ARENA_SPARE_PEAK (bigger arenas give
 * their memory back at once, as before). Every block of the closed state
 * was freed into its arena by lua_close; only the owner's own remain. The
 * spares live as long as the process, as malloc's free lists do. */
#define ARENA_SPARES 8
#define ARENA_SPARE_PEAK ((size_t)1 << 20)
static pthread_mutex_t spare_mu = PTHREAD_MUTEX_INITIALIZER;
static lua_State *spares[ARENA_SPARES];
static int nspares;

/* A spare arena's owner, or a new one (NULL when out of memory). */
static lua_State *take_arena(void)
{
	lua_State *owner = NULL;
	pthread_mutex_lock(&spare_mu);
	if (nspares > 0)
		owner = spares[--nspares];
	pthread_mutex_unlock(&spare_mu);
	return owner != NULL ? owner : luaL_newstate();
}

int zlua_spare_arenas(void)
{
	int n;
	pthread_mutex_lock(&spare_mu);
	n = nspares;
	pthread_mutex_unlock(&spare_mu);
	return n;
}

lua_State *zlua_newstate(zlua_env *env)
{
	lua_State *L;
	if (zlua_jit_own_allocator()) {
		lua_State *owner = take_arena();
		if (owner == NULL)
			return NULL;
		env->base_alloc = lua_getallocf(owner, &env->base_ud);
		L = lua_newstate(zlua_alloc, env);
		if (L == NULL) {
			lua_close(owner);
			env->base_alloc = NULL;
			return NULL;
		}
		env->arena_owner = owner;
		lua_atpanic(L, panic);
		return L;
	}
	/* Without GC64: the state's own allocator, which zlua_alloc wraps. The
	 * heap's size at that moment comes from the GC counters, which track
	 * exactly the bytes the allocator handed out. */
	L = luaL_newstate();
	if (L == NULL)
		return NULL;
	env->base_alloc = lua_getallocf(L, &env->base_ud);
	env->mem_used = (size_t)lua_gc(L, LUA_GCCOUNT, 0) * 1024 + (size_t)lua_gc(L, LUA_GCCOUNTB, 0);
	env->mem_peak = env->mem_used;
	lua_setallocf(L, zlua_alloc, env);
	lua_atpanic(L, panic);
	return L;
}

void zlua_close_arena(zlua_env *env)
{
	lua_State *owner = env->arena_owner;
	int kept = 0;
	if (owner == NULL)
		return;
	env->arena_owner = NULL;
	if (env->mem_peak <= ARENA_SPARE_PEAK) {
		pthread_mutex_lock(&spare_mu);
		if (nspares < ARENA_SPARES) {
			spares[nspares++] = owner;
			kept = 1;
		}
		pthread_mutex_unlock(&spare_mu);
	}
	if (!kept)
		lua_close(owner); /* its allocator is LuaJIT's: the arena goes */
	env->base_alloc = NULL;
	env->base_ud = NULL;
}
#endif
