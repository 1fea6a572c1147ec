package cgo

/*
#include "zlua.h"

// zlua_run runs a protected operation that takes no chunk; opargs live on
// this C frame. DO_REF's ref is left in env->op_ref (C memory: Go passes
// no pointer, so the call allocates nothing). env and L come as integers:
// both are C memory, and an integer argument spares the runtime's cgo
// pointer check of each pointer argument. [-nargs, +results or +1 error]
static int zlua_run(uintptr_t envp, uintptr_t Lp, int opcode, int nargs, int nres, int n)
{
	zlua_env *env = (zlua_env *)envp;
	zlua_opargs a;
	int st;
	memset(&a, 0, sizeof a);
	a.n = n;
	a.ref = LUA_NOREF;
	st = zlua_op(env, (lua_State *)Lp, opcode, nargs, nres, &a);
	env->op_ref = a.ref;
	return st;
}

// zlua_ref_at refs the value at idx of L in the registry: DO_REF on a
// copy of it, in one crossing (a handle made for a Go function's argument).
// The ref is left in env->op_ref. [-0, +0, or +1 error]
static int zlua_ref_at(uintptr_t envp, uintptr_t Lp, int idx)
{
	zlua_env *env = (zlua_env *)envp;
	lua_State *L = (lua_State *)Lp;
	zlua_opargs a;
	int st;
	memset(&a, 0, sizeof a);
	a.ref = LUA_NOREF;
	lua_pushvalue(L, idx);
	st = zlua_op(env, L, ZLUA_DO_REF, 1, 0, &a);
	env->op_ref = a.ref;
	return st;
}

// zlua_load runs DO_LOAD or DO_DOSTRING on a chunk that Go passes for the
// duration of the call; the chunk name is copied into a C buffer.
// [-0, +1 function or +0 for DO_DOSTRING, or +1 error]
static int zlua_load(zlua_env *env, lua_State *L, int opcode, const char *chunk,
		     size_t len, const char *name, size_t namelen, const char *mode)
{
	char namebuf[512];
	zlua_opargs a;
	if (namelen >= sizeof namebuf)
		namelen = sizeof namebuf - 1;
	memcpy(namebuf, name, namelen);
	namebuf[namelen] = 0;
	memset(&a, 0, sizeof a);
	a.chunk = chunk;
	a.chunk_len = len;
	a.chunk_name = namebuf;
	a.mode = mode;
	return zlua_op(env, L, opcode, 0, opcode == ZLUA_DO_LOAD ? 1 : 0, &a);
}

static size_t zlua_freed_take(zlua_env *env, uint32_t *dst, size_t max)
{
	size_t n = env->freed_len < max ? env->freed_len : max;
	memcpy(dst, env->freed + (env->freed_len - n), n * sizeof *dst);
	env->freed_len -= n;
	return n;
}
*/
import "C"

import (
	"encoding/binary"
	"errors"
	"math"
	"unsafe"
)

// Lua status codes returned by protected operations.
const (
	OK      = int(C.LUA_OK)
	Yield   = int(C.LUA_YIELD)
	ErrRun  = int(C.LUA_ERRRUN)
	ErrMem  = int(C.LUA_ERRMEM)
	ErrErr  = int(C.LUA_ERRERR)
	ErrSynt = int(C.LUA_ERRSYNTAX)
)

// Protected operations (zlua_opcode).
const (
	OpSetGlobal = int(C.ZLUA_DO_SETGLOBAL)
	OpGetGlobal = int(C.ZLUA_DO_GETGLOBAL)
	OpCall      = int(C.ZLUA_DO_CALL)
	OpRef       = int(C.ZLUA_DO_REF)
	OpOpenLibs  = int(C.ZLUA_DO_OPENLIBS)
	opLoad      = int(C.ZLUA_DO_LOAD)
	opDoString  = int(C.ZLUA_DO_DOSTRING)
)

// MultRet asks OpCall for all results.
const MultRet = int(C.LUA_MULTRET)

// GoStack is the number of stack slots Go code may push inside a gate call
// without asking; more needs Reserve.
const GoStack = int(C.ZLUA_GO_STACK)

// ErrNoMemory is returned when C memory for the state cannot be had.
var ErrNoMemory = errors.New("zlua: not enough memory")

// State is one lua_State with its C env. It is not safe for concurrent use;
// the zlua package serialises access.
type State struct {
	env *C.zlua_env
	// prog is a Go view of env->prog (C memory); n is the bytes written.
	prog []byte
	n    int
	// progErr records that the program could not grow; Commit reports it.
	progErr bool
	// progAlloc records that the program holds an op that allocates.
	progAlloc bool
	freed     [256]C.uint32_t
	results   []*CallResult // C memory, see NewCallResult
	// closedAllocs is the allocation count when Close ran (AllocCount).
	closedAllocs uint64
	// closedCalls is the gate call count when Close ran (Calls).
	closedCalls uint64
}

// Thread is a lua_State of a State: its main thread or a coroutine.
type Thread struct{ p *C.lua_State }

// Open creates a state whose gate calls carry goid. Libraries are not
// opened (see OpOpenLibs).
func Open(goid uintptr) (*State, error) {
	env := C.zlua_env_new(C.uintptr_t(goid))
	if env == nil {
		return nil, ErrNoMemory
	}
	return &State{env: env}, nil
}

// Close runs lua_close (every __gc) and frees the C env. Idempotent.
func (s *State) Close() {
	if s.env == nil {
		return
	}
	C.zlua_env_close_state(s.env) // lua_close, if CloseLua has not run it
	s.closedAllocs = uint64(s.env.alloc_count)
	s.closedCalls = uint64(C.zlua_calls(s.env))
	C.zlua_env_close(s.env)
	s.env = nil
	s.prog = nil
	for _, r := range s.results {
		C.free(unsafe.Pointer(r))
	}
	s.results = nil
}

// Closed reports whether Close ran.
func (s *State) Closed() bool { return s.env == nil }

// Main returns the main thread.
func (s *State) Main() Thread { return Thread{s.env.L} }

// IsZero reports whether t is the zero Thread.
func (t Thread) IsZero() bool { return t.p == nil }

// ---- push programs ----

// ProgReset starts a new push program.
func (s *State) ProgReset() { s.n, s.progErr, s.progAlloc = 0, false, false }

// ProgSimple reports whether the program holds only non-allocating ops
// (nil, booleans, numbers, refs) and at most 12 of them.
func (s *State) ProgSimple(values int) bool { return !s.progAlloc && values <= 12 }

// SavedProg is a push program set aside while another one runs.
type SavedProg struct {
	b   []byte
	err bool
}

// ProgSave copies the program being built, so a protected operation can
// use the buffer meanwhile; ProgRestore puts it back.
func (s *State) ProgSave() SavedProg {
	return SavedProg{append([]byte(nil), s.prog[:s.n]...), s.progErr}
}

// ProgRestore replaces the program being built with a saved one.
func (s *State) ProgRestore(p SavedProg) {
	s.ProgReset()
	if s.need(len(p.b)) {
		s.n = copy(s.prog, p.b)
	}
	s.progErr = s.progErr || p.err
}

// ProgLen returns the bytes written so far.
func (s *State) ProgLen() int { return s.n }

func (s *State) need(k int) bool {
	if s.n+k <= len(s.prog) {
		return true
	}
	max := ^uint64(0)
	if lim := uint64(s.env.mem_limit); lim != 0 {
		if max = progBound(lim); uint64(s.n+k) > max {
			s.progErr = true // its values could not fit the Lua heap
			return false
		}
	}
	if s.progErr || C.zlua_prog_reserve_max(s.env, C.size_t(s.n+k), C.size_t(max)) == 0 {
		s.progErr = true
		return false
	}
	s.prog = unsafe.Slice((*byte)(unsafe.Pointer(s.env.prog)), int(s.env.prog_cap))
	return true
}

// progBound is the largest push program built under a MemoryLimit of
// lim bytes. Every op makes at least a quarter of its bytes in the Lua
// heap (the least: a cached object's op, 17 bytes, for a LuaJIT array
// slot of 8; strings and numbers make more than their op), so a bigger
// program's values cannot fit the limit: the push fails with "not enough
// memory" at once, instead of writing hundreds of MB in C memory first
// (probe Z3-F2: a Go function returning make([]int, 1e7)).
func progBound(lim uint64) uint64 { return 4*lim + 1<<20 }

// ProgFailed reports whether the program being built could not grow: what
// is still appended is dropped, and Commit fails.
func (s *State) ProgFailed() bool { return s.progErr }

// ProgShrinkDue reports whether the push program buffer grew past what
// is kept between calls (ZLUA_PROG_KEEP).
func (s *State) ProgShrinkDue() bool { return len(s.prog) > C.ZLUA_PROG_KEEP }

// ShrinkProg frees the push program buffer (zlua_prog_shrink). Only
// between outermost calls, when no program is being built or run.
func (s *State) ShrinkProg() {
	C.zlua_prog_shrink(s.env)
	s.prog, s.n = nil, 0
}

// ProgCap is the push program buffer's capacity (tests).
func (s *State) ProgCap() int { return int(s.env.prog_cap) }

func (s *State) op(o byte) {
	if s.need(1) {
		s.prog[s.n] = o
		s.n++
	}
}

func (s *State) u32(o byte, v uint32) {
	if s.need(5) {
		s.prog[s.n] = o
		binary.LittleEndian.PutUint32(s.prog[s.n+1:], v)
		s.n += 5
	}
}

func (s *State) u64(o byte, v uint64) {
	if s.need(9) {
		s.prog[s.n] = o
		binary.LittleEndian.PutUint64(s.prog[s.n+1:], v)
		s.n += 9
	}
}

// PutNil appends a nil push.
func (s *State) PutNil() { s.op(C.ZLUA_OP_NIL) }

// PutBool appends a boolean push.
func (s *State) PutBool(b bool) {
	if b {
		s.op(C.ZLUA_OP_TRUE)
	} else {
		s.op(C.ZLUA_OP_FALSE)
	}
}

// PutInt appends an integer push (a float on LuaJIT).
func (s *State) PutInt(i int64) { s.u64(C.ZLUA_OP_INT, uint64(i)) }

// PutNum appends a float push.
func (s *State) PutNum(f float64) { s.u64(C.ZLUA_OP_NUM, math.Float64bits(f)) }

// PutStr appends a string push.
func (s *State) PutStr(str string) {
	if uint64(len(str)) > math.MaxUint32 {
		s.progErr = true
		return
	}
	s.progAlloc = true
	if s.need(5 + len(str)) {
		s.u32(C.ZLUA_OP_STR, uint32(len(str)))
		s.n += copy(s.prog[s.n:], str)
	}
}

// PutBytes appends a string push of b's bytes.
func (s *State) PutBytes(b []byte) { s.PutStr(unsafe.String(unsafe.SliceData(b), len(b))) }

// PutNewTable appends a table creation with size hints.
func (s *State) PutNewTable(narr, nrec int) {
	s.progAlloc = true
	if s.need(9) {
		s.u32(C.ZLUA_OP_NEWTABLE, uint32(min(narr, math.MaxInt32)))
		binary.LittleEndian.PutUint32(s.prog[s.n:], uint32(min(nrec, math.MaxInt32)))
		s.n += 4
	}
}

// PutRawSet appends t[k] = v for the table, key and value last pushed.
func (s *State) PutRawSet() { s.op(C.ZLUA_OP_RAWSET) }

// PutGoFunc appends a Go function closure push for fnid. The caller must
// have called PrepareFunc(fnid).
func (s *State) PutGoFunc(fnid uint32) { s.PutGoFuncHints(fnid, 0) }

// PutGoFuncHints is PutGoFunc for a function whose numeric parameters
// hints names (two bits per argument, HintInt or HintNum; see ArgHints):
// the trampoline reads those arguments with one Lua API call.
func (s *State) PutGoFuncHints(fnid, hints uint32) {
	s.progAlloc = true
	if s.need(9) {
		s.u32(C.ZLUA_OP_GOFUNC, fnid)
		binary.LittleEndian.PutUint32(s.prog[s.n:], hints)
		s.n += 4
	}
}

// PutRef appends a push of the registry value at ref.
func (s *State) PutRef(ref int32) { s.u32(C.ZLUA_OP_REF, uint32(ref)) }

// SetEqRef tells C the registry ref of the objects' shared __eq, which it
// adds to the metatable of a userdata pushed without identity (Lua 5.4:
// callbackgate's needsEq). [go-safe]
func (s *State) SetEqRef(ref int32) { s.env.eq_ref = C.int(ref) }

// Commit hands the program to C; it fails if the program could not grow.
func (s *State) Commit() error {
	if s.progErr {
		s.n = 0
		s.env.prog_len = 0
		return ErrNoMemory
	}
	s.env.prog_len = C.size_t(s.n)
	return nil
}

// ---- Go function ids ----

// PrepareFunc marks fnid as held by Go with no closure yet; it fails when
// the C-side table cannot grow.
func (s *State) PrepareFunc(fnid uint32) error {
	if C.zlua_armed_reserve(s.env, C.size_t(fnid)) == 0 {
		return ErrNoMemory
	}
	*(*byte)(unsafe.Add(unsafe.Pointer(s.env.armed), fnid)) = 0
	return nil
}

// FuncArmed reports whether a closure was created for fnid (0: not yet,
// 1: alive, 2: released by __gc).
func (s *State) FuncArmed(fnid uint32) int {
	return int(*(*byte)(unsafe.Add(unsafe.Pointer(s.env.armed), fnid)))
}

// RetiresFunc reports whether fnid, whose closure's sentinel was
// collected, must never be given to another function: a fast id's
// trampoline (zlua.h, ZLUA_FAST_FNS) names it without the sentinel, so a
// closure that outlived its sentinel (kept by a finalizer) is refused as
// released only while the id stays released.
func (s *State) RetiresFunc(fnid uint32) bool {
	return C.size_t(fnid) < s.env.fastfn_cap && s.FuncArmed(fnid) == 2
}

// FreedFuncs calls f with ids whose closures were collected, in batches,
// and empties the queue. f must not call into Lua.
func (s *State) FreedFuncs(f func(ids []uint32)) {
	for s.env.freed_len > 0 {
		n := C.zlua_freed_take(s.env, &s.freed[0], C.size_t(len(s.freed)))
		ids := unsafe.Slice((*uint32)(unsafe.Pointer(&s.freed[0])), int(n))
		f(ids)
	}
}

// HasQueued reports whether anything waits for Go in C: released function
// ids, object slots or companions, or copies of large programs. One test
// for the hot paths, which then skip the individual drains.
func (s *State) HasQueued() bool {
	e := s.env
	return e.freed_len|e.objfreed_len|e.svfreed_len != 0 || e.inflight != nil
}

// Queued reports whether a __gc function pushed a released function id,
// object slot or companion since ClearQueued: one load for the
// dispatcher's common path, where HasQueued reads four fields. A true
// answer may be stale (queues drained elsewhere); a false one is not.
func (s *State) Queued() bool { return s.env.queued != 0 }

// SetTick makes the n-th Lua→Go call from now raise the queue word Queued
// tests, for the dispatcher's scheduler check (zlua_count_call; n = 0:
// the next call). Owner only.
func (s *State) SetTick(n uint32) { s.env.tick_left = C.uint32_t(n) }

// OwnCalls is Calls for the owner, inside a call: a plain read of the
// counter its own thread writes, no cgo call.
func (s *State) OwnCalls() uint64 { return uint64(s.env.calls) }

// QuietSince reports, for the owner ending an outermost call that began
// when OwnCalls was calls, that the call left Go nothing to settle: the
// state is open, no Lua→Go call ran since (every Go function, metamethod
// and field getter reaches Go through the trampoline or a LuaJIT leaf
// call, which count themselves; a warning sink cannot use the Env), no
// __gc queued a release (each push raises queued) and no program copy
// is in flight. A few loads, no cgo call.
func (s *State) QuietSince(calls uint64) bool {
	e := s.env
	return e != nil && uint64(e.calls) == calls && e.queued == 0 && e.inflight == nil
}

// ClearQueued forgets the pushes Queued reports. Call it only when the
// three queues are empty (drained, or found empty by HasQueued).
func (s *State) ClearQueued() { s.env.queued = 0 }

// HasFreedFuncs reports whether released ids wait in the queue.
func (s *State) HasFreedFuncs() bool { return s.env.freed_len > 0 }

// LostFuncIDs is the number of released ids dropped because the queue
// could not grow (each is a leaked Go function entry).
func (s *State) LostFuncIDs() int { return int(s.env.freed_lost) }

// HasInflight reports whether copies of large programs wait for Reclaim.
func (s *State) HasInflight() bool { return s.env.inflight != nil }

// Reclaim frees copies of large programs abandoned by raises. Only call it
// when no Lua code of this state is running.
func (s *State) Reclaim() { C.zlua_reclaim(s.env) }

// ---- protected operations ----

// Run runs a protected operation that uses the committed push program.
// It returns a Lua status; on error one error value is on t's stack. For
// OpRef the new ref is returned.
func (s *State) Run(t Thread, opcode, nargs, nres, n int) (status int, ref int) {
	st := C.zlua_run(C.uintptr_t(uintptr(unsafe.Pointer(s.env))), C.uintptr_t(uintptr(unsafe.Pointer(t.p))),
		C.int(opcode), C.int(nargs), C.int(nres), C.int(n))
	return int(st), int(s.env.op_ref)
}

// RefAt refs the value at absolute index idx of t as Run(OpRef) refs a
// copy pushed on top, in one crossing (the value stays at idx). On
// failure the error value is left on top.
func (s *State) RefAt(t Thread, idx int) (status int, ref int) {
	st := C.zlua_ref_at(C.uintptr_t(uintptr(unsafe.Pointer(s.env))), C.uintptr_t(uintptr(unsafe.Pointer(t.p))), C.int(idx))
	return int(st), int(s.env.op_ref)
}

// Load compiles chunk (mode "t", "b" or "bt") and leaves the function on
// t's stack, or an error value.
func (s *State) Load(t Thread, chunk, name, mode string) int {
	return s.load(t, opLoad, chunk, name, mode)
}

// DoString compiles and runs chunk with no results; on error one error
// value is left on t's stack.
func (s *State) DoString(t Thread, chunk, name, mode string) int {
	return s.load(t, opDoString, chunk, name, mode)
}

func (s *State) load(t Thread, opcode int, chunk, name, mode string) int {
	var m *C.char
	switch mode {
	case "t":
		m = modeT
	case "b":
		m = modeB
	case ModeOwn:
		m = modeOwn
	default:
		m = modeBT
	}
	return int(C.zlua_load(s.env, t.p, C.int(opcode),
		(*C.char)(unsafe.Pointer(unsafe.StringData(chunk))), C.size_t(len(chunk)),
		(*C.char)(unsafe.Pointer(unsafe.StringData(name))), C.size_t(len(name)), m))
}

var (
	modeT   = C.CString("t")
	modeB   = C.CString("b")
	modeBT  = C.CString("bt")
	modeOwn = C.CString(C.ZLUA_MODE_OWN)
)

// ModeOwn is the load mode of zlua's own chunks (never a script's): a
// text chunk compiled once per process, loaded from its bytecode by every
// later state (cgo/chunkcache.c).
const ModeOwn = "own"

// OwnChunks returns how many of zlua's own chunks the process keeps
// compiled (cgo/chunkcache.c). For tests.
func OwnChunks() int { return int(C.zlua_own_chunks()) }

// ErrInfo returns the message and traceback the message handler recorded
// for the error value on top of t's stack; ok is false if it did not run
// for that value (memory errors skip it).
func (s *State) ErrInfo(t Thread) (msg, traceback string, ok bool) {
	var m, tb *C.char
	var ml, tl C.size_t
	if C.zlua_errinfo(s.env, t.p, &m, &ml, &tb, &tl) == 0 {
		return "", "", false
	}
	msg = C.GoStringN(m, C.int(ml))
	if tb != nil {
		traceback = C.GoStringN(tb, C.int(tl))
	}
	return msg, traceback, true
}

// Recent is the number of raised Go errors whose position the trampoline
// keeps (zlua_env.raised).
const Recent = int(C.ZLUA_RECENT)

// MarkRaise tells the trampoline, before Go returns StatusErrPos, where to
// keep the position prefix it adds: slot (0..Recent-1) with sequence
// number seq, or nowhere when seq is 0.
func (s *State) MarkRaise(slot int, seq uint32) {
	if seq == 0 {
		s.env.raise_slot = 0
		return
	}
	s.env.raise_slot = C.uint32_t(slot + 1)
	s.env.raise_seq = C.uint32_t(seq)
}

// Raised returns the position prefix the trampoline kept in slot for the
// raise numbered seq; ok is false if the slot holds another raise (or the
// prefix was too long to keep). The bytes are C memory, valid until the
// next raise.
func (s *State) Raised(slot int, seq uint32) (where []byte, ok bool) {
	r := &s.env.raised[slot]
	if seq == 0 || uint32(r.seq) != seq {
		return nil, false
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&r.where[0])), int(r.len)), true
}

// Pushing reports whether a push program or an object push is under way
// on the state (a Lua call made from inside one, by a finalizer its
// allocation ran, is nested in it): slots Go found for it must stay Go's.
// It may say so after such a push was abandoned by a raise, until the
// outermost operation ends: that only delays a release.
func (s *State) Pushing() bool { return s.env.prog_active != 0 }

// LoadFailures counts the host chunks (DoString, Eval, LoadString, module
// files) that failed to compile: each failure was a raise (tests).
func (s *State) LoadFailures() uint64 { return uint64(s.env.load_failures) }

// Unref releases a registry ref. Never raises.
func (s *State) Unref(ref int) { C.zlua_unref(s.env.L, C.int(ref)) }

// SameRef reports whether registry refs a and b hold the same value
// (rawequal), using two slots of t's stack; false when it cannot grow.
func (s *State) SameRef(t Thread, a, b int) bool {
	same, _ := s.RefsEqual(t, a, b)
	return same
}

// RefsEqual is SameRef that tells a stack that could not grow (ok false)
// from two different values.
func (s *State) RefsEqual(t Thread, a, b int) (same, ok bool) {
	r := C.zlua_ref_same(s.env, t.p, C.int(a), C.int(b))
	return r == 1, r >= 0
}

// Reserve ensures n free slots on t's stack; false if it cannot grow.
func (s *State) Reserve(t Thread, n int) bool {
	return C.zlua_reserve(s.env, t.p, C.int(n)) != 0
}
