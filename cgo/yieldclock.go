package cgo

/*
#include "zlua.h"
#cgo nocallback zlua_thread_yield_at
#cgo nocallback zlua_set_thread_yield_at
*/
import "C"

// ThreadYieldAt is the calling OS thread's yield clock: when an Env last
// yielded the goroutine running on this thread to the Go scheduler, as the
// caller recorded it (SetThreadYieldAt); 0 if none did. The clock is per
// thread so that one goroutine driving many Envs yields for all of them at
// once: it stays on its thread through every cgo call between two passes
// through the scheduler.
func ThreadYieldAt() int64 { return int64(C.zlua_thread_yield_at()) }

// SetThreadYieldAt records t as the calling thread's yield clock.
func SetThreadYieldAt(t int64) { C.zlua_set_thread_yield_at(C.int64_t(t)) }
