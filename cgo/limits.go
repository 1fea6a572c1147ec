package cgo

/*
#include "zlua.h"
#cgo noescape zlua_interrupt
#cgo nocallback zlua_interrupt
#cgo nocallback zlua_interrupt_clear
#cgo nocallback zlua_mem_stats
*/
import "C"

// Protected operations of the limits and the sandbox.
const (
	// OpOpenSafe opens the safe subset of the standard libraries.
	OpOpenSafe = int(C.ZLUA_DO_OPENSAFE)
)

// Interrupt reasons for [State.Interrupter].
const (
	InterruptCanceled = int(C.ZLUA_INT_CANCELED)
	InterruptDeadline = int(C.ZLUA_INT_DEADLINE)
)

// SetMemoryLimit caps the Lua heap at n bytes (0: no cap). An allocation
// that would pass it fails, and Lua raises "not enough memory".
func (s *State) SetMemoryLimit(n uint64) { s.env.mem_limit = C.size_t(n) }

// MemUsed returns the Lua heap's bytes in use and their peak. It may be
// called from any goroutine while the state is open (not concurrently
// with Close).
func (s *State) MemUsed() (used, peak uint64) {
	m := C.zlua_mem_stats(s.env)
	return uint64(m.used), uint64(m.peak)
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

// LimitBegin starts a limited call on t: the count hook checks the
// interrupt flag from now on.
func (s *State) LimitBegin(t Thread) { C.zlua_limit_begin(s.env, t.p) }

// LimitEnd ends a limited call begun on t.
func (s *State) LimitEnd(t Thread) { C.zlua_limit_end(s.env, t.p) }

// Interrupter returns a function that any goroutine may call to mark one
// context done (an atomic store into C memory; it runs no Lua), and the
// function that withdraws that mark once its limited call has ended. Both
// must stop being called before the state closes.
func (s *State) Interrupter() (interrupt func(reason int), clear func()) {
	env := s.env
	return func(reason int) { C.zlua_interrupt(env, C.int(reason)) },
		func() { C.zlua_interrupt_clear(env) }
}

// StockPatternsKey is the registry key of the table holding the backend's
// original pattern functions (string.find, match, gmatch, gsub), which
// every Env replaces with zlua's bounded ones.
const StockPatternsKey = C.ZLUA_STOCK_PATTERNS
