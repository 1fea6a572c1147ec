package cgo

// #include "zlua.h"
import "C"

import "runtime/cgo"

// zluaSmallStackRun is the Go side of zlua_run_on_stack: it runs the func
// of handle h on the C thread zlua_run_on_stack made.
//
//export zluaSmallStackRun
func zluaSmallStackRun(h C.uintptr_t) { cgo.Handle(h).Value().(func())() }

// OnStackOf runs f on a new C thread whose stack is size bytes and waits
// for it: a test hook for the C stack bounds on small thread stacks. It
// returns 0, or the pthread error that kept the thread from starting.
func OnStackOf(size int, f func()) int {
	h := cgo.NewHandle(f)
	defer h.Delete()
	return int(C.zlua_run_on_stack(C.uintptr_t(h), C.size_t(size)))
}
