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

// zlua_callscalars_u: zlua_callscalars with integer arguments (see above).
static int zlua_callscalars_u(uintptr_t env, uintptr_t L, int ref, int selfref, int nin, int nres,
			      uintptr_t r)
{
	return zlua_callscalars((zlua_env *)env, (lua_State *)L, ref, selfref, nin, nres,
				(zlua_callres *)r);
}

// zlua_callheld_u: zlua_callheld with integer arguments (see above).
static int zlua_callheld_u(uintptr_t env, uintptr_t L, int ref, int selfref, int nin, int nres,
			   uintptr_t r)
{
	return zlua_callheld((zlua_env *)env, (lua_State *)L, ref, selfref, nin, nres,
			     (zlua_callres *)r);
}

// zlua_getglobal_u: zlua_getglobal with integer arguments (see above).
static int zlua_getglobal_u(uintptr_t env, uintptr_t L, uintptr_t r)
{
	return zlua_getglobal((zlua_env *)env, (lua_State *)L, (zlua_callres *)r);
}

// zlua_tableop_u: zlua_tableop with integer arguments (see above).
static int zlua_tableop_u(uintptr_t env, uintptr_t L, int opcode, int nres, uintptr_t r)
{
	return zlua_tableop((zlua_env *)env, (lua_State *)L, opcode, nres, (zlua_callres *)r);
}
*/
import "C"

import (
	"math"
	"unsafe"
)

// CallRes is the number of results a call reads without further crossings.
const CallRes = int(C.ZLUA_CALL_RES)

// CallIn is the number of scalar arguments CallScalars passes.
const CallIn = int(C.ZLUA_CALL_IN)

// CallResult receives the results of CallRef. It lives in C memory
// (NewCallResult), so passing it to C costs no cgo pointer check.
type CallResult struct {
	N      int32
	Popped int32
	Base   int32 // stack top before the call
	Status int32 // ResumeScalars: the thread's status
	Res    [CallRes]Arg
	In     [CallIn]Arg // CallScalars' arguments (SetInt, SetNum, SetBool, SetLight, SetNil)
}

// SetInt makes argument i of the next CallScalars the integer v.
func (r *CallResult) SetInt(i int, v int64) {
	r.In[i] = Arg{Type: int32(C.LUA_TNUMBER), isint: 1, v: uint64(v)}
}

// SetNum makes argument i of the next CallScalars the float v.
func (r *CallResult) SetNum(i int, v float64) {
	r.In[i] = Arg{Type: int32(C.LUA_TNUMBER), v: math.Float64bits(v)}
}

// SetBool makes argument i of the next CallScalars the boolean b.
func (r *CallResult) SetBool(i int, b bool) {
	a := &r.In[i]
	*a = Arg{Type: int32(C.LUA_TBOOLEAN)}
	if b {
		*(*C.int)(unsafe.Pointer(&a.v)) = 1 // v.b, as Arg.Bool reads it
	}
}

// SetLight makes argument i of the next CallScalars the light userdata
// h, an opaque handle (below 2^39: see zlua_push_in).
func (r *CallResult) SetLight(i int, h uint64) {
	r.In[i] = Arg{Type: int32(C.LUA_TLIGHTUSERDATA), v: h}
}

// SetHeld makes argument i of the next CallHeld the object of slot
// (generation gen) that Lua holds: C pushes its userdata from the identity
// cache, giving it the address ptr (0: none) as PutObjPtr does, or returns
// CallMiss without calling when the cache lost it. ptr is the address of a
// pinned object, kept as an integer.
func (r *CallResult) SetHeld(i int, slot, gen uint32, ptr uintptr) {
	r.In[i] = Arg{Type: int32(C.LUA_TUSERDATA), len: ptr, v: uint64(slot) | uint64(gen)<<32}
}

// CallMiss is CallHeld's answer when a held object's userdata was not in
// the cache (SetHeld): nothing was called, the stack is unchanged.
const CallMiss = int(C.ZLUA_CALL_MISS)

// SetNil makes argument i of the next CallScalars nil.
func (r *CallResult) SetNil(i int) { r.In[i] = Arg{Type: int32(C.LUA_TNIL)} }

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

// CallScalars calls the function at registry ref with the nin arguments
// set in r.In (preceded by the value at selfref, a bound method's
// receiver, unless selfref is NoRef) under protection, and reads the
// results into r like CallRef. No push program is involved: the
// arguments are scalars, which cannot raise when pushed.
func (s *State) CallScalars(t Thread, ref, selfref int32, nin, nres int, r *CallResult) int {
	return int(C.zlua_callscalars_u(C.uintptr_t(uintptr(unsafe.Pointer(s.env))), C.uintptr_t(uintptr(unsafe.Pointer(t.p))),
		C.int(ref), C.int(selfref), C.int(nin), C.int(nres), C.uintptr_t(uintptr(unsafe.Pointer(r)))))
}

// CallHeld is CallScalars with held objects (SetHeld) among the
// arguments; CallMiss when the cache lost one, nothing called.
func (s *State) CallHeld(t Thread, ref, selfref int32, nin, nres int, r *CallResult) int {
	return int(C.zlua_callheld_u(C.uintptr_t(uintptr(unsafe.Pointer(s.env))), C.uintptr_t(uintptr(unsafe.Pointer(t.p))),
		C.int(ref), C.int(selfref), C.int(nin), C.int(nres), C.uintptr_t(uintptr(unsafe.Pointer(r)))))
}

// NoRef is LUA_NOREF: no registry reference.
const NoRef = int32(C.LUA_NOREF)

// GetGlobal pushes the global named by the committed program (one PutStr)
// under protection and reads it into r.Res[0] in the same crossing; a
// scalar is popped (r.Popped), anything else stays on t's stack above
// r.Base. It returns a Lua status; on error one error value is on the
// stack.
func (s *State) GetGlobal(t Thread, r *CallResult) int {
	return int(C.zlua_getglobal_u(C.uintptr_t(uintptr(unsafe.Pointer(s.env))),
		C.uintptr_t(uintptr(unsafe.Pointer(t.p))), C.uintptr_t(uintptr(unsafe.Pointer(r)))))
}

// TableOp runs the table operation opcode (OpIndex, OpRawIndex,
// OpNewIndex, OpRawNewIndex) of the committed program under protection
// with nres (0 or 1) results, in one crossing: t's top on entry is in
// r.Base, and the one result is read into r.Res[0] as GetGlobal reads it
// (a scalar popped). It returns a Lua status; on error one error value is
// on the stack.
func (s *State) TableOp(t Thread, opcode, nres int, r *CallResult) int {
	return int(C.zlua_tableop_u(C.uintptr_t(uintptr(unsafe.Pointer(s.env))), C.uintptr_t(uintptr(unsafe.Pointer(t.p))),
		C.int(opcode), C.int(nres), C.uintptr_t(uintptr(unsafe.Pointer(r)))))
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

// NewOwnerWord allocates a gate's owner-thread word in C memory (zeroed):
// the trampoline records the thread of the outermost Go function Lua
// called there (zlua_owner_begin), OnThread reads it. It outlives the
// States that use it (SetOwnerWord); FreeOwnerWord frees it. nil when out
// of memory.
func NewOwnerWord() *uintptr {
	return (*uintptr)(C.calloc(1, C.size_t(unsafe.Sizeof(uintptr(0)))))
}

// FreeOwnerWord frees a word of NewOwnerWord, once no State uses it and
// no goroutine can read it.
func FreeOwnerWord(p *uintptr) { C.free(unsafe.Pointer(p)) }

// SetOwnerWord makes the trampoline record the owner's thread in *p (a
// word of NewOwnerWord, which must outlive the State).
func (s *State) SetOwnerWord(p *uintptr) { s.env.owner_tid = (*C.uintptr_t)(unsafe.Pointer(p)) }

// OnThread reports whether owner holds the ThreadID of the calling OS
// thread. Unlike comparing ThreadID() with owner.Load(), the load and the
// comparison happen on one thread in one call: a goroutine that was moved
// to another thread between the two cannot see a stale match.
func OnThread(owner *uintptr) bool {
	return C.zlua_on_thread((*C.uintptr_t)(unsafe.Pointer(owner))) != 0
}

// TID returns the thread identity of the OS thread running the call.
func (f Frame) TID() uintptr { return uintptr(f.p.tid) }
