/*
 * zlua.h: the whole C interface of zlua, for Lua 5.4 and LuaJIT 2.1
 * (types and constants here, the Env's own struct in zlua_env.h;
 * declarations in zlua_runtime.h, with zlua_calls.h, and zlua_values.h,
 * included at the end).
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

#define ZLUA_F_NOADDR 8u /* BYVAL: a copy of a Go value with no address (an
			 * element of a map pushed by reference): its
			 * fields refuse writes, which no Go value would
			 * see (zlua_sv_newindex leaves them to Go) */
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

/* Function ids below ZLUA_FAST_FNS get a C function of their own
 * (fasttramp.c): the id is a constant of that function, so a call finds
 * its Go function without reading the closure's upvalue (the sentinel,
 * which then only carries the closure's lifetime). Such an id is never
 * given to another function once its sentinel was collected (Go retires
 * it), so a closure that outlived its sentinel (a finalizer's) is refused
 * as released instead of calling a newer function. */
#if defined(__linux__) && defined(__x86_64__)
#define ZLUA_FAST_FNS 4096
#else
#define ZLUA_FAST_FNS 0 /* fasttramp.c assembles them for linux/amd64 only */
#endif
/* Bytes between two fast ids' C functions (fasttramp.c). */
#define ZLUA_FT_STRIDE 16
/* A macro's value as a string literal (fasttramp.c's assembly). */
#define ZLUA_STR_(x) #x
#define ZLUA_STR(x) ZLUA_STR_(x)

/* What the trampoline of a fast id reads instead of the sentinel: the
 * sentinel's hints and flags (ZLUA_F_SELFUD, ZLUA_F_RELEASED), written
 * when its closure is made and when the sentinel's __gc runs. */
typedef struct zlua_fastfn {
	uint32_t hints;
	uint16_t flags;
	uint16_t reserved;
} zlua_fastfn;

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
	/* The same without metamethods; obj must be a table (tables.c). */
	ZLUA_DO_RAWINDEX = 49,    /* program: [obj,] key; leaves rawget(obj, key) */
	ZLUA_DO_RAWNEWINDEX = 50, /* program: [obj,] key, value; rawset */
	ZLUA_DO_RAWLEN = 51,      /* program: [obj]; leaves rawlen(obj) */
	ZLUA_DO_GETMETA = 52,     /* program: [obj]; leaves its metatable or nil */
	ZLUA_DO_SETMETA = 53,     /* program: [obj,] mt (a table or nil) */
	ZLUA_DO_PRELOAD = 54,     /* leaves the table require's preload searcher
				   * reads, or nil (tables.c zlua_preload_table) */
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

/* LuaJIT: a Lua frame whose next instruction follows a return from one
 * of zlua's wrappers, which LuaJIT's line hook reports again (debughook.c):
 * its thread, stack slot, function and the line of its call. */
typedef struct zlua_wrapret {
	lua_State *L;
	const void *fn;
	int slot;
	int line;
} zlua_wrapret;
/* Frames waiting like that at once (a wrapper's callee calling wrappers
 * in turn), at most: more drop the oldest. */
#define ZLUA_WRAPRET_MAX 8
/* The library functions env->hook_fns keeps, by address: pcall and
 * xpcall run their function in their caller's C frame; coroutine.wrap,
 * load and loadstring are called by wrappers on the script's behalf. */
enum {
	ZLUA_HOOKFN_PCALL,
	ZLUA_HOOKFN_XPCALL,
	ZLUA_HOOKFN_WRAP,
	ZLUA_HOOKFN_LOAD,
	ZLUA_HOOKFN_LOADSTRING,
	ZLUA_HOOKFN_N
};

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

/* The longest first interruption message a limited call keeps (see
 * int_first): a position (luaL_where: a source of at most LUA_IDSIZE
 * bytes, a line) and "interrupted: context deadline exceeded". */
#define ZLUA_INT_FIRST_MAX 160
/* The longest traceback of that first interruption kept (its top levels,
 * as zlua's message handler shows an interrupted call's; cut short
 * beyond). */
#define ZLUA_INT_TB_MAX 2048
/* The levels an interrupted call's traceback shows (protect.c). */
#define ZLUA_TB_INTERRUPTED 12

#include "zlua_env.h"

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
/* How long a limited call's start trusts the last look at the poke
 * signal's handler (poke.c, zlua_poke_ready_at): a look is a system call,
 * about 1 µs on the sandboxed machines the benchmarks run on. */
#define ZLUA_POKE_RECHECK_NS 10000000u

/* C stack a limited call may use below its outermost protected operation
 * before the hook raises "C stack overflow" (LuaJIT does not bound C
 * recursion through its library, e.g. gsub calling gsub). Threads that run
 * Lua need at least twice this. */
#define ZLUA_CSTACK_LIMIT (1u << 20)
/* C stack kept free at the end of a thread's stack on LuaJIT: library
 * recursion stops there even where no outermost operation recorded a base
 * (cstack.c). It covers one level of recursion plus raising the error. */
#define ZLUA_CSTACK_RESERVE (256u << 10)
/* The most C stack kept free at the end of a thread's stack for entries
 * from Go into Lua (zlua_cstack_low): Envs whose Go functions call into
 * other Envs nest on one thread without any Env's own bound seeing it. */
#define ZLUA_ENTRY_RESERVE_MAX (1u << 20)

/* The declarations, by area: */
#include "zlua_runtime.h"
#include "zlua_values.h"

#endif
