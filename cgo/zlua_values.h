/*
 * zlua_values.h: part of zlua.h, which includes it (never include it
 * alone): threads driven from Go, push programs, the gate, the object and
 * struct registries' userdata, values Go holds and reading values for Go.
 * The rules of zlua.h's opening comment hold here.
 */
#ifndef ZLUA_VALUES_H
#define ZLUA_VALUES_H

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
/* [lua] The lua_CFunction behind every Go function whose id is not
 * fast: its sentinel, upvalue 1, names the function. */
int zlua_trampoline(lua_State *L);
/* [lua] The trampoline of fast id fnid (< ZLUA_FAST_FNS), which the C
 * function zlua_fast_tramp(fnid) jumps to: zlua_trampoline's work, with
 * the id's state read from env->fastfn instead of the sentinel.
 * [-0, +k] */
int zlua_tramp_fast(lua_State *L, uint32_t fnid);
/* [go-safe] The C function of fast id fnid (< ZLUA_FAST_FNS;
 * fasttramp.c), which push_gofunc gives its closure. */
lua_CFunction zlua_fast_tramp(uint32_t fnid);
/* [go-safe] The name the call site gives the running C function (a
 * local, global, field, method or upvalue), or NULL. [-0, +0] */
const char *zlua_site_name(lua_State *L);
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
 * error; -1 - slot: ran and returned the object of slot, whose userdata
 * lives (zlua_jit_obj, else zlua_jit_finish). One function per argument count, so an FFI call passes only the
 * arguments it has. */
int zlua_jit_call0(void *env, const void *p, uint32_t spec, uint32_t fnid);
int zlua_jit_call1(void *env, const void *p, uint32_t spec, uint32_t fnid, double a);
int zlua_jit_call2(void *env, const void *p, uint32_t spec, uint32_t fnid, double a, double b);
int zlua_jit_call3(void *env, const void *p, uint32_t spec, uint32_t fnid, double a, double b,
		   double c);
int zlua_jit_call4(void *env, const void *p, uint32_t spec, uint32_t fnid, double a, double b,
		   double c, double d);
/* [go-safe, no Lua API: called from Lua through the FFI] The leaf call
 * zlua_jit_call* answered -1 - slot (an object result): 1, ending the
 * call, when u is the payload of the object's live userdata (the closure
 * found it in the identity cache at slot); else 0, and zlua_jit_finish
 * pushes the object. */
int zlua_jit_obj(void *env, const void *u);
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
/* [lua] Turns trace stitching off (jit.opt's minstitch) when the env has a
 * memory limit: this LuaJIT crashes when a trace raises an allocation
 * failure after a collection ran inside a C function the trace was
 * stitched around (lj_err_mem reads a frame that is not one). Run when
 * the libraries are opened; does nothing without the jit module.
 * [-0, +0] */
void zlua_jit_nostitch(lua_State *L, zlua_env *env);
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
/* [go-safe] Runs one ZLUA_OP_OBJPTR at p (after the op byte): stores the
 * pinned address in the ByObj userdata on top, which the op before pushed
 * (one of this state's: a new one, or the live one of its slot), unless
 * it is released or holds an address already. Returns the operand's
 * length. [-0, +0] */
size_t zlua_obj_setptr(lua_State *L, const unsigned char *p);
/* [go-safe] Pushes a held object, an argument of zlua_callheld (a->v.i:
 * slot | gen << 32; a->len: the object's address when its type's fields are
 * served in C, else 0): the slot's live keyed userdata from the identity
 * cache, given the address as ZLUA_OP_OBJPTR gives it when it has none.
 * Returns 0 with nothing pushed when the cache holds no live userdata of
 * that generation (Lua collected it): Go then pushes the object through a
 * program, which makes a new one. Allocates nothing, raises nothing.
 * [-0, +(0|1)] */
int zlua_obj_push_held(lua_State *L, zlua_env *env, const zlua_arg *a);
/* zlua_callheld's answer when a held object missed the cache: nothing
 * was called and the stack is as it was. */
#define ZLUA_CALL_MISS (-102)
/* [lua] Runs one ZLUA_OP_OBJCHARGE at p (after the op byte): inside a
 * script call's results (env->charging), an object slot whose userdata
 * lives and that holds no charge yet is charged the bytes, after making
 * room (zlua_charge_room); returns the operand bytes consumed. [-0, +0] */
size_t zlua_obj_charge(lua_State *L, zlua_env *env, const unsigned char *p);
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
/* [lua] Makes room for a charge of c bytes (a Go copy or object zlua made
 * for a script, counted with the heap against mem_limit): when it does not
 * fit, a full collection runs first (its finalizers give back the charges
 * of garbage; Lua 5.4's emergency collection, which a refused allocation
 * triggers, runs none), and if it still does not fit Lua's memory error is
 * raised. [-0, +0] */
void zlua_charge_room(lua_State *L, zlua_env *env, size_t c);
/* [lua] Adds c to the charge *slot (c may be negative: a field write that
 * dropped bytes; the charge never goes below 0) and to ext_used; once
 * ZLUA_EXT_STEP bytes were charged, a running collector steps for them:
 * it then paces on Go memory as on its own allocations, and garbage
 * copies are finalized (and uncharged) as garbage tables would be freed.
 * [-0, +0] */
void zlua_charge_add(lua_State *L, zlua_env *env, size_t *slot, int64_t c);
/* [lua] Raises Lua's memory error as an allocation the limit refuses
 * does (ZLUA_OP_NOMEM). [-0, +0] */
void zlua_raise_nomem(lua_State *L, const zlua_env *env);
/* [go-safe] Charges d bytes of Go memory a store made for a script (a
 * table or string written into a field, callbackgate/storecharge.go) to
 * ext_used, or gives back -d; no Lua API. A charge that does not fit
 * under the limit is not made: returns 0. */
int zlua_store_charge(zlua_env *env, int64_t d);
/* [go-safe] A full collection of L's state under protection (Go, before
 * it refuses a store's charge); returns the status. [-0, +0] */
int zlua_collect_now(zlua_env *env, lua_State *L);
/* [lua] Runs one ZLUA_OP_SVCHARGE at p (after the op byte): a live
 * companion's charge grows or shrinks by the delta, after making room for
 * growth under the limit (a full collection, then Lua's memory error);
 * returns the operand bytes consumed. [-0, +0] */
size_t zlua_sv_charge(lua_State *L, zlua_env *env, const unsigned char *p);
/* [lua] Runs ZLUA_OP_SVNOADDR: the ByVal userdata of env on top (the
 * program pushed it just before) is marked ZLUA_F_NOADDR; any other value
 * is left alone. [-0, +0] */
void zlua_sv_noaddr(lua_State *L, zlua_env *env);
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
/* [lua] The raw operations (ZLUA_DO_RAWINDEX .. ZLUA_DO_SETMETA) on the
 * operands the program pushed: [obj, key], [obj, key, value], [obj] or
 * [obj, mt]. obj must be a table (else an error: the raw API functions
 * assume one), mt a table or nil. Returns the results left: rawget,
 * rawlen and the metatable push one, rawset and setmetatable pop the
 * program's operands but obj. [-k, +0|1] */
int zlua_raw_op(lua_State *L, int opcode);
/* [lua] After the libraries opened (ZLUA_DO_OPENLIBS, ZLUA_DO_OPENSAFE):
 * on LuaJIT, keeps a ref of the package table they made
 * (env->package_ref); nothing on Lua 5.4. [-0, +0] */
void zlua_keep_package(lua_State *L, zlua_env *env);
/* [lua] ZLUA_DO_PRELOAD: pushes the table require's preload searcher
 * reads (Lua 5.4: the registry's _PRELOAD; LuaJIT: the preload field of
 * the package table kept by zlua_keep_package), read raw, or nil when it
 * is not a table. [-0, +1] */
void zlua_preload_table(lua_State *L, zlua_env *env);

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
