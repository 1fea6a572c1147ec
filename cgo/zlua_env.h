/*
 * zlua_env.h: part of zlua.h, which includes it (never include it alone):
 * zlua_env, the C side of one Env, which every function here reaches
 * through the state (zlua_envof).
 * The rules of zlua.h's opening comment hold here.
 */
#ifndef ZLUA_ENV_H
#define ZLUA_ENV_H

typedef struct zlua_env {
	lua_State *L;
	uintptr_t goid; /* Env id in Go's env table */
	/* The gate's owner-thread word (Go: Gate.cbTID, cgo.OnThread): the
	 * zlua_tid of the thread running the outermost Go function Lua
	 * called, 0 between them. C memory the gate owns and frees after the
	 * env (other goroutines read it without a claim, even while Close
	 * frees the env); own_tid until Go sets it (zlua_env_set_owner). */
	uintptr_t *owner_tid;
	uintptr_t own_tid;

	/* set by Go before it returns ZLUA_ERRPOS with a remembered error: the
	 * slot (1-based, 0: none) and sequence number; the trampoline stores
	 * the position prefix there and clears raise_slot */
	uint32_t raise_slot, raise_seq;
	zlua_raised raised[ZLUA_RECENT];

	/* push program being built by Go */
	unsigned char *prog;
	size_t prog_len, prog_cap;

	/* copies of large programs while they run; freed when the run ends,
	 * or by zlua_reclaim when a raise skipped that */
	struct zlua_inflight *inflight;
	int dispatch_ref; /* registry ref of the protected dispatcher closure */
	int msgh_ref;     /* registry ref of the message handler closure */
	int errinfo_ref;  /* registry ref of {message, traceback} */
	int funcmt_ref;   /* registry ref of the Go function sentinel metatable */
	int name_ref;     /* registry ref of the interned string "__name" */
	int collect_ref;  /* LuaJIT: registry ref of the zlua_collect closure */
	int filemt_ref;   /* registry ref of the string "FILE*" (LuaJIT) */
	int errinfo_set;  /* message handler filled errinfo since last reset */
	int op_ref;       /* the ref the last DO_REF or DO_PROGREF made */
	/* the operation zlua_op is calling the dispatcher for; the dispatcher
	 * serves only that one, once (scripts can reach the dispatcher) */
	struct zlua_opargs *op_pending;
	/* its address is the dispatcher's light userdata argument: fixed, in
	 * a segment boot interns (LuaJIT), so zlua_op pushes it without
	 * allocating */
	char op_token;

	/* ids of Go function closures released by __gc, drained by Go */
	uint32_t *freed;
	size_t freed_len, freed_cap;
	/* Set to 1 by every push onto freed, objfreed and svfreed; Go's
	 * dispatcher tests this one word on its common path and clears it
	 * once the three queues are drained (a set word with empty queues
	 * only sends one call down the slow path). zlua_count_call sets it
	 * too when env->tick_left runs out, for the scheduler check. */
	uint32_t queued;
	size_t freed_lost; /* ids dropped because the queue could not grow */

	/* armed[fnid]: 0 while Go holds the id and no closure exists yet, 1
	 * once a closure exists (its __gc will release the id), 2 after that
	 * __gc ran. Go frees ids still at 0 when no program is running: the
	 * program that was to create their closure raised first. */
	unsigned char *armed;
	size_t armed_cap;
	/* fastfn[fnid] for fnid < fastfn_cap (at most ZLUA_FAST_FNS), grown
	 * with armed: the state of the fast ids' closures */
	zlua_fastfn *fastfn;
	size_t fastfn_cap;

	/* ObjectRegistry (objects.c). objcnt[slot] counts the live userdata
	 * of a slot: normally 0 or 1; 2 while an old userdata whose weak cache
	 * entry was cleared waits for its __gc and a new one was pushed. When
	 * a __gc brings it to 0 the slot is queued in objfreed for Go. */
	int cache_ref;    /* registry ref of the weak-valued cache: slot -> ud */
	uint64_t load_failures; /* host chunks that failed to compile (tests) */
	/* push programs and object pushes under way: while nonzero, slots Go
	 * found for a push may not be released mid-call (zlua_busy_pushing) */
	int prog_active;
	int indexer_ref;  /* LuaJIT: registry ref of the __index factory */
	int ffi_ref;      /* LuaJIT: registry ref of the ffi module (jitindex.c) */
	int jiteq_ref;    /* LuaJIT: registry ref of the __eq wrapper factory (jitindex.c) */
	int jitval_ref;   /* LuaJIT: registry ref of the ByVal closure factory (jitindex.c) */
	/* Metatables found to carry this env's marker, by (kind, type id):
	 * zlua_toown compares a userdata's metatable with its entry instead of
	 * looking the marker up. Every such metatable is anchored in the
	 * registry for the env's life, so an entry never dangles. */
	const void *own_mt[ZLUA_OWN_CACHE];
	/* Proven addresses (gate.c, "Proven-address caches" in ARCHITECTURE):
	 * proven_fn holds payload addresses of live function sentinels of this
	 * env, proven_ud those of live 32-byte userdata zlua made whose
	 * metatable is this env's (ByObj, companion ByVal). An entry is exact:
	 * it is cleared before its userdata is released (__gc), freed
	 * (zlua_alloc) or given another metatable (debug.setmetatable), all of
	 * which pass through zlua_unprove. Filled only when ud_block is known
	 * (the free hook then sees every such block). A hit replaces the
	 * length and header checks of one crossing. Direct-mapped by
	 * zlua_proven_at. */
	const void *proven_fn[ZLUA_PROVEN_FN];
	const void *proven_ud[ZLUA_PROVEN_UD];
	/* Lua→Go calls entered by the trampoline: one writer (the thread
	 * running the state), atomic relaxed stores (plain moves), read from
	 * any goroutine by zlua_calls. */
	uint64_t calls;
	/* Lua->Go calls left before zlua_count_call raises queued for Go's
	 * scheduler check; Go sets it at each check (State.SetTick) from how
	 * dense the calls were. 0 at open: the first call checks. */
	uint32_t tick_left;
	/* The stock string.rep (a C function without upvalues) that zlua's
	 * guard calls (guards.c); NULL when the library was not opened. Kept
	 * here, out of the scripts' reach. */
	lua_CFunction stock_rep;
	/* The stock coroutine.close (Lua 5.4), which zlua's calls in its own
	 * frame (coroutine.c), for the same reasons; NULL when absent. */
	lua_CFunction stock_coclose;
	/* Field directories (fields.c), by kind (ZLUA_DIR_*) and type id. */
	zlua_fielddir **dirs[2];
	size_t dirs_cap[2];
	uint32_t *objcnt;
	size_t objcnt_cap;
	/* objcharge[slot] (objcnt_cap entries, NULL until the first charge):
	 * the bytes an object zlua built from a script's table is charged
	 * against mem_limit (callbackgate/charge.go), given back when the
	 * slot's last userdata goes (zlua_obj_queue_slot) */
	size_t *objcharge;
	size_t objcharge_cap;
	/* Ownership by address (read.c, zlua_ownaddr): slot_ud[slot] is the
	 * address of the keyed ByObj userdata zlua created for slot while that
	 * userdata's memory is allocated, else NULL; same capacity as objcnt.
	 * Set by zlua_obj_push, cleared by zlua_obj_gc and, for a userdata
	 * freed without its __gc (a script swapped its metatable), by
	 * zlua_alloc when it frees the block: ud_block is the size of the
	 * block of a ByObj userdata and ud_off the payload's offset in it,
	 * measured once by zlua_obj_init (0: unknown, slot_ud stays empty). */
	const void **slot_ud;
	size_t ud_block, ud_off;
	/* LuaJIT: how far before a full userdata's payload its 32-bit length
	 * lies (inside LuaJIT's userdata header), measured once by jitleaf.c
	 * for the leaf closures (0: unknown, no leaf closures). */
	size_t ud_lenoff;
	/* zlua_ownaddr_init's probe: probing 1 records the next block
	 * allocated (probe_block), probing 2 the size it is freed with
	 * (probe_size) */
	void *probe_block;
	size_t probe_size;
	int probing;
	uint32_t *objfreed;
	size_t objfreed_len, objfreed_cap;
	size_t objfreed_lost; /* slots dropped because the queue could not grow */
	/* StructRegistry (structs.c). svstate[i] for companion slot i: 0 while
	 * Go holds it and no userdata exists yet, 1 once its userdata exists,
	 * 2 after that userdata's __gc; collected slots queue in svfreed. */
	unsigned char *svstate;
	size_t svstate_cap;
	uint32_t *svfreed;
	size_t svfreed_len, svfreed_cap;
	size_t svfreed_lost; /* slots dropped because the queue could not grow */
	/* svcharge[i] (svstate_cap entries): the bytes companion slot i is
	 * charged (structs.c), set when its userdata is made and changed by
	 * field writes, given back by its __gc. ext_used is their sum, which
	 * the allocator counts with mem_used against mem_limit (one writer,
	 * atomic stores, read from any thread by zlua_mem_stats); ext_debt is
	 * what was charged since the collector last stepped for it. */
	size_t *svcharge;
	size_t ext_used, ext_debt;
	/* 1 while the trampoline runs a Go function's result program (gate.c
	 * finish), 0 inside protected operations (zlua_op): only companions
	 * a script's call made are charged, never the host's pushes */
	int charging;

	/* Lua heap accounting (alloc.c). The allocator's ud is the env, which
	 * is how hooks find it too. mem_used and mem_peak have one writer (the
	 * thread running the state) and are read from any thread
	 * (zlua_mem_stats): the writer stores them with atomics. */
	size_t mem_used, mem_peak;
	size_t mem_limit;      /* 0: none */
	lua_Alloc base_alloc;  /* LuaJIT: LuaJIT's allocator, wrapped */
	void *base_ud;         /* its arena */
	lua_State *arena_owner; /* LuaJIT GC64: the bare state that owns base_ud (alloc.c) */
	uint64_t alloc_count;  /* growing allocations so far */
	uint64_t alloc_fail_at; /* tests: fail growing allocations from this number on (0: never) */
	int mem_refused;       /* the limit refused an allocation since the last collection */
	int ext_refused;       /* ... while Go copies were charged (ext_used != 0): on Lua 5.4
	                        * too the next outermost operation collects first (protect.c) */
	int mem_grace;         /* LuaJIT: growing allocations that may pass the limit (at most
	                        * limit/2 bytes each) while zlua unsticks the collector */
	int refusal_full;      /* LuaJIT: the collection after a refusal left the heap over half
	                        * the limit; refs Go releases later make the next outermost
	                        * operation collect again (State.Unrefs) */
	/* LuaJIT: the allocator's pacing of the collector near the limit
	 * (alloc.c). Used bytes (heap + charged) at or above gc_kick make it
	 * speed the collector up (a kick); below gc_relax the kick is over
	 * (0: nothing to relax). */
	size_t gc_kick, gc_relax;
	int gc_kicked;         /* the stepmul is zlua's (GC_STEPMUL) since a kick */
	int gc_stepmul;        /* the stepmul before it */

	/* time limits (hook.c) */
	int limit_depth;       /* limited calls in progress */
	int limit_jit;         /* LuaJIT: the outermost one switched the compiler off */
	int limit_jit_on;      /* LuaJIT: and it was on before (jit.status) */
	int jitstatus_ref;     /* LuaJIT: registry ref of the original jit.status, or LUA_NOREF */
	int eq_ref;            /* the shared __eq of objects (callbackgate's InitObjects), or LUA_NOREF */
	int package_ref;       /* LuaJIT: registry ref of the package table the libraries
				* opened (its preload field is what require reads), or LUA_NOREF */
	int interrupt;         /* contexts done among them; atomic (any goroutine) */
	int interrupt_reason;  /* atomic: ZLUA_INT_* of the last context done */
	int limit_tid;         /* atomic: kernel id of the thread of the last limited call begun */
	int limits_open;       /* limited calls begun and not ended on their own thread (poke.c) */
	uintptr_t cstack_base; /* C stack address of the outermost zlua_op running */
	int hook_raised;       /* the error being raised left a hook (see zlua_handler_guard) */
	int hook_count;        /* instructions between checks now (adaptive, hook.c) */
	uint64_t hook_at;      /* monotonic ns of the last check (or the limit's start) */
	int hook_hurried;      /* zlua_alloc hurried the hook since its last event */
	int limit_lazy;        /* Lua 5.4: the limited calls in progress run without the
	                        * count hook until their context is done (hook.c) */
	/* The first interruption raised in a limited call (interrupt.c,
	 * zlua_push_interrupt): its message, with the position where the
	 * script ran, which later raises of the same interruption repeat; the
	 * limit depth it belongs to; int_first_len 0: none yet. */
	char int_first[ZLUA_INT_FIRST_MAX];
	size_t int_first_len;
	int int_first_depth;
	/* its traceback, taken when it was raised (the message handler gives
	 * it to the error that repeats the message); int_tb_len 0: none */
	char int_tb[ZLUA_INT_TB_MAX];
	size_t int_tb_len;
	lua_State *running;    /* Lua 5.4: the thread running Lua code (set by limited
	                        * calls and resumes; read only while limit_depth > 0) */
	int limflag_ref;       /* LuaJIT: registry ref of {limited}, read by Lua-side xpcall */
	/* leaf methods (jitleaf.c) */
	int leafmk_ref;        /* LuaJIT: registry ref of the closure maker (0: not made) */
	int leafbase_ref;      /* LuaJIT: registry ref of {type, getmetatable} as the base
	                        * library opened them, for the maker (0: none) */
	zlua_leafcall leaf;    /* LuaJIT: the call whose results wait */

	/* scripts' hooks (debughook.c) */
	int script_hooks;      /* debug.sethook was called: records may exist */
	int hooks_ref;         /* registry ref of the record table */
	/* LuaJIT: what a script's hook must not see of zlua's Lua wrappers
	 * (debughook.c, hook.c) */
	const void *hook_fns[ZLUA_HOOKFN_N]; /* library functions, ZLUA_HOOKFN_* */
	int hook_inwrap;       /* the script's count event waits for the end of a
	                        * wrapper: the count is 1 meanwhile */
	int watch;             /* 1: the hook fires at every instruction until the
	                        * first one outside zlua's closures; 2: that was
	                        * watched's, right after a return (debughook.c) */
	zlua_wrapret watched;  /* the caller of the closure watched */
	lua_State *lastline_L; /* the thread and stack slot of the function of the */
	int lastline_slot;     /* last line event outside zlua's closures */
	int wrapret_n;         /* entries of wrapret in use */
	zlua_wrapret wrapret[ZLUA_WRAPRET_MAX];

	/* warnings (warn.c, Lua 5.4) */
	int warn_on;     /* shown: warn("@on"), or a Go sink from the start */
	int warn_cont;   /* the message being built continues */
	int warn_go;     /* deliver to Go (zluaWarn) instead of stderr */
	char *warnbuf;   /* the message being built, NUL-terminated */
	size_t warn_len, warn_cap;
} zlua_env;

#endif
