/*
 * zlua_runtime.h: part of zlua.h, which includes it (never include it
 * alone): push programs' ops, the state, its allocator, time limits and
 * hooks, interruption, the libraries zlua replaces, protected operations;
 * calls from Go are in zlua_calls.h, included at its end.
 * The rules of zlua.h's opening comment hold here.
 */
#ifndef ZLUA_RUNTIME_H
#define ZLUA_RUNTIME_H

/* ---- push programs ----
 * Go never pushes a value that allocates: it writes a program of these ops
 * into env->prog and C interprets it where raising is safe. Operands are
 * little-endian and unaligned. */
enum zlua_op {
	ZLUA_OP_NIL = 1,
	ZLUA_OP_TRUE = 2,
	ZLUA_OP_FALSE = 3,
	ZLUA_OP_INT = 4,      /* i64 */
	ZLUA_OP_NUM = 5,      /* f64 */
	ZLUA_OP_STR = 6,      /* u32 len, bytes */
	ZLUA_OP_NEWTABLE = 7, /* u32 narr, u32 nrec */
	ZLUA_OP_RAWSET = 8,   /* t[k] = v with t, k, v on top; pops k, v */
	ZLUA_OP_GOFUNC = 9,   /* u32 fnid, u32 hints: Go function closure */
	ZLUA_OP_REF = 10,     /* i32 registry ref */
	ZLUA_OP_OBJ = 11,     /* u32 slot, gen, type_id, i32 mt ref, u8 cached:
	                       * the ByObj userdata of slot (see objects.c) */
	ZLUA_OP_NEWMT = 12,   /* stack: name -> a new ByObj metatable */
	ZLUA_OP_INDEXER = 13, /* stack: mt, methods, getter -> mt (mt.__index set) */
	ZLUA_OP_OBJFIELDS = 14, /* stack: mt, methods, getter, setter, fields,
	                         * type id, size, name -> mt (__index and
	                         * __newindex serving fields in C, objfields.c) */
	ZLUA_OP_PLAININDEX = 15, /* stack: mt, methods, name -> mt (__index is
	                          * the methods table; a miss is an error) */
	ZLUA_OP_EQWRAP = 16,  /* stack: Go __eq -> the C __eq over it */
	/* StructRegistry (structs.c) */
	ZLUA_OP_BYVAL = 32,   /* u32 type_id, i32 mt ref, u32 size, u32 companion,
	                       * u32 gen, size bytes: a ByVal userdata. With a
	                       * companion there is no payload and the size word
	                       * is the companion's charge (structs.c) */
	ZLUA_OP_SVMT = 33,    /* u8 gc; stack: name -> a new ByVal metatable */
	ZLUA_OP_SVINDEX = 34, /* stack: mt, fields, methods, getter, setter,
	                       * type id, size (0: a companion type), name -> mt
	                       * (__index, __newindex set) */
	ZLUA_OP_LIGHTUD = 35, /* u64: a light userdata (opaque handle) */
	ZLUA_OP_SVCHARGE = 37, /* u32 companion, i64 delta: the slot's charge
	                        * changes by delta (a field write); pushes nothing */
	ZLUA_OP_OBJCHARGE = 38, /* u32 slot, u64 bytes: charges an object slot
	                         * (objects.c); pushes nothing */
	ZLUA_OP_NOMEM = 39,     /* raises Lua's memory error (a store whose
	                         * charge did not fit, structs.c) */
	ZLUA_OP_SVNOADDR = 40,  /* marks the ByVal userdata on top
	                         * ZLUA_F_NOADDR (anything else is left
	                         * alone); pushes nothing */
	ZLUA_OP_OBJPTR = 41,    /* u64: the address of the pinned object the
	                         * ByObj userdata on top (pushed just before)
	                         * shows: C serves its fields from it
	                         * (objects.c); pushes nothing */
	/* leaf methods (jitleaf.c) */
	ZLUA_OP_LEAF = 36     /* u32 type_id, u32 fnid, u8 nparams, u8 boolean
	                       * params (bit i), u8 nresults, u8 boolean results;
	                       * stack: the method's Go function -> its LuaJIT
	                       * leaf closure (unchanged on Lua 5.4 or without
	                       * the FFI) */
};

/* Programs up to this size are copied onto the C stack before they run, so
 * Go code re-entered during the run (finalizers, metamethods) may reuse
 * env->prog; larger ones are copied into a Lua userdata. */
#define ZLUA_PROG_INLINE 512

/* ---- C stack bound of library recursion (cstack.c) ---- */

/* [go-safe] LuaJIT: whether the running thread's C stack is too deep for
 * one more level of library recursion: more than ZLUA_CSTACK_LIMIT below
 * env->cstack_base, or within ZLUA_CSTACK_RESERVE of the thread's stack
 * end. Lua 5.4 (which bounds C calls itself): always 0. */
int zlua_cstack_over(zlua_env *env);
/* [go-safe] Whether the running thread's C stack is too deep for one more
 * entry from Go into Lua (cstack.c): the protected dispatcher then raises
 * "C stack overflow" and the one-crossing calls take its path. Both
 * backends. A thread-local load and a compare; the first call on a
 * thread finds its stack (zlua_cstack_low_first). */
extern __thread uintptr_t zlua_entry_floor __attribute__((tls_model("initial-exec")));
int zlua_cstack_low_first(void);
static inline int zlua_cstack_low(void)
{
	uintptr_t floor = zlua_entry_floor;
	if (__builtin_expect(floor == 0, 0))
		return zlua_cstack_low_first();
	return (uintptr_t)__builtin_frame_address(0) < floor;
}
/* [lua] LuaJIT: replaces coroutine.resume, coroutine.wrap (and the
 * functions it returns), table.sort, require, print, dofile, load and
 * loadstring with Lua closures that raise or return "C stack overflow"
 * when zlua_cstack_over says so, and otherwise tail-call the original.
 * Lua 5.4: nothing. [-0, +0] */
void zlua_open_cstack(lua_State *L, zlua_env *env);
/* [go-safe] Tests: runs the Go function of handle h (zluaSmallStackRun) on a
 * new C thread whose stack is size bytes and waits for it; 0, or the
 * pthread error. */
int zlua_run_on_stack(uintptr_t h, size_t size);

/* ---- state (state.c) ---- */

/* [go-safe] Creates the state and the env; NULL on allocation failure. */
zlua_env *zlua_env_new(uintptr_t goid);
/* [go-safe] lua_close (runs every __gc), then frees the env. */
void zlua_env_close(zlua_env *env);
/* [go-safe] Forgets the per-call state of a call whose C frames a Go
 * function abandoned (runtime.Goexit), so that lua_close can run on
 * another thread: nothing in the env points into those frames after it.
 * The state stays as it was. [-0, +0] */
void zlua_env_abandoned(zlua_env *env);
/* [go-safe] lua_close only: the env stays readable (queues of released
 * ids and slots) until zlua_env_close frees it. */
void zlua_env_close_state(zlua_env *env);
/* [lua] Makes a metatable for zlua userdata: marker, protected __metatable,
 * __name. [-0, +1] */
void zlua_new_metatable(lua_State *L, zlua_env *env, const char *name);
/* [lua] Pushes registry[ref], raising unless it is a table: scripts with
 * debug.getregistry can replace zlua's entries, and lua_setmetatable or a
 * raw access on another type would corrupt memory. [-0, +1] */
void zlua_push_regtable(lua_State *L, int ref);
/* [go-safe] Grows env->prog to at least need bytes; 0 on failure. */
int zlua_prog_reserve(zlua_env *env, size_t need);
/* [go-safe] zlua_prog_reserve growing to at most max bytes (when need
 * fits). */
int zlua_prog_reserve_max(zlua_env *env, size_t need, size_t max);
/* The push program's capacity kept from one outermost call to the next:
 * a bigger buffer (a big result's program) is freed when the call ends
 * (zlua_prog_shrink), and so is a LuaJIT leaf call's kept copy. */
#define ZLUA_PROG_KEEP ((size_t)1 << 20)
/* [go-safe] Frees env->prog (and a LuaJIT leaf call's kept copy bigger
 * than ZLUA_PROG_KEEP when none waits); Go forgets its view of it. Only
 * between outermost calls: no program is being built or run. */
void zlua_prog_shrink(zlua_env *env);
/* [go-safe] Grows env->armed to hold index n; 0 on failure. */
int zlua_armed_reserve(zlua_env *env, size_t n);
/* [go-safe] Ensures n free stack slots; 0 when the stack cannot grow.
 * [-0, +0] */
int zlua_reserve(zlua_env *env, lua_State *L, int n);
/* [go-safe] Whether registry refs a and b hold the same value (rawequal):
 * 1 or 0, and -1 when the stack cannot grow for the comparison. [-0, +0] */
int zlua_ref_same(zlua_env *env, lua_State *L, int a, int b);

/* [lua] The message handler of every protected call zlua makes: records
 * the error's traceback (zlua_errinfo_record). protect.c. */
int zlua_msgh(lua_State *L);
/* [lua] The dispatcher every operation Go asks for runs under (protect.c). */
int zlua_dispatch(lua_State *L);

/* [-0, +1] Pushes zlua_msgh. On Lua 5.4 it is a light C function, pushed
 * without a registry lookup and without allocating; LuaJIT's
 * lua_pushcfunction allocates a closure, so there it comes from the
 * registry, where boot keeps it (env->msgh_ref). */
static inline void zlua_push_msgh(lua_State *L, zlua_env *env)
{
#ifdef ZLUA_LUAJIT
	lua_rawgeti(L, LUA_REGISTRYINDEX, env->msgh_ref);
#else
	(void)env;
	lua_pushcfunction(L, zlua_msgh);
#endif
}

/* ---- allocator (alloc.c) ---- */

/* [go-safe] The env of the state L belongs to. C functions a script can
 * reach find their env here, never in an upvalue, argument or registry
 * entry, which a script with the debug library can replace. Lua 5.4: the
 * thread's extra space (LUA_EXTRASPACE, a pointer), a load with no call:
 * zlua_newstate writes it in the main thread before any other thread
 * exists, and lua_newthread copies the main thread's extra space into
 * every new thread (coroutine.create and zlua's own lua_newthread calls
 * alike); nothing but C code can write it. LuaJIT has no extra space:
 * the allocator's ud (lua_getallocf, a call). [-0, +0] */
static inline zlua_env *zlua_envof(lua_State *L)
{
#ifndef ZLUA_LUAJIT
	return *(zlua_env **)lua_getextraspace(L);
#else
	void *ud;
	lua_getallocf(L, &ud);
	return (zlua_env *)ud;
#endif
}

/* [lua] The lua_Alloc of every state: counts bytes, enforces mem_limit and
 * the test-only failure of one allocation. Never calls Go. */
void *zlua_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
/* [go-safe] Sets the env's memory limit (0: none), and on LuaJIT
 * resets the allocator's pacing of the collector (alloc.c). */
void zlua_set_mem_limit(zlua_env *env, size_t n);
/* Heap bytes in use and their peak. */
typedef struct zlua_memstats {
	size_t used, peak;
	size_t ext; /* ext_used: bytes of Go copies charged to the limit */
} zlua_memstats;
/* [go-safe] Reads mem_used and mem_peak atomically, from any thread while
 * the env lives; used <= peak holds. */
zlua_memstats zlua_mem_stats(const zlua_env *env);
/* [go-safe] env->calls, from any thread while the env lives. */
uint64_t zlua_calls(const zlua_env *env);
/* [go-safe] Creates a state whose allocator is zlua_alloc with env as ud
 * (LuaJIT without GC64: its own allocator wrapped, see alloc.c). NULL on
 * failure. */
lua_State *zlua_newstate(zlua_env *env);
#ifdef ZLUA_LUAJIT
/* [go-safe] Whether the linked LuaJIT takes a custom allocator in
 * lua_newstate (a GC64 build, found once per process: alloc.c). */
int zlua_jit_own_allocator(void);
/* [go-safe] Destroys the arena of a closed state's allocator (closes the
 * bare state that owns it, alloc.c), or keeps it for the next state when
 * the heap stayed small and fewer than 8 wait; no-op without one. */
void zlua_close_arena(zlua_env *env);
/* [go-safe] How many arenas of closed states wait for the next state
 * (alloc.c: a state whose heap stayed under 1 MiB leaves its arena to the
 * next one, up to 8 per process). */
int zlua_spare_arenas(void);
#endif

/* ---- time limits (hook.c) ---- */

/* [go-safe] Starts a limited call on thread L: installs the count hook
 * (LuaJIT: also switches the JIT compiler off and flushes compiled code,
 * under protection) and names the calling thread as the call's
 * (zlua_poke_begin). Returns env->running before and what
 * zlua_poke_begin returned, for zlua_limit_end. [-0, +0] */
typedef struct zlua_limitprev {
	lua_State *running; /* env->running before */
	uintptr_t poke;     /* what zlua_poke_begin returned */
	int tid;            /* the calling thread's kernel id */
} zlua_limitprev;
zlua_limitprev zlua_limit_begin(zlua_env *env, lua_State *L);
/* [go-safe] Ends a limited call begun on L; prev is what its begin
 * returned, prev_poke and tid what it stored. The outermost one removes
 * the hook (LuaJIT: switches the compiler back on). [-0, +0] */
void zlua_limit_end(zlua_env *env, lua_State *L, lua_State *prev, uintptr_t prev_poke, int tid);
/* The real-time signal that makes a limited call's hook fire (poke.c). */
#define ZLUA_POKE_SIGNO() (SIGRTMIN + 8)
/* [go-safe] From zlua_limit_begin, on the thread that will run the
 * limited call: names env as the one limited on this thread (for the
 * signal's handler) and the thread as env's (for zlua_poke); installs
 * the handler at the first call. Returns the env named before, for
 * zlua_poke_end. [-0, +0] */
uintptr_t zlua_poke_begin(zlua_env *env);
/* [go-safe] The calling thread's kernel id (cached per thread). */
int zlua_own_tid(void);
/* [go-safe] From zlua_limit_end: names prev again on this thread, if it
 * is the thread of the begin (tid: zlua_own_tid there). A goroutine that
 * moved meanwhile (its code unlocked the thread it did not lock) leaves
 * the begin thread naming env: env is then never freed (zlua_env_close
 * keeps the struct, with no limit running), so the handler there never
 * reads freed memory. [-0, +0] */
void zlua_poke_end(zlua_env *env, uintptr_t prev, int tid);
/* [go-safe] zlua_poke_end for a call abandoned by Goexit, which never
 * reaches zlua_limit_end: names no env on this thread. */
void zlua_poke_forget(zlua_env *env, int tid);
/* [go-safe] From any thread while env's limited call runs, once its
 * context is done: signals the thread last named env's, whose handler
 * makes the running Lua thread's hook fire at its next instruction (and
 * that of every other marked env whose limited call runs on the thread).
 * Returns 1 when a signal was sent, -1 when it could not be for now (the
 * queue of pending signals is full: try again), 0 when none can be (no
 * thread, or the handler is not zlua's). */
int zlua_poke(zlua_env *env);
/* [go-safe] Whether more limited calls run on this thread than the
 * signal's handler can see (poke.c, ZLUA_POKE_NEST): the innermost one
 * then counts from its start. */
int zlua_poke_nest_full(void);
/* [go-safe] How many envs zlua_env_close kept (see zlua_poke_end). */
int zlua_kept_envs(void);
/* [go-safe] ZLUA_POKE_SIGNO(), for Go. */
int zlua_poke_signo(void);
/* [go-safe] Whether zlua's handler is installed and still the signal's. */
int zlua_poke_ready(void);
/* [go-safe] zlua_poke_ready as last seen, looked at again when that was
 * ZLUA_POKE_RECHECK_NS or more before now (monotonic ns), or when a poke
 * found the handler was not zlua's since. */
int zlua_poke_ready_at(uint64_t now);
/* [go-safe] Marks one context done with a ZLUA_INT_* reason; callable from
 * any thread (an atomic store, no Lua call). */
void zlua_interrupt(zlua_env *env, int reason);
/* [go-safe] Withdraws one context done whose limited call has ended. */
void zlua_interrupt_clear(zlua_env *env);
/* [lua] Opens what limits need in the libraries present: the coroutine
 * functions (coroutine.c), xpcall (xpcall.c), debug.sethook/gethook
 * (debughook.c), LuaJIT's C stack bound (cstack.c). [-0, +0] */
void zlua_open_limits(lua_State *L, zlua_env *env);
/* [lua] The lua_Hook of every state: the limit's count events and the
 * script's events. */
void zlua_hook(lua_State *L, lua_Debug *ar);
/* [go-safe] Installs the hook the thread at index idx of L (0: L itself)
 * needs: the script's, merged with the limit's count while a limited call
 * runs; none when neither. force restarts the count even when nothing
 * changes. Needs 3 free stack slots when scripts set hooks. [-0, +0] */
void zlua_hook_apply(lua_State *L, zlua_env *env, int idx, int force);
/* [go-safe] zlua_hook_apply on the thread at idx unless its hook already
 * checks the limit (coroutines about to run in a limited call). [-0, +0] */
void zlua_hook_thread(lua_State *L, zlua_env *env, int idx);
/* [go-safe] Whether zlua_rearm_hooks can act: the layout of lua_State's
 * first bytes was checked against the linked library (rearm.c; always 1
 * on LuaJIT). */
int zlua_rearm_supported(void);
#ifndef ZLUA_LUAJIT
/* [go-safe] Turns hooks back on for co after lua_resume returned an error
 * (a hook's error leaves them off: rearm.c). No-op for a live thread.
 * [-0, +0] */
void zlua_rearm_hooks(lua_State *co);
/* [lua] Closes co (lua_closethread, or lua_resetthread before 5.4.6)
 * with co named the running thread meanwhile: its __close handlers run
 * on co, and a lazy limit's signal must hurry the thread they run on
 * (hook.c, limit_armed). Returns the close's status; never raises.
 * [-0, +0] on L */
int zlua_close_thread(lua_State *L, zlua_env *env, lua_State *co);
#endif
/* [go-safe] Makes L's hook fire at its next instruction (and, on Lua
 * 5.4, at its next call: hook.c). [-0, +0] */
void zlua_hook_hurry(lua_State *L);
/* [go-safe] From zlua_alloc, once a context is done during a limited
 * call: makes the running thread's hook fire at its next instruction (a
 * C function allocating in a loop is stopped right after it returns, not
 * at the next count event). Lua allows lua_sethook at any point of the
 * thread's own execution (lua.c calls it from a signal handler); no Lua
 * value is touched. Once per hook event. [-0, +0] */
void zlua_hook_hurry_running(zlua_env *env);
/* [go-safe] Whether a message handler must not run the script's code now:
 * inside a limited call, a context is done or the error being handled was
 * raised from a hook, so the handler runs without hooks and nothing could
 * stop it. Clears the hook mark. */
int zlua_handler_guard(zlua_env *env);
/* [lua] Opens coroutine.create/resume/wrap/close (Lua 5.4). [-0, +0] */
void zlua_open_coroutines(lua_State *L, zlua_env *env);
/* [lua] Opens xpcall (and LuaJIT's jit.on) for limits. [-0, +0] */
void zlua_open_xpcall(lua_State *L, zlua_env *env);

/* ---- scripts' hooks (debughook.c) ---- */

/* [go-safe] The hook record of the thread at idx of L (0: L itself; LuaJIT:
 * the state's), or NULL; with pushfn, also pushes its function (or nil).
 * Allocates nothing. [-0, +pushfn] */
zlua_hookrec *zlua_hookrec_of(lua_State *L, zlua_env *env, int idx, int pushfn);
/* [lua] Calls the script's hook function of L for event ar, as the stock
 * library does. [-0, +0] */
void zlua_script_hook(lua_State *L, zlua_env *env, lua_Debug *ar);
/* [lua] Gives the new thread at idx the record its creator's hook implies
 * (Lua 5.4). [-0, +0] */
void zlua_hook_inherit(lua_State *L, zlua_env *env, int idx);
/* [lua] Replaces debug.sethook and debug.gethook when debug is open.
 * [-0, +0] */
void zlua_open_debughook(lua_State *L, zlua_env *env);
#ifdef ZLUA_LUAJIT
/* [lua] Keeps the function on top (left there) as env->hook_fns[which]
 * (ZLUA_HOOKFN_*), referenced from the registry so that its address stays
 * its own. [-0, +0] */
void zlua_jit_hook_fn(lua_State *L, zlua_env *env, int which);
/* [lua] At a count event: whether the running function is one of zlua's
 * own Lua closures (a chunk named "=zlua.*"), whose instructions stock
 * LuaJIT does not run; follows the watch of a closure's return
 * (debughook.c). [-0, +0] */
int zlua_jit_count_event(lua_State *L, zlua_env *env);
/* [go-safe] Forgets what debughook.c noted or watches of L's frames for
 * the line event after a wrapper returns: an error is unwinding them to a
 * call from Go (the message handler of zlua's protected operations), and
 * a later call of the same function must see its first line. Reads no
 * Lua state. [-0, +0] */
void zlua_jit_hook_unwound(lua_State *L, zlua_env *env);
/* [go-safe] Whether f is the C closure LuaJIT's print is wrapped in
 * (guards.c), which calls the stock print. */
int zlua_jit_is_print_wrapper(lua_CFunction f);
#endif

/* ---- interruption (interrupt.c) ---- */

/* [go-safe] Whether a context of a running limited call is done (an atomic
 * read; Go sets the count from any thread). */
static inline int zlua_interrupted(zlua_env *env)
{
	return env->limit_depth > 0 && __atomic_load_n(&env->interrupt, __ATOMIC_ACQUIRE) > 0;
}
/* [go-safe] zlua_interrupted, for Go code that runs long inside a
 * limited call (a big conversion). */
int zlua_interrupted_now(zlua_env *env);
/* [go-safe] The interruption message of the last context done:
 * "interrupted: context deadline exceeded" or "... canceled". */
const char *zlua_interrupt_text(zlua_env *env);
/* [lua] Raises "interrupted: context deadline exceeded" (or "... canceled")
 * prefixed with the position of the function at level (0: the running
 * function, as in a hook; 1: the caller of a C function), or of the first
 * function above it that is not one of zlua's own Lua closures (see
 * zlua_where_script). [-0, +1, raises] */
int zlua_raise_interrupt(lua_State *L, zlua_env *env, int level);
/* [lua] Pushes the message zlua_raise_interrupt raises: the first one the
 * limited call raised (env->int_first) when it names the same context
 * text, else a fresh one, which becomes the first when there is none yet.
 * [-0, +1] */
void zlua_push_interrupt(lua_State *L, zlua_env *env, int level);
/* [go-safe] Called when a limited call has ended (limit_depth already
 * decremented): drops the first interruption message it recorded, unless
 * an outer call's context is done too, which then keeps it. [-0, +0] */
void zlua_interrupt_forget(zlua_env *env);
/* [lua] When the value at idx is the limited call's first interruption
 * message (env->int_first) and its traceback was kept, pushes that
 * traceback and returns 1; else returns 0. [-0, +(0|1)] */
int zlua_push_interrupt_tb(lua_State *L, zlua_env *env, int idx);
/* [lua] luaL_where(L, level), except that levels running one of zlua's
 * own Lua closures (chunks named "=zlua.*": LuaJIT's leaf and field
 * closures, its pairs/ipairs, gmatch and xpcall helpers) are skipped: they
 * serve a call or an index of the script's, as C functions do on Lua 5.4,
 * so an error raised inside them (by a hook) names the script's line.
 * [-0, +1] */
void zlua_where_script(lua_State *L, int level);
/* Bytes of a chunk the parser gets at a time inside a limited call. */
#define ZLUA_LOAD_PIECE 1024
/* [lua] luaL_loadbufferx, except that inside a limited call a chunk is
 * given to the parser ZLUA_LOAD_PIECE bytes at a time, and the
 * interruption is raised between two pieces once the context is done: a
 * crafted chunk can make parsing superlinear (each of many names searched
 * through every enclosing function's locals), and no instruction runs
 * while it compiles. Returns lua_load's status, the function or the error
 * on top. [-0, +1] */
int zlua_load_chunk(lua_State *L, zlua_env *env, const char *chunk, size_t len, const char *name,
		    const char *mode);
/* The load mode of zlua's own chunks (zlua_load_chunk: zlua_load_own). */
#define ZLUA_MODE_OWN "o"
/* [lua] Loads one of zlua's own chunks, src named name, as
 * luaL_loadbuffer does (the same function, lines and name): compiled the
 * first time in the process, from the bytecode it compiled to after that
 * (chunkcache.c). Never for a script's chunk. [-0, +1] */
int zlua_load_own(lua_State *L, const char *src, size_t len, const char *name);
/* [go-safe] How many of zlua's own chunks the process keeps compiled. */
int zlua_own_chunks(void);

/* ---- pattern matching (pattern.c, pattern_lib.c) ---- */

/* [lua] Replaces string.find, match, gmatch and gsub with zlua's, whose
 * matcher bounds its work and stops when a limited call's context is done;
 * the originals stay in the registry under ZLUA_STOCK_PATTERNS (tests).
 * [-0, +0] */
void zlua_open_patterns(lua_State *L, zlua_env *env);
/* [lua] Lua 5.4: replaces string.rep, table.move, table.insert and
 * table.remove by versions whose loops a limited call can stop
 * (guards.c); nothing on LuaJIT. [-0, +0] */
void zlua_open_guards(lua_State *L);
/* Registry key of the table of the backend's original pattern functions. */
#define ZLUA_STOCK_PATTERNS "zlua.stockpatterns"

/* ---- warnings (warn.c) ---- */

/* [go-safe] Installs zlua's warning function (Lua 5.4; a no-op on LuaJIT,
 * which has no warnings). to_go != 0 sends whole messages to Go and turns
 * warnings on; otherwise they start off and go to stderr as lua5.4 prints
 * them. Never allocates Lua memory. [-0, +0] */
void zlua_open_warnings(lua_State *L, zlua_env *env, int to_go);

/* ---- sandbox (sandbox.c) ---- */

/* [lua] Opens the standard libraries reduced to the safe set (see
 * docs/SANDBOX.md). [-0, +0] */
void zlua_open_safe(lua_State *L, zlua_env *env);

/* ---- protected operations (protect.c) ---- */

/* [go-safe] Runs opcode under lua_pcall with zlua's message handler; the
 * push program in env->prog is copied first. Needs 3 free stack slots.
 * Stack: [-nargs, +results or +1 error value]. Returns a LUA_* status. */
int zlua_op(zlua_env *env, lua_State *L, int opcode, int nargs, int nres,
	    zlua_opargs *a);
/* [go-safe] Frees large-program copies left behind by raises. Call only
 * when no Lua code of this env is running. */
void zlua_reclaim(zlua_env *env);
/* [go-safe] A full collection after the memory limit refused an
 * allocation: on LuaJIT after any refusal (Lua 5.4 collects before it
 * reports one), and it unsticks a collector the limit stopped mid-cycle;
 * on both after a refusal while Go copies were charged (structs.c: only a
 * collection that runs finalizers gives their charges back, and Lua 5.4's
 * emergency one runs none). zlua_refusal_pending says when. [-0, +0] */
void zlua_collect_after_refusal(zlua_env *env, lua_State *L);
#ifdef ZLUA_LUAJIT
#define zlua_refusal_pending(env) ((env)->mem_refused)
#else
#define zlua_refusal_pending(env) ((env)->mem_refused && (env)->ext_refused)
#endif
/* [lua] Records in errinfo what zlua's message handler records for an
 * error value: the message of the value at errv (a string or number as is,
 * else __tostring unless zlua_handler_guard says no script code may run,
 * else "(error object is a T value)"), the traceback string at tb, and the
 * value itself. [-0, +0] */
void zlua_errinfo_record(lua_State *L, zlua_env *env, int errv, int tb);
/* [go-safe] Test hook: runs a protected operation (a registry ref of nil)
 * whose opargs sit in a fresh mapping in another light userdata segment
 * than the env and the C stack; -1 when no such mapping could be made.
 * [-0, +0] */
int zlua_op_far_opargs(zlua_env *env, lua_State *L);
/* [go-safe] Copies errinfo (message, traceback) into out pointers valid
 * while the errinfo table holds them; returns 0 if the handler did not run.
 * [-0, +0] */
int zlua_errinfo(zlua_env *env, lua_State *L, const char **msg, size_t *msglen,
		 const char **tb, size_t *tblen);
/* [go-safe] Releases a registry ref. [-0, +0] */
void zlua_unref(lua_State *L, int ref);

#include "zlua_calls.h"

#endif
