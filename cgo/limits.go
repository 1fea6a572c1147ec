package cgo

/*
#include "zlua.h"
#cgo noescape zlua_interrupt
#cgo nocallback zlua_interrupt
#cgo nocallback zlua_interrupt_clear
#cgo nocallback zlua_poke
#cgo nocallback zlua_poke_forget
#cgo nocallback zlua_mem_stats
#cgo nocallback zlua_set_mem_limit
#cgo noescape zlua_interrupted_now
#cgo nocallback zlua_interrupted_now
#cgo noescape zlua_interrupt_text
#cgo nocallback zlua_interrupt_text
*/
import "C"

// Protected operations of the limits and the sandbox.
const (
	// OpOpenSafe opens the safe subset of the standard libraries.
	OpOpenSafe = int(C.ZLUA_DO_OPENSAFE)
)

// Interrupt reasons for [Interrupts.Interrupt].
const (
	InterruptCanceled = int(C.ZLUA_INT_CANCELED)
	InterruptDeadline = int(C.ZLUA_INT_DEADLINE)
)

// SetMemoryLimit caps the Lua heap at n bytes (0: no cap). An allocation
// that would pass it fails, and Lua raises "not enough memory".
func (s *State) SetMemoryLimit(n uint64) { C.zlua_set_mem_limit(s.env, C.size_t(n)) }

// MemoryLimit returns the cap SetMemoryLimit set (0: none).
func (s *State) MemoryLimit() uint64 { return uint64(s.env.mem_limit) }

// Interrupted reports whether a limited call runs and one of its contexts
// is done: its hook raises at the next check, so Go code that runs long
// inside the call (a big conversion) may stop early.
func (s *State) Interrupted() bool { return C.zlua_interrupted_now(s.env) != 0 }

// InterruptText is the interruption's message: "interrupted: context
// deadline exceeded" or "interrupted: context canceled".
func (s *State) InterruptText() string { return C.GoString(C.zlua_interrupt_text(s.env)) }

// MemUsed returns the Lua heap's bytes in use and their peak. It may be
// called from any goroutine while the state is open (not concurrently
// with Close).
func (s *State) MemUsed() (used, peak uint64) {
	m := C.zlua_mem_stats(s.env)
	return uint64(m.used), uint64(m.peak)
}

// ExtRefused reports whether the limit refused an allocation or a charge
// while Go memory was charged, since the last collection after a refusal.
// The owner's goroutine only.
func (s *State) ExtRefused() bool { return s.env.ext_refused != 0 }

// ChargedBytes returns the bytes of Go copies charged to the memory limit
// (companions, see PutCompanion). Callable like MemUsed.
func (s *State) ChargedBytes() uint64 {
	m := C.zlua_mem_stats(s.env)
	return uint64(m.ext)
}

// Calls returns how many Lua→Go calls the trampoline has entered, up to
// Close after it. Like MemUsed it may be called from any goroutine while
// the state is open (not concurrently with Close): the owner's thread
// counts with relaxed atomic stores in C, which cost no locked
// instruction.
func (s *State) Calls() uint64 {
	if s.env == nil {
		return s.closedCalls
	}
	return uint64(C.zlua_calls(s.env))
}

// FailAllocAt makes the k-th growing allocation from now fail, and every
// one after it until FailAllocAt(0). It exists for the allocation-failure
// tests only.
func (s *State) FailAllocAt(k uint64) {
	if k == 0 {
		s.env.alloc_fail_at = 0
		return
	}
	s.env.alloc_fail_at = s.env.alloc_count + C.uint64_t(k)
}

// LimitBegin starts a limited call on t: the hook checks the interrupt
// flag from now on (at once when Poke hurries it; without the signal, a
// count event every 1 to 1000 instructions: cgo/hook.c, limit_armed), and
// the calling OS thread is named the call's, for Poke. The caller keeps its goroutine locked to the thread
// until LimitEnd (runtime.LockOSThread). It returns what LimitEnd needs:
// the thread an outer limited call runs on, what the OS thread named
// before, and the OS thread.
func (s *State) LimitBegin(t Thread) LimitPrev {
	p := C.zlua_limit_begin(s.env, t.p)
	return LimitPrev{Thread{p.running}, uintptr(p.poke), int32(p.tid)}
}

// LimitPrev is what LimitBegin returns for LimitEnd.
type LimitPrev struct {
	Outer Thread  // the thread an outer limited call runs on
	mark  uintptr // what the OS thread named before (C memory, not read by Go)
	tid   int32   // the OS thread's kernel id
}

// Tid is the kernel id of the OS thread LimitBegin ran on.
func (p LimitPrev) Tid() int { return int(p.tid) }

// KeptEnvs returns how many closed states kept their C env because an OS
// thread still named it for the signal's handler: a limited call ended on
// another thread than it began on (its goroutine was unlocked by code
// that had not locked it). For tests and diagnostics.
func KeptEnvs() int { return int(C.zlua_kept_envs()) }

// LimitEnd ends a limited call begun on t, on the same OS thread; prev
// is what its LimitBegin returned.
func (s *State) LimitEnd(t Thread, prev LimitPrev) {
	C.zlua_limit_end(s.env, t.p, prev.Outer.p, C.uintptr_t(prev.mark), C.int(prev.tid))
}

// LimitAbandoned is LimitEnd's share for a limited call that a Goexit
// abandoned (its LimitEnd never runs): the calling OS thread names no
// limited call any more.
func (s *State) LimitAbandoned(prev LimitPrev) { C.zlua_poke_forget(s.env, C.int(prev.tid)) }

// Interrupts marks contexts of the state's limited calls done. It is a
// plain value: any goroutine may call its methods (an atomic store into C
// memory; no Lua runs), until the state closes.
type Interrupts struct{ env *C.zlua_env }

// Interrupts returns the state's Interrupts.
func (s *State) Interrupts() Interrupts { return Interrupts{s.env} }

// Interrupt marks one context done with a reason (Interrupt*): the hook
// of the running limited call raises at its next check.
func (i Interrupts) Interrupt(reason int) { C.zlua_interrupt(i.env, C.int(reason)) }

// Poke makes the hook of the limited call in progress fire at its next
// instruction, once its context is done (see cgo/poke.c): a signal to
// the thread LimitBegin named. Any goroutine may call it while the call
// runs.
func (i Interrupts) Poke() PokeResult { return PokeResult(C.zlua_poke(i.env)) }

// PokeResult is what Poke did.
type PokeResult int

// The results of Poke.
const (
	PokeSent  PokeResult = 1  // a signal is on its way
	PokeLater PokeResult = -1 // none could be queued now (the user's pending-signal limit): try again
	PokeNever PokeResult = 0  // none can be sent: no thread is known, or the handler is not zlua's
)

// PokeSignal is the signal number Poke sends (a real-time signal).
func PokeSignal() int { return int(C.zlua_poke_signo()) }

// PokeReady reports whether zlua's handler of PokeSignal is installed (at
// the first limited call, unless ZLUA_POKE_SIGNAL=off) and still the
// signal's.
func PokeReady() bool { return C.zlua_poke_ready() != 0 }

// Clear withdraws one mark once its limited call has ended.
func (i Interrupts) Clear() { C.zlua_interrupt_clear(i.env) }

// StockPatternsKey is the registry key of the table holding the backend's
// original pattern functions (string.find, match, gmatch, gsub), which
// every Env replaces with zlua's bounded ones.
const StockPatternsKey = C.ZLUA_STOCK_PATTERNS

// OpWithFarArgs runs a protected operation whose arguments live in memory
// LuaJIT has not seen (another light userdata segment): the hook of the
// test that zlua_op allocates nothing outside protection. It returns the
// operation's status, or -1 when no such memory could be mapped.
func (s *State) OpWithFarArgs(t Thread) int {
	return int(C.zlua_op_far_opargs(s.env, t.p))
}

// HooksRearmable reports whether zlua can turn hooks back on for a Lua 5.4
// coroutine that an error raised by a hook killed (cgo/rearm.c checks the
// linked library's lua_State layout once per process). Without it the
// to-be-closed variables of such a coroutine would run with no deadline
// check. Always true on LuaJIT, which has none.
func HooksRearmable() bool { return C.zlua_rearm_supported() != 0 }

// HookMask is the mask of the hook thread t has now (lua_gethookmask):
// a test hook for the limit's lazy count event (cgo/hook.c, limit_armed).
// On LuaJIT hooks belong to the state: the mask is the state's.
func (t Thread) HookMask() int { return int(C.lua_gethookmask(t.p)) }

// HookCountMask is LUA_MASKCOUNT, the bit of HookMask that says a count
// event is due every few instructions.
const HookCountMask = int(C.LUA_MASKCOUNT)
