/*
 * zlua.h: the whole C interface of zlua, for Lua 5.4 and LuaJIT 2.1.
 *
 * Rules every function here follows (see docs/ARCHITECTURE.md):
 *  - Go code only calls functions marked [go-safe]: they never raise a Lua
 *    error (no allocation, no metamethod, stack space pre-checked) or they
 *    run the raising work under lua_pcall entirely inside C.
 *  - Functions marked [lua] run as lua_CFunctions or inside a protected call;
 *    they may raise, because no Go frame sits between them and the catching
 *    setjmp.
 *  - No Go pointer is stored in memory declared here, except the address
 *    of a Go object pinned with runtime.Pinner for as long as it is kept
 *    (ZLuaObjectUserData.ptr, as an integer).
 * Each function states its Lua stack effect as [-pop, +push].
 */
#ifndef ZLUA_H
#define ZLUA_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
#ifdef ZLUA_LUAJIT
#include <luajit.h>
#endif

/* ---- backend compatibility (Lua 5.1 API of LuaJIT -> 5.4 names) ---- */

#ifdef ZLUA_LUAJIT
#define ZLUA_BACKEND "LuaJIT"
#define zlua_newuserdata(L, sz) lua_newuserdata((L), (sz))
#define zlua_rawlen(L, i) lua_objlen((L), (i))
#define zlua_pushglobaltable(L) lua_pushvalue((L), LUA_GLOBALSINDEX)
int zlua_isinteger(lua_State *L, int idx);
#else
#define ZLUA_BACKEND LUA_RELEASE
#define zlua_newuserdata(L, sz) lua_newuserdatauv((L), (sz), 0)
#define zlua_rawlen(L, i) ((size_t)lua_rawlen((L), (i)))
#define zlua_pushglobaltable(L) lua_pushglobaltable(L)
#define zlua_isinteger(L, i) lua_isinteger((L), (i))
#endif

/* lua_rawgeti returning the type pushed (Lua 5.4 does; LuaJIT's returns
 * nothing). */
#ifdef ZLUA_LUAJIT
#define zlua_rawgeti_type(L, idx, n) (lua_rawgeti((L), (idx), (n)), lua_type((L), -1))
#else
#define zlua_rawgeti_type(L, idx, n) lua_rawgeti((L), (idx), (n))
#endif

/* lua_rawget returning the type pushed, like zlua_rawgeti_type. */
#ifdef ZLUA_LUAJIT
#define zlua_rawget_type(L, idx) (lua_rawget((L), (idx)), lua_type((L), -1))
#else
#define zlua_rawget_type(L, idx) lua_rawget((L), (idx))
#endif

/* lua_absindex for both backends (pseudo-indices are returned unchanged). */
#define lua_absindex_compat(L, i) \
	(((i) > 0 || (i) <= LUA_REGISTRYINDEX) ? (i) : lua_gettop(L) + (i) + 1)

/* Stack slots Go code may use inside a gate call without asking: Lua
 * guarantees LUA_MINSTACK (20) free slots to every C function, and the
 * trampoline uses none of them before it enters Go (the stack is reserved
 * lazily, not on every call). Go code that needs more (reading nested
 * tables) reserves it first with zlua_reserve. */
#define ZLUA_GO_STACK 16

/* ---- userdata layouts ---- */

/* Stamped into the first word of every userdata zlua creates. Recognition
 * never trusts it alone: the metatable must also carry zlua's marker key
 * mapped to the owning env (see zlua_toown). */
#define ZLUA_MAGIC 0x5a4c5541u /* "ZLUA" */
/* First word of a ByVal type's field directory (structs.c), which is not a
 * zlua userdata: no userdata zlua makes starts with it. */
#define ZLUA_DIRMAGIC 0x5a444952u /* "ZDIR" */

enum zlua_kind {
	ZLUA_KIND_FUNC = 1,  /* sentinel upvalue of a Go function closure */
	ZLUA_KIND_BYOBJ = 2, /* Go object held by reference in a slot */
	ZLUA_KIND_BYVAL = 3  /* Go struct copied into the userdata */
};

/* header flags */
#define ZLUA_F_RELEASED 1u /* __gc ran: any later use is an error */
#define ZLUA_F_KEYED 2u    /* ByObj pushed with identity: the only live
                            * userdata of its (object, binding) */

#define ZLUA_F_SELFUD 4u /* FUNC: argument 1 of the last call was a full
			 * userdata (a method's receiver); only a hint for the
			 * order in which the trampoline reads it */
typedef struct zlua_udheader {
	uint32_t magic;
	uint16_t kind;
	uint16_t flags;
	uint32_t type_id; /* zlua type id of the Go type (0 for FUNC) */
	uint32_t reserved;
} zlua_udheader;

/* ByObj: the Go object lives in the Go slot table; C keeps its slot index
 * and, once Go pinned the object, its address. header.type_id is the
 * binding id: the Go type and the declared view (interface) it was pushed
 * with. 32 bytes. */
typedef struct ZLuaObjectUserData {
	zlua_udheader header; /* kind == ZLUA_KIND_BYOBJ */
	uint32_t slot;        /* index into the env's slot table */
	uint32_t gen;         /* slot generation at push time */
	uint64_t ptr;         /* address of the Go struct whose numeric fields C
	                       * serves, pinned by Go (runtime.Pinner) until the
	                       * slot is released; 0 until the first field access
	                       * (see objfields.c) */
} ZLuaObjectUserData;

/* ByVal: a blittable Go struct is copied into the payload, which follows
 * this 32-byte header (8-byte aligned); a non-blittable one lives in a Go
 * companion slot named by index and generation, with no payload.
 * header.type_id is the struct type's id (see structs.c). */
typedef struct ZLuaByValHeader {
	zlua_udheader header; /* kind == ZLUA_KIND_BYVAL */
	uint32_t size;        /* payload bytes (0 for a companion) */
	uint32_t companion;   /* companion slot, 0 when blittable */
	uint32_t gen;         /* companion slot generation */
	uint32_t pad;
} ZLuaByValHeader;

#define ZLUA_BYVAL_PAYLOAD(u) ((unsigned char *)(u) + sizeof(ZLuaByValHeader))

struct zlua_env;

/* Sentinel stored as upvalue 1 of every Go function closure; its __gc hands
 * the function id back to Go. */
typedef struct zlua_funcud {
	zlua_udheader header; /* kind == ZLUA_KIND_FUNC */
	struct zlua_env *env;
	uint32_t fnid;
	/* Two bits per argument i < ZLUA_FAST_ARGS (bits 2i, 2i+1), set from
	 * the Go signature when the closure is made: ZLUA_HINT_INT when the
	 * Go parameter is a signed integer kind, ZLUA_HINT_NUM when it is a
	 * float kind. The trampoline then reads a number with one API call
	 * (read_num); any other value is read as without a hint.
	 * ZLUA_HINT_REF marks a pointer-to-struct parameter, which no number
	 * converts to: read_arg asks the type first, without the integer
	 * subtype test (a full or light userdata in two API calls). */
	uint32_t hints;
} zlua_funcud;

#define ZLUA_HINT_INT 1u
#define ZLUA_HINT_NUM 2u
#define ZLUA_HINT_REF 3u

/* ---- values crossing the gate ---- */

#define ZLUA_FAST_ARGS 8

/* One argument read by the trampoline before Go is entered. */
typedef struct zlua_arg {
	int32_t type;  /* LUA_T* */
	int32_t isint; /* number with integer subtype (always 0 on LuaJIT);
	                * for a userdata: 1 when v.p was checked with zlua_toown */
	size_t len;    /* string length */
	union {
		lua_Integer i;
		lua_Number n;
		const char *s; /* valid while the argument stays on the stack */
		int b;
		zlua_udheader *p; /* userdata: zlua header if ours, else NULL */
	} v;
} zlua_arg;

/* Gate status returned by Go to the trampoline. */
enum zlua_status {
	ZLUA_RET = 0,     /* program pushes the results */
	ZLUA_ERR = 1,     /* program pushes one error value; raise it */
	ZLUA_ERRPOS = 2,  /* program pushes a message; prefix position, raise */
	ZLUA_ARGERR = 3,  /* program: INT argn, STR fname, STR detail */
	ZLUA_YIELD = 4,   /* program pushes the yielded values */
	ZLUA_RET1 = 5,    /* one result in fr->ret, pushed without a program */
	ZLUA_RETOBJ = 6,  /* one ByObj userdata, pushed without a program:
	                   * fr->ret.v.i = slot | gen << 32, fr->ret.len =
	                   * type_id | mt ref << 32, fr->ret.isint = cached */
	ZLUA_RET0 = 7,    /* no results, no program */
	ZLUA_RET2 = 8,    /* two scalars in fr->ret and fr->ret2, no program */
	ZLUA_RETINT = 9   /* one integer in fr->ret.v.i (only that field is
	                   * written), pushed without a program (LuaJIT: as a
	                   * float) */
};

typedef struct zlua_frame {
	lua_State *L;
	int32_t nargs;
	uint32_t fnid; /* the Go function called */
	uintptr_t goid; /* the env's gate (zlua_env.goid) */
	/* Bit i set: args[i] is a Lua integer within ±2^53 read through its
	 * hint (Lua 5.4; always 0 on LuaJIT), so Go takes args[i].v.i without
	 * looking at its type. */
	uint32_t intok;
	zlua_arg args[ZLUA_FAST_ARGS];
	zlua_arg ret;  /* ZLUA_RET1/RET2: the (first) scalar result (nil/bool/number) */
	zlua_arg ret2; /* ZLUA_RET2: the second one */
	uintptr_t tid; /* zlua_tid() of the thread running the call */
	lua_State *caller; /* written by Go: the thread Go's code used before
	                    * this call, restored if the Go function panics */
} zlua_frame;

/* A LuaJIT leaf method call (jitleaf.c) whose results or error the
 * calling closure has not read yet: zlua_jit_call leaves them here, in
 * the env, and refuses other leaf calls (they take the C closure) until
 * the closure has read them. */
typedef struct zlua_leafcall {
	zlua_frame fr;   /* the frame handed to Go */
	double r[2];     /* RET1/RET2 results as numbers (a boolean as 0/1) */
	int open;        /* 0: nothing waits; 1: results in r; 2: st and prog */
	int nres;        /* results waiting in r */
	int st;          /* open 2: the status Go returned */
	int nomem;       /* open 2: prog could not be kept */
	uint32_t raise_slot, raise_seq; /* open 2: env's, as Go left them */
	unsigned char *prog; /* open 2: a copy of Go's program */
	size_t prog_len, prog_cap;
} zlua_leafcall;

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
	                       * u32 gen, size bytes: a ByVal userdata */
	ZLUA_OP_SVMT = 33,    /* u8 gc; stack: name -> a new ByVal metatable */
	ZLUA_OP_SVINDEX = 34, /* stack: mt, fields, methods, getter, setter,
	                       * type id, size (0: a companion type), name -> mt
	                       * (__index, __newindex set) */
	ZLUA_OP_LIGHTUD = 35, /* u64: a light userdata (opaque handle) */
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

/* Protected operations run by zlua_op under lua_pcall. */
enum zlua_opcode {
	ZLUA_DO_SETGLOBAL = 1, /* program: name, value */
	ZLUA_DO_GETGLOBAL = 2, /* program: name; leaves the value */
	ZLUA_DO_LOAD = 3,      /* args->chunk: loads it; leaves the function */
	ZLUA_DO_CALL = 4,      /* stack: f; program: args; leaves results */
	ZLUA_DO_DOSTRING = 8,  /* loads args->chunk and calls it, no results */
	ZLUA_DO_RESERVE = 9,   /* grows the stack by args->n slots (LuaJIT) */
	ZLUA_DO_CALLPROG = 10, /* program: f, args; calls f with args->n results */
	ZLUA_DO_REF = 5,       /* stack: v; leaves nothing, env->ref = ref */
	ZLUA_DO_OPENLIBS = 6,  /* opens the standard libraries */
	ZLUA_DO_INIT = 7,      /* creates zlua's registry entries */
	ZLUA_DO_PROGREF = 14,  /* runs the program, refs its last value */
	ZLUA_DO_OPENSAFE = 12, /* opens the safe subset of the libraries */
	ZLUA_DO_JITMODE = 13,  /* LuaJIT: args->n 0 flushes and stops the JIT, 1 restarts it */
	ZLUA_DO_SVINIT = 32,   /* program: get, set functions (see structs.c) */
	/* Lua values held by Go (tables.c). The object indexed is either the
	 * one stack argument or the program's first value (a REF). */
	ZLUA_DO_INDEX = 40,    /* program: [obj,] key; leaves obj[key] */
	ZLUA_DO_NEWINDEX = 41, /* program: [obj,] key, value; obj[key] = value */
	ZLUA_DO_LEN = 42,      /* program: [obj]; leaves #obj (honours __len) */
	ZLUA_DO_PAIRS = 43,    /* program: [obj]; leaves {k1, v1, k2, v2, ...} */
	ZLUA_DO_METHOD = 48,   /* program: [obj,] key; leaves obj[key] and whether
	                        * Lua can call it (zlua_callable) */
	/* Threads driven from Go (resume.c). */
	ZLUA_DO_NEWTHREAD = 44, /* program: f; leaves a new thread running f */
	ZLUA_DO_RESUME = 45,    /* program: co, args; leaves the results, or the
	                         * error value with args->ref the failed status */
	ZLUA_DO_GROWCO = 46,    /* stack: co; grows co's stack by args->n slots
	                         * (LuaJIT, resume.c) */
	ZLUA_DO_COFAILED = 47   /* stack: co, whose lua_resume failed with status
	                         * args->n; leaves its error value, args->ref the
	                         * final status (resume.c) */
};

/* Inputs and outputs of one protected operation; lives on zlua_op's C
 * stack and reaches the dispatcher as a lightuserdata, so nested operations
 * started by re-entered Go code never see it. */
typedef struct zlua_opargs {
	const unsigned char *prog; /* private copy of the push program */
	size_t prog_len;
	const char *chunk; /* DO_LOAD/DO_DOSTRING: bytes, valid for the call */
	size_t chunk_len;
	const char *chunk_name; /* NUL-terminated */
	const char *mode;       /* "t", "b" or "bt" */
	int n;                  /* DO_CALL: result count or LUA_MULTRET; DO_RESERVE: slots */
	int ref;                /* DO_REF: the new ref */
	int opcode;             /* set by zlua_op */
} zlua_opargs;

typedef struct zlua_inflight {
	struct zlua_inflight *next, *prev;
	size_t len;
	unsigned char data[];
} zlua_inflight;

typedef struct zlua_fielddir zlua_fielddir; /* fields.c */

/* Entries of the env's cache of recognised metatables (a power of 2). */
#define ZLUA_OWN_CACHE 256
/* Entries of the env's proven-address caches (powers of 2, as log2). */
#define ZLUA_PROVEN_FN_BITS 8
#define ZLUA_PROVEN_UD_BITS 8
#define ZLUA_PROVEN_FN (1u << ZLUA_PROVEN_FN_BITS)
#define ZLUA_PROVEN_UD (1u << ZLUA_PROVEN_UD_BITS)

/* Per-state C side of an Env; Go holds the pointer, never the reverse. */
/* The gate remembers the last ZLUA_RECENT Go errors raised into Lua
 * (callbackgate/errors.go); for each raised with the caller's position the
 * trampoline keeps that position prefix, up to ZLUA_WHERE_MAX bytes, so Go
 * can match an error value by its exact text. */
#define ZLUA_RECENT 8
#define ZLUA_WHERE_MAX 120

typedef struct zlua_raised {
	uint32_t seq;   /* the gate's sequence number of the raise */
	uint32_t len;   /* bytes in where */
	char where[ZLUA_WHERE_MAX];
} zlua_raised;

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

	/* ObjectRegistry (objects.c). objcnt[slot] counts the live userdata
	 * of a slot: normally 0 or 1; 2 while an old userdata whose weak cache
	 * entry was cleared waits for its __gc and a new one was pushed. When
	 * a __gc brings it to 0 the slot is queued in objfreed for Go. */
	int cache_ref;    /* registry ref of the weak-valued cache: slot -> ud */
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
	int mem_grace;         /* LuaJIT: growing allocations that may pass the limit (at most
	                        * limit/2 bytes each) while zlua unsticks the collector */

	/* time limits (hook.c) */
	int limit_depth;       /* limited calls in progress */
	int limit_jit;         /* LuaJIT: the outermost one switched the compiler off */
	int interrupt;         /* contexts done among them; atomic (any goroutine) */
	int interrupt_reason;  /* atomic: ZLUA_INT_* of the last context done */
	int limit_tid;         /* atomic: kernel id of the thread of the last limited call begun */
	int limits_open;       /* limited calls begun and not ended on their own thread (poke.c) */
	uintptr_t cstack_base; /* C stack address of the outermost zlua_op running */
	int hook_raised;       /* the error being raised left a hook (see zlua_handler_guard) */
	int hook_count;        /* instructions between checks now (adaptive, hook.c) */
	uint64_t hook_at;      /* monotonic ns of the last check (or the limit's start) */
	int hook_hurried;      /* zlua_alloc hurried the hook since its last event */
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

	/* warnings (warn.c, Lua 5.4) */
	int warn_on;     /* shown: warn("@on"), or a Go sink from the start */
	int warn_cont;   /* the message being built continues */
	int warn_go;     /* deliver to Go (zluaWarn) instead of stderr */
	char *warnbuf;   /* the message being built, NUL-terminated */
	size_t warn_len, warn_cap;
} zlua_env;

/* A script's hook as debug.sethook set it (debughook.c). Integers only:
 * a script can replace a record through the registry. */
typedef struct zlua_hookrec {
	int mask;  /* LUA_MASK* */
	int count; /* as given to sethook */
	int left;  /* instructions until the script's next count event */
} zlua_hookrec;

/* Why a limited call was interrupted (the Lua error text names it). */
enum zlua_interrupt_reason {
	ZLUA_INT_CANCELED = 1,
	ZLUA_INT_DEADLINE = 2
};

/* Instructions between two checks of the interrupt flag, at most: the
 * count adapts to what the instructions cost (hook.c, adapt_count). */
#define ZLUA_HOOK_COUNT 1000
/* The count a limited call starts with; it doubles at each check that
 * came sooner than a quarter of ZLUA_HOOK_SPAN_NS, up to ZLUA_HOOK_COUNT. */
#define ZLUA_HOOK_COUNT_START 100
/* A script's own hook count up to this many instructions is kept exact
 * inside limited calls (hook.c apply): the limit checks at its events. */
#define ZLUA_HOOK_EXACT 8
/* The time between two checks the count aims below (1 ms). */
#define ZLUA_HOOK_SPAN_NS 1000000u

/* C stack a limited call may use below its outermost protected operation
 * before the hook raises "C stack overflow" (LuaJIT does not bound C
 * recursion through its library, e.g. gsub calling gsub). Threads that run
 * Lua need at least twice this. */
#define ZLUA_CSTACK_LIMIT (1u << 20)
/* C stack kept free at the end of a thread's stack on LuaJIT: library
 * recursion stops there even where no outermost operation recorded a base
 * (cstack.c). It covers one level of recursion plus raising the error. */
#define ZLUA_CSTACK_RESERVE (256u << 10)

/* ---- C stack bound of library recursion (cstack.c) ---- */

/* [go-safe] LuaJIT: whether the running thread's C stack is too deep for
 * one more level of library recursion: more than ZLUA_CSTACK_LIMIT below
 * env->cstack_base, or within ZLUA_CSTACK_RESERVE of the thread's stack
 * end. Lua 5.4 (which bounds C calls itself): always 0. */
int zlua_cstack_over(zlua_env *env);
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
/* [go-safe] Grows env->armed to hold index n; 0 on failure. */
int zlua_armed_reserve(zlua_env *env, size_t n);
/* [go-safe] Ensures n free stack slots; 0 when the stack cannot grow.
 * [-0, +0] */
int zlua_reserve(zlua_env *env, lua_State *L, int n);
/* [go-safe] Whether registry refs a and b hold the same value (rawequal);
 * 0 also when the stack cannot grow for the comparison. [-0, +0] */
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
/* Heap bytes in use and their peak. */
typedef struct zlua_memstats {
	size_t used, peak;
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
 * bare state that owns it, alloc.c); no-op without one. */
void zlua_close_arena(zlua_env *env);
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
 * makes the running Lua thread's hook fire at its next instruction.
 * Returns whether a signal was sent. */
int zlua_poke(zlua_env *env);
/* [go-safe] How many envs zlua_env_close kept (see zlua_poke_end). */
int zlua_kept_envs(void);
/* [go-safe] ZLUA_POKE_SIGNO(), for Go. */
int zlua_poke_signo(void);
/* [go-safe] Whether zlua's handler is installed and still the signal's. */
int zlua_poke_ready(void);
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
/* [lua] luaL_where(L, level), except that levels running one of zlua's
 * own Lua closures (chunks named "=zlua.*": LuaJIT's leaf and field
 * closures, its pairs/ipairs, gmatch and xpcall helpers) are skipped: they
 * serve a call or an index of the script's, as C functions do on Lua 5.4,
 * so an error raised inside them (by a hook) names the script's line.
 * [-0, +1] */
void zlua_where_script(lua_State *L, int level);

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
#ifdef ZLUA_LUAJIT
/* [go-safe] LuaJIT: a full collection after an operation failed while the
 * memory limit had refused an allocation (Lua 5.4 collects before it
 * reports one); unsticks a collector the limit stopped mid-cycle (see
 * protect.c). [-0, +0] */
void zlua_collect_after_refusal(zlua_env *env, lua_State *L);
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
	 * booleans (v.b), integers (isint, v.i), floats (v.n) and opaque
	 * handles (light userdata, v.i) only. */
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
 * lua_pcall can raise (registry reads and scalar pushes, nin <=
 * ZLUA_CALL_IN), so no push program and no dispatcher is needed.
 * Stack: [-0, +results (unless popped) or +1 error]. */
int zlua_callscalars(zlua_env *env, lua_State *L, int ref, int selfref, int nin, int nres,
		     zlua_callres *r);
/* [go-safe] Pushes _G[name] under protection (the committed program holds
 * name) and reads it into r->res[0] like a call's one result: popped when
 * it is a scalar. Stack: [-0, +1 (unless popped) or +1 error]. */
int zlua_getglobal(zlua_env *env, lua_State *L, zlua_callres *r);
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

/* ---- threads driven from Go (resume.c) ---- */

/* What coroutine.status would say of a thread. */
enum zlua_costatus {
	ZLUA_CO_SUSPENDED = 0, /* yielded, or not started: resumable */
	ZLUA_CO_RUNNING = 1,   /* the thread running now */
	ZLUA_CO_NORMAL = 2,    /* active, but it resumed another thread */
	ZLUA_CO_DEAD = 3,      /* finished, or failed */
	/* Not a status of zlua_costatus: ZLUA_DO_RESUME's a->ref when LuaJIT
	 * could not grow a yielded thread's stack for the arguments and the
	 * thread was killed (resume.c). zlua_costatus may call it normal. */
	ZLUA_CO_KILLED = -1
};
/* [go-safe] The status of co as seen from L, the thread running now
 * (coroutine.status's rules; the main thread is never suspended).
 * Allocates nothing. [-0, +0] */
int zlua_costatus(lua_State *L, lua_State *co);
/* [lua] ZLUA_DO_NEWTHREAD: a new thread whose body is the program's
 * function; it inherits L's hook as coroutine.create's threads do.
 * [-0, +1] */
int zlua_thread_new(lua_State *L, zlua_env *env, zlua_opargs *a);
/* [lua] ZLUA_DO_RESUME: resumes the program's thread with the program's
 * other values (a dead, running or normal thread is refused with the
 * standard message; a limited call hooks it first; on LuaJIT, a yielded
 * thread whose stack cannot grow for the arguments is killed, see
 * ZLUA_CO_KILLED). Leaves the values the
 * thread yielded or returned, a->ref = LUA_YIELD or LUA_OK; or, when it
 * failed, its error value, its message and traceback recorded as the
 * message handler does and a->ref = the error status. A failed thread is
 * closed (Lua 5.4: its to-be-closed variables run). [-0, +results] */
int zlua_thread_resume(lua_State *L, zlua_env *env, zlua_opargs *a);
/* [lua] ZLUA_DO_COFAILED: the failure half of ZLUA_DO_RESUME for
 * zlua_resume_scalars, which resumed the thread outside protection. [-0, +1] */
int zlua_thread_failed(lua_State *L, zlua_env *env, zlua_opargs *a);
/* zlua_resume_scalars' answer when it did nothing: the thread is not
 * suspended, a limited call runs, or (Lua 5.4) its stack cannot grow; the
 * caller takes ZLUA_DO_RESUME, which reports each case. */
#define ZLUA_RESUME_SLOW (-100)
/* zlua_resume_scalars' answer when the thread yielded or returned more
 * values than L has room for: they were dropped, nothing is on L. */
#define ZLUA_RESUME_NOROOM (-101)
/* [go-safe] Resumes the suspended thread at registry ref with the nin
 * scalar arguments of r->in (zlua_callscalars' encoding) in one crossing:
 * on Lua 5.4 lua_resume runs outside protection, which is safe because
 * everything that could raise was checked first (status, stack room, the
 * "C stack overflow" message anchored at boot) and lua_resume catches the
 * thread's own errors; on LuaJIT the argument room is made under
 * protection first (room_on). The thread's values are read into r like a
 * call's results (r->status = LUA_YIELD or LUA_OK): scalars popped from the
 * thread, anything else moved to L above r->base. A failed thread's error
 * goes through ZLUA_DO_COFAILED: its value is on L, r->status its status.
 * Returns LUA_OK, an error status of a protected step (its error value on
 * L; r->status = ZLUA_CO_KILLED when LuaJIT killed the thread),
 * ZLUA_RESUME_SLOW or ZLUA_RESUME_NOROOM. [-0, +results (unless popped) or +1 error] */
int zlua_resume_scalars(zlua_env *env, lua_State *L, int ref, int nin, zlua_callres *r);
/* [lua] Boot step: anchors the strings lua_resume's refusals create, so
 * that creating them never allocates (Lua 5.4). [-0, +0] */
void zlua_resume_boot(lua_State *L);

/* ---- push programs (prog.c) ---- */

/* [lua] Runs a push program. Returns the number of values pushed. */
int zlua_prog_run(lua_State *L, zlua_env *env, const unsigned char *p, size_t n);
/* [lua] Runs env->prog after copying it (inline, or onto the inflight
 * list), so re-entered Go code may rebuild env->prog meanwhile. */
int zlua_prog_run_env(lua_State *L, zlua_env *env);

/* ---- gate (gate.c) ---- */

/* [go-safe] Reads the value at idx into a without allocating (strings in
 * place, numbers unconverted; a userdata is checked with zlua_toown when
 * env is not NULL, which needs 2 free stack slots). [-0, +0] */
void zlua_read_arg(zlua_env *env, lua_State *L, int idx, zlua_arg *a);
/* [lua] The lua_CFunction behind every Go function. */
int zlua_trampoline(lua_State *L);
/* [lua] Ends a Go call the way zlua_trampoline does once Go returned st
 * for frame fr: pushes the results or raises the error of env's program.
 * Used by zlua_jit_finish for leaf calls whose results need Lua.
 * [-0, +n] */
int zlua_gate_finish(lua_State *L, zlua_env *env, zlua_frame *fr, int st);
/* [lua] ZLUA_OP_LEAF at p (after the op byte): on LuaJIT with the FFI,
 * replaces the Go function on top by the leaf closure over it. Returns
 * the operand bytes read. [-1, +1] */
size_t zlua_jit_leaf(lua_State *L, zlua_env *env, const unsigned char *p);
/* [go-safe, no Lua API: called from Lua through the FFI] Calls leaf
 * method fnid of binding spec >> 4 on the ByObj payload p with the
 * arguments that follow (a boolean as 0/1 where bit i of spec & 15 is
 * set), when p is a live object of env of that binding proved by its
 * address and no other leaf call's results wait. 0: refused, nothing ran
 * (the closure calls the C closure); 1: done, its results wait for
 * zlua_jit_res; 2: ran, zlua_jit_finish pushes its results or raises its
 * error. One function per argument count, so an FFI call passes only the
 * arguments it has. */
int zlua_jit_call0(void *env, const void *p, uint32_t spec, uint32_t fnid);
int zlua_jit_call1(void *env, const void *p, uint32_t spec, uint32_t fnid, double a);
int zlua_jit_call2(void *env, const void *p, uint32_t spec, uint32_t fnid, double a, double b);
int zlua_jit_call3(void *env, const void *p, uint32_t spec, uint32_t fnid, double a, double b,
		   double c);
int zlua_jit_call4(void *env, const void *p, uint32_t spec, uint32_t fnid, double a, double b,
		   double c, double d);
/* [go-safe, no Lua API: called from Lua through the FFI] Result i of the
 * leaf call zlua_jit_call* answered 1; reading the last one ends it. NaN
 * when no such result waits. */
double zlua_jit_res(void *env, int i);
/* [lua] The leaf call zlua_jit_call answered 2: pushes its results or
 * raises its error as the trampoline would; nothing when none waits.
 * [-0, +n] */
int zlua_jit_finish(lua_State *L);
/* [go-safe] Forgets leaf results left unread by an error thrown between
 * zlua_jit_call and the closure's reads; called when the outermost
 * protected operation ends (no Lua code runs then). */
void zlua_jit_leafreset(zlua_env *env);
/* [go-safe] Tests: a leaf call whose receiver is the empty payload of a
 * userdata at the very end of a readable page (the next one is not
 * mapped), as a newproxy given zlua's __metatable string is: 0 when
 * refused without reading the payload, -1 when the length's place is
 * unknown (no leaf closures) or the pages cannot be mapped; a read of
 * the payload kills the process. LuaJIT only. */
int zlua_jit_leaf_emptyprobe(zlua_env *env);
/* [go-safe] Tests: as zlua_jit_leaf_emptyprobe, for the FFI field
 * functions (zlua_jit_get, zlua_jit_has, zlua_jit_set, zlua_jit_eq and
 * the ByVal get) called with an empty payload at a page's end: 0 when
 * every one refused it without reading the payload, -1 when the
 * length's place is unknown; a read kills the process. LuaJIT only. */
int zlua_jit_fields_emptyprobe(zlua_env *env);
/* [go-safe] Tests (LuaJIT): the payload of an empty full userdata as the
 * probes need it: at the very end of a readable page whose next page is
 * not mapped, its length word (env->ud_lenoff before it) 0; NULL when
 * ud_lenoff is unknown or the pages cannot be mapped. Free it with
 * zlua_jit_emptyud_free. */
unsigned char *zlua_jit_emptyud(const zlua_env *env);
/* [go-safe] Unmaps what zlua_jit_emptyud mapped. */
void zlua_jit_emptyud_free(unsigned char *p);
/* [lua] Measures env->ud_lenoff once (jitleaf.c): without it, no FFI
 * field closures and no leaf closures. May raise (allocates). [-0, +0] */
void zlua_jit_udlenoff(lua_State *L, zlua_env *env);
/* The length of the full userdata whose payload is p, read from LuaJIT's
 * header before it; only when env->ud_lenoff is known (the FFI field and
 * leaf closures exist only then). No Lua API: callable inside an FFI
 * call. */
static inline uint32_t zlua_jit_udlen(const zlua_env *env, const void *p)
{
	uint32_t n;
	memcpy(&n, (const unsigned char *)p - env->ud_lenoff, sizeof n);
	return n;
}
/* [lua] __gc of the function sentinel: queues its id for Go. [-0, +0] */
int zlua_funcud_gc(lua_State *L);

/* ---- ObjectRegistry userdata (objects.c) ---- */

/* zlua_obj_push's cached argument (also ZLUA_OP_OBJ's last operand and
 * ZLUA_RETOBJ's fr->ret.isint): no identity; a slot found again (look the
 * weak cache up first); a slot Go has just added (no userdata of this
 * generation can be in the cache: make one and enter it). */
enum { ZLUA_OBJ_UNCACHED = 0, ZLUA_OBJ_CACHED = 1, ZLUA_OBJ_NEWKEY = 2 };
/* [lua] Pushes the ByObj userdata of slot: the cached one when the weak
 * cache still maps slot to a userdata of this generation, else a new one
 * (counted in objcnt, entered in the cache unless ZLUA_OBJ_UNCACHED).
 * [-0, +1] */
void zlua_obj_push(lua_State *L, zlua_env *env, uint32_t slot, uint32_t gen,
		   uint32_t type_id, int mtref, int cached);
/* [lua] zlua_obj_push for the one result of a C function (the
 * trampoline's ZLUA_RETOBJ): the userdata ends on top, but the identity
 * cache table may stay below it, which spares the lua_replace that takes
 * it out (Lua returns the top value). [-0, +1|+2] */
void zlua_obj_push_top(lua_State *L, zlua_env *env, uint32_t slot, uint32_t gen,
		       uint32_t type_id, int mtref, int cached);
/* [go-safe] Pushes the userdata of slot from the weak cache when it is
 * there with generation gen and not released, and returns 1; else pushes
 * nothing and returns 0. Allocates nothing. The cache and its entries are
 * checked (type; length, magic, kind): a script can reach them through
 * debug.getregistry. [-0, +1|0] */
int zlua_obj_cached(lua_State *L, zlua_env *env, uint32_t slot, uint32_t gen);
/* [lua] __gc of ByObj userdata: marks it released and queues the slot
 * when its last userdata is gone (its weak cache entry was cleared by the
 * collector before finalizers ran). Pure C. [-0, +0] */
int zlua_obj_gc(lua_State *L);
/* [lua] __index of ByObj userdata: upvalue 1 the methods table (looked up
 * raw, in C), upvalue 2 the Go field getter called on a miss. */
int zlua_obj_index(lua_State *L);
/* [lua] __eq shared by every ByObj metatable (upvalue 1: the Go __eq).
 * Decided in C when both operands are ByObj userdata of this env (the env
 * is the allocator's ud): same slot is equal; released, or keyed with the
 * same binding and different slots, is not; anything not ours is not.
 * Only the same object seen through two bindings (or unkeyed) asks Go. */
int zlua_obj_eq(lua_State *L);
/* [lua] ZLUA_OP_OBJFIELDS (objfields.c). [-7, +0] */
void zlua_obj_fields(lua_State *L, zlua_env *env);
/* [lua] __index of ByObj userdata with fields served in C: upvalue 1 the
 * methods table, which on Lua 5.4 also maps each C field's name to its
 * binding id << 32 | its directory index (one lookup for both; on LuaJIT,
 * where a Lua closure looked methods up and fields are found by name, the
 * binding id), upvalue 2 the Go getter. Methods, then numeric and boolean
 * fields of the pinned struct when the object is of that binding, else
 * Go. */
int zlua_obj_findex(lua_State *L);
/* [lua] __newindex of the same: upvalue 1 the Go setter. */
int zlua_obj_fnewindex(lua_State *L);
/* [lua] ZLUA_OP_PLAININDEX. [-2, +0] */
void zlua_obj_plainindex(lua_State *L, zlua_env *env);
/* [lua] __index of the methods table of a type without fields: raises
 * "T has no field or method 'k'" (upvalue 1: T). */
int zlua_obj_nokey(lua_State *L);
/* [lua] Replaces the methods table and the getter on top with the __index
 * function over them: a C closure of zlua_obj_index on Lua 5.4; on LuaJIT
 * a Lua closure, which the JIT compiles (a C __index would stop every
 * trace through a method call). [-2, +1] */
void zlua_obj_indexer(lua_State *L, zlua_env *env);
/* Chunk name of LuaJIT's __index closures (error positions skip them). */
#define ZLUA_INDEX_CHUNK "=zlua.index"
/* The __metatable field of every metatable zlua makes (what getmetatable
 * returns for zlua's userdata). */
#define ZLUA_PROTECTED_MT "zlua: protected metatable"
/* [lua] Replaces the name on top with a new ByObj metatable: marker,
 * __name, __metatable, __gc. [-1, +1] */
void zlua_obj_newmt(lua_State *L, zlua_env *env);
/* [lua] LuaJIT: replaces the globals pairs and ipairs with functions that
 * honour __pairs, and index a userdata with __index from 1, as Lua 5.4's
 * do; every other value goes to the original function. A no-op on Lua 5.4
 * and without a base library (iterate.c). [-0, +0] */
void zlua_open_iterators(lua_State *L);
/* [lua] Creates the weak-valued cache table and (LuaJIT) the iterators
 * (DO_INIT). [-0, +0] */
void zlua_obj_init(lua_State *L, zlua_env *env);
/* Lua 5.4 GC pause set by zlua_obj_init (see there). */
#define ZLUA_GC_PAUSE 150

/* [lua] Measures the block layout of a ByObj userdata (ud_block, ud_off)
 * with a probe userdata, and confirms it by a full collection freeing
 * that block with that size; leaves both 0, and the address fast path
 * off, if it does not add up. Called once by zlua_obj_init. [-0, +0] */
void zlua_ownaddr_init(lua_State *L, zlua_env *env);
#ifdef ZLUA_LUAJIT
/* [lua] Keeps the ffi module (loading it as require would) in
 * env->ffi_ref, for the FFI field closures; run when the libraries are
 * opened, before the sandbox drops ffi from package.loaded. Does nothing
 * without a package library or an ffi preload. [-0, +0] */
void zlua_jit_keepffi(lua_State *L, zlua_env *env);
/* [lua] Builds LuaJIT's closure factories (jitindex.c): __index of
 * objects (env->indexer_ref), the __eq wrapper (jiteq_ref) and the ByVal
 * field closures (jitval_ref, LUA_NOREF without the FFI); keeps the base
 * library's type and getmetatable for the leaf closures, which are made
 * later, when scripts may have replaced the globals (leafbase_ref).
 * [-0, +0] */
void zlua_jit_init(lua_State *L, zlua_env *env);
/* [lua] Pushes the field table the closures read for directory d (name ->
 * index, -1 - index for a boolean). [-0, +1] */
void zlua_jit_fieldtable(lua_State *L, const zlua_fielddir *d);
/* [lua] Replaces the C __index and __newindex of the ByVal metatable at
 * mt by the FFI closures of type tid's directory when the env has them.
 * [-0, +0] */
void zlua_jit_valfields(lua_State *L, zlua_env *env, int mt, uint32_t tid);
/* [go-safe, no Lua API: called from Lua through the FFI] Field i of the
 * directory of type tid read from the userdata payload p, as the number
 * the C closure would push (a boolean as 0 or 1), if p is a live, pinned,
 * address-proved ByObj object of env of that binding (byval 0) or a live
 * blittable ByVal copy of that struct type (byval 1); NaN when the C
 * closure must decide (or the field holds NaN: zlua_jit_has tells). */
double zlua_jit_get(void *env, const void *p, uint32_t tid, uint32_t i, int byval);
/* [go-safe, no Lua API: called from Lua through the FFI] Whether
 * zlua_jit_get serves field i of p. */
int zlua_jit_has(void *env, const void *p, uint32_t tid, uint32_t i, int byval);
/* [go-safe, no Lua API: called from Lua through the FFI] __eq of two
 * ByObj userdata payloads when both are live objects of env proved by
 * their addresses and zlua_obj_eq would decide without Go: 1 equal, 0 not;
 * -1 when the C closure must decide. */
int zlua_jit_eq(void *env, const void *a, const void *b);
/* [go-safe, no Lua API: called from Lua through the FFI] Stores n (a
 * boolean as 0/1 when isbool) into field i under zlua_jit_get's checks
 * when the C setter would store it unconverted; returns 0, storing
 * nothing, otherwise. */
int zlua_jit_set(void *env, void *p, uint32_t tid, uint32_t i, double n, int isbool, int byval);
#endif
/* [lua] Replaces debug.setmetatable, if the debug library is open, by
 * zlua's equivalent that keeps slot_ud exact (ownaddr.c). [-0, +0] */
void zlua_open_dbgmeta(lua_State *L);
/* [go-safe] Takes p, the payload of a ByObj userdata (or of a block of the
 * same size being freed), off the address fast path if slot_ud holds it,
 * and out of the proven-address caches.
 * Called by zlua_obj_gc and by zlua_alloc before it frees such a block.
 * [-0, +0] */
void zlua_obj_forget(zlua_env *env, const void *p);
/* [go-safe] zlua_alloc's hook for a block of a ByObj userdata's size about
 * to be freed, p its payload: if slot_ud proves it zlua's live userdata,
 * its __gc never ran, so it is forgotten and the slot count it owned given
 * back (the slot queued for Go at zero). Anything else is left alone.
 * [-0, +0] */
void zlua_obj_freed(zlua_env *env, const void *p);
/* [go-safe] Queues slot for Go's release (C memory only, no Lua call);
 * never raises: a slot the queue cannot hold is counted as lost.
 * [-0, +0] */
void zlua_obj_queue_slot(zlua_env *env, uint32_t slot);
/* [go-safe] Grows env->objcnt (and slot_ud) to hold index n; 0 on
 * failure. */
int zlua_objcnt_reserve(zlua_env *env, size_t n);

/* ---- StructRegistry userdata (structs.c) ---- */

/* Field codes in a field table (ByVal structs, and the C-served fields of
 * ByObj structs): kind | offset << 8. INT, UINT and UINTPTR are I64, U64
 * and U64 under the names Go gives them in range errors. */
enum zlua_svkind {
	ZLUA_SV_I8 = 1, ZLUA_SV_I16, ZLUA_SV_I32, ZLUA_SV_I64,
	ZLUA_SV_U8, ZLUA_SV_U16, ZLUA_SV_U32, ZLUA_SV_U64,
	ZLUA_SV_F32, ZLUA_SV_F64, ZLUA_SV_BOOL,
	ZLUA_SV_INT, ZLUA_SV_UINT, ZLUA_SV_UINTPTR
};

/* Field directories (fields.c): per type, in C memory owned by the env,
 * the fields C serves. ZLUA_DIR_OBJ is indexed by ByObj binding id,
 * ZLUA_DIR_VAL by ByVal struct type id. */
enum { ZLUA_DIR_OBJ = 0, ZLUA_DIR_VAL = 1 };
typedef struct zlua_dirent {
	const void *hint;  /* the interned Lua string of the name (compared,
	                    * never dereferenced) */
	size_t len;
	const char *name;  /* C copy */
	lua_Integer code;  /* kind | offset << 8, offset + size within the type */
} zlua_dirent;
/* [lua] Makes the directory of type type_id (size bytes, named tname)
 * from the field table at t (name -> code; codes outside the type are
 * dropped) and stores it in env->dirs[which]; raises on allocation
 * failure. [-0, +0] */
void zlua_dir_make(lua_State *L, zlua_env *env, int which, int t, uint32_t type_id,
		   size_t size, const char *tname);
/* [go-safe] Frees every directory (state closed). */
void zlua_dirs_free(zlua_env *env);
/* The directory of type_id, or NULL. */
static inline const zlua_fielddir *zlua_dir(const zlua_env *env, int which, uint32_t type_id)
{
	return type_id < env->dirs_cap[which] ? env->dirs[which][type_id] : NULL;
}
/* The struct size of a directory, its number of entries, entry i. */
size_t zlua_dir_size(const zlua_fielddir *d);
size_t zlua_dir_count(const zlua_fielddir *d);
const zlua_dirent *zlua_dir_entry(const zlua_fielddir *d, size_t i);
/* [lua] The entry of the string key at 2, or NULL. [-0, +0] */
const zlua_dirent *zlua_dir_find(lua_State *L, const zlua_fielddir *d);
/* [lua] Pushes the field of kind at q. [-0, +1] */
void zlua_sv_read(lua_State *L, int kind, const unsigned char *q);
/* [lua] Stores the value at 3 as kind at q, converted and range-checked
 * like the Go setter; errors name the key at 2 and d's type. [-0, +0] */
void zlua_sv_write(lua_State *L, const zlua_fielddir *d, int kind, unsigned char *q);

/* [lua] Runs one ZLUA_OP_BYVAL at p (after the op byte); returns the
 * operand bytes consumed. [-0, +1] */
size_t zlua_sv_push(lua_State *L, zlua_env *env, const unsigned char *p);
/* [lua] Replaces the name on top with a new ByVal metatable (marker,
 * __name, __metatable, and __gc when gc). [-1, +1] */
void zlua_sv_newmt(lua_State *L, zlua_env *env, int gc);
/* [lua] ZLUA_OP_SVINDEX: makes the type's field directory, then
 * __index (upvalues: methods, getter, companion cache) and __newindex
 * (setter, companion cache). [-7, +0] */
void zlua_sv_indexer(lua_State *L, zlua_env *env);
/* [lua] __index of ByVal userdata: numeric and boolean fields read in C
 * through the type's directory; then methods; then (companions) the
 * cache; then the Go getter, whose scalar results a companion caches. */
int zlua_sv_index(lua_State *L);
/* [lua] __newindex of ByVal userdata: numeric and boolean fields written
 * in C, with Lua-style errors; other keys go to the Go setter. */
int zlua_sv_newindex(lua_State *L);
/* [lua] __gc of companion ByVal userdata: queues the slot. Pure C. */
int zlua_sv_gc(lua_State *L);
/* [lua] ZLUA_DO_SVINIT: zlua.get_opaquevalue/set_opaquevalue from the
 * program. Light userdata keep Lua's own behaviour (no metatable): opaque
 * handles are recognised by Go from their value. On LuaJIT it also interns
 * the handles' light userdata segment, so pushing a handle never
 * allocates. [-0, +0] */
int zlua_sv_init(lua_State *L, zlua_env *env, zlua_opargs *a);
/* [go-safe] Grows env->svstate to hold index n; 0 on failure. */
int zlua_svstate_reserve(zlua_env *env, size_t n);

/* ---- Lua values held by Go (tables.c) ---- */

/* [lua] Pushes the length of the value at idx as the # operator of Lua 5.4
 * does, on both backends: __len when the metatable has one (LuaJIT's # skips
 * it for tables), whose result must be an integer, else the raw length.
 * [-0, +1] */
void zlua_pushlen(lua_State *L, int idx);
/* [lua] Replaces the table on top with a new sequence holding its pairs in
 * raw next order: {k1, v1, k2, v2, ...}. Go then reads the copy with
 * non-raising calls while scripts (finalizers run by the reads' own
 * allocations) cannot change it. [-1, +1] */
void zlua_pairs(lua_State *L);
/* [lua] Whether a call of the value at idx gets past Lua's own check: a
 * function, or any value whose metatable has a __call field (raw, as the
 * VM looks it up; what __call holds is checked by the call itself, as in
 * stock Lua). Table.Method binds such values. Raises only a memory error
 * (the field name is pushed). [-0, +0] */
int zlua_callable(lua_State *L, int idx);

/* ---- reading values from Go (read.c) ---- */

/* [go-safe] lua_tolstring for strings only (numbers are not converted, so
 * nothing allocates). NULL for other types. [-0, +0] */
const char *zlua_tostr(lua_State *L, int idx, size_t *len);
/* [go-safe] Number conversion of a numeric string or number; ok = 0 if not
 * convertible. [-0, +0] */
lua_Number zlua_tonum(lua_State *L, int idx, int *ok);
/* [go-safe] Lua 5.4: lua_tointegerx, as luaL_checkinteger converts (an
 * integer string exactly, also beyond 2^53; a float or float string only
 * with an exact integer value). LuaJIT: ok = 0 always. [-0, +0] */
lua_Integer zlua_toint_conv(lua_State *L, int idx, int *ok);
/* [go-safe] Type name the way luaL_typeerror spells it (honours a string
 * __name in the metatable, looked up without metamethods). [-0, +0] */
const char *zlua_typename(zlua_env *env, lua_State *L, int idx);
/* [go-safe] The zlua header of the userdata at idx if it was made by env
 * (magic, then zlua_ownmt), else NULL. [-0, +0] */
zlua_udheader *zlua_toown(zlua_env *env, lua_State *L, int idx);
/* [go-safe] Whether u, the payload of a full userdata of exactly
 * sizeof(ZLuaObjectUserData) bytes, is the keyed ByObj userdata env
 * created for u->slot and has not freed: its address is the one slot_ud
 * keeps. No metatable lookup; a miss proves nothing (callers fall back to
 * zlua_ownmt). See ARCHITECTURE.md, "Ownership by address". */
static inline int zlua_ownaddr(const struct zlua_env *env, const ZLuaObjectUserData *u)
{
	return u->slot < env->objcnt_cap && env->slot_ud[u->slot] == (const void *)u;
}
/* Marks a C function every crossing of a Lua→Go call, a method lookup or
 * an object comparison runs: GCC puts these together (.text.hot), so
 * the per-crossing code is contiguous instead of falling, wherever the
 * linker puts each file, on the instruction cache sets other hot code
 * uses (docs/PERFORMANCE-HISTORY.md, h19: a layout that split them tripled the
 * frame benchmark's L1i misses). */
#define ZLUA_HOT __attribute__((hot))

/* The entry of a proven-address cache of 2^bits entries for payload
 * address p: a multiplicative (Fibonacci) hash of the address without its
 * four alignment bits, which spreads blocks allocated at any regular
 * spacing (a type's method sentinels, entities made in a row). Hashing
 * the address with its zero low bits lost four bits of the multiplier:
 * the four method sentinels of the frame benchmark's Entity, 432 bytes
 * apart, shared two entries and three of its four calls missed; the low
 * address bits alone collide for spacings that divide the cache's span
 * (docs/PERFORMANCE-HISTORY.md, h19). [go-safe] */
static inline const void **zlua_proven_at(const void **cache, unsigned bits, const void *p)
{
	return &cache[(size_t)((((uint64_t)(uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ull) >> (64 - bits))];
}
/* [go-safe] Whether p, the payload of a full userdata (or the value of a
 * light one: see ARCHITECTURE.md, "Proven-address caches"), is in env's
 * userdata cache: a live 32-byte userdata zlua made, with this env's
 * metatable. Its kind and flags are still to be checked. */
static inline int zlua_isproven(zlua_env *env, const void *p)
{
	return *zlua_proven_at(env->proven_ud, ZLUA_PROVEN_UD_BITS, p) == p;
}
/* [go-safe] Enters p, the payload of a 32-byte userdata just proved to be
 * env's, in the userdata cache (when the free hook can keep it exact). */
static inline void zlua_prove(zlua_env *env, const void *p)
{
	if (env->ud_block != 0)
		*zlua_proven_at(env->proven_ud, ZLUA_PROVEN_UD_BITS, p) = p;
}
/* [go-safe] Takes p, the payload of a 32-byte userdata being released,
 * freed or given another metatable, out of both proven-address caches.
 * [-0, +0] */
static inline void zlua_unprove(zlua_env *env, const void *p)
{
	const void **f = zlua_proven_at(env->proven_fn, ZLUA_PROVEN_FN_BITS, p);
	const void **u = zlua_proven_at(env->proven_ud, ZLUA_PROVEN_UD_BITS, p);
	if (*f == p)
		*f = NULL;
	if (*u == p)
		*u = NULL;
}
/* [go-safe] zlua_toown for a value known to be a full userdata. */
zlua_udheader *zlua_toown_ud(zlua_env *env, lua_State *L, int idx);
/* [go-safe] Whether the metatable of the userdata at idx, whose zlua
 * header is h, is one of env's: compared with the entry cached for h's
 * kind and type id, else looked up (marker key mapped to env) and then
 * cached. Needs 2 free stack slots. [-0, +0] */
int zlua_ownmt(zlua_env *env, lua_State *L, int idx, const zlua_udheader *h);
/* [go-safe] zlua_ownmt for a metatable the caller already pushed (at mt):
 * the same decision without the push and pop, for callers that check
 * several userdata. Needs 1 free stack slot. [-0, +0] */
int zlua_ownmt_at(zlua_env *env, lua_State *L, int mt, const zlua_udheader *h);

/* Address whose lightuserdata is the key of zlua's marker in every zlua
 * metatable; the value is the owning env as a lightuserdata. */
extern const char zlua_marker;

/* Go side of the gate, exported from gate_export.go. */
extern int zluaGateCall(zlua_frame *fr);
/* Go side of a LuaJIT leaf method call (zlua_jit_call), exported from
 * leaf.go: a zlua_status, or ZLUA_LEAF_REFUSED when Go did not run the
 * method (the closure then calls the C closure). */
extern int zluaLeafCall(uintptr_t goid, uint32_t fnid, zlua_frame *fr);
#define ZLUA_LEAF_REFUSED (-1)
/* Go side of warnings (Options.Warn), exported from gate_export.go. */
extern void zluaWarn(uintptr_t goid, char *msg, size_t len);

#endif
