package cgo

/*
#cgo noescape zlua_on_thread
#cgo nocallback zlua_on_thread
#include "zlua.h"
*/
import "C"

import (
	"sync/atomic"
	"unsafe"
)

// CallRes is the number of results a call reads without further crossings.
const CallRes = int(C.ZLUA_CALL_RES)

// CallResult receives the results of CallRef. It lives in C memory
// (NewCallResult), so passing it to C costs no cgo pointer check.
type CallResult struct {
	N      int32
	Popped int32
	Base   int32 // stack top before the call
	_      int32
	Res    [CallRes]Arg
}

var _ [unsafe.Sizeof(C.zlua_callres{}) - unsafe.Sizeof(CallResult{})]struct{}
var _ [unsafe.Sizeof(CallResult{}) - unsafe.Sizeof(C.zlua_callres{})]struct{}

// CallRef calls the committed program "PutRef(f), args..." under
// protection and reads the results into r (see zlua_callref). simple
// promises the program holds only nil, booleans, numbers and refs, at most
// 12 values. It returns a Lua status; on error one error value is on t's
// stack; otherwise the results are on it unless r.Popped.
func (s *State) CallRef(t Thread, nres int, simple bool, r *CallResult) int {
	sm := C.int(0)
	if simple {
		sm = 1
	}
	return int(C.zlua_callref(s.env, t.p, C.int(nres), sm, (*C.zlua_callres)(unsafe.Pointer(r))))
}

// NewCallResult allocates a CallResult in C memory, freed by Close.
func (s *State) NewCallResult() (*CallResult, error) {
	p := C.calloc(1, C.size_t(unsafe.Sizeof(CallResult{})))
	if p == nil {
		return nil, ErrNoMemory
	}
	r := (*CallResult)(p)
	s.results = append(s.results, r)
	return r, nil
}

// ThreadID returns an identity of the calling OS thread.
func ThreadID() uintptr { return uintptr(C.zlua_tid()) }

// OnThread reports whether owner holds the ThreadID of the calling OS
// thread. Unlike comparing ThreadID() with owner.Load(), the load and the
// comparison happen on one thread in one call: a goroutine that was moved
// to another thread between the two cannot see a stale match.
func OnThread(owner *atomic.Uintptr) bool {
	return C.zlua_on_thread((*C.uintptr_t)(unsafe.Pointer(owner))) != 0
}

// TID returns the thread identity of the OS thread running the call.
func (f Frame) TID() uintptr { return uintptr(f.p.tid) }
