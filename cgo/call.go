package cgo

/*
#cgo noescape zlua_on_thread
#cgo nocallback zlua_on_thread
#include "zlua.h"

// zlua_callref_u is zlua_callref with its pointers passed as integers: all
// three are C memory, and an integer argument spares the cgo pointer check
// the runtime makes on every pointer argument of every call.
static int zlua_callref_u(uintptr_t env, uintptr_t L, int nres, int simple, uintptr_t r)
{
	return zlua_callref((zlua_env *)env, (lua_State *)L, nres, simple, (zlua_callres *)r);
}

// zlua_getglobal_u: zlua_getglobal with integer arguments (see above).
static int zlua_getglobal_u(uintptr_t env, uintptr_t L, uintptr_t r)
{
	return zlua_getglobal((zlua_env *)env, (lua_State *)L, (zlua_callres *)r);
}
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
	return int(C.zlua_callref_u(C.uintptr_t(uintptr(unsafe.Pointer(s.env))), C.uintptr_t(uintptr(unsafe.Pointer(t.p))),
		C.int(nres), sm, C.uintptr_t(uintptr(unsafe.Pointer(r)))))
}

// GetGlobal pushes the global named by the committed program (one PutStr)
// under protection and reads it into r.Res[0] in the same crossing; a
// scalar is popped (r.Popped), anything else stays on t's stack above
// r.Base. It returns a Lua status; on error one error value is on the
// stack.
func (s *State) GetGlobal(t Thread, r *CallResult) int {
	return int(C.zlua_getglobal_u(C.uintptr_t(uintptr(unsafe.Pointer(s.env))),
		C.uintptr_t(uintptr(unsafe.Pointer(t.p))), C.uintptr_t(uintptr(unsafe.Pointer(r)))))
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
