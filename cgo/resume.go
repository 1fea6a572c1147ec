package cgo

/*
#include "zlua.h"

// zlua_resume_op runs ZLUA_DO_RESUME on the committed program and returns
// the operation's status and the thread's (LUA_OK, LUA_YIELD or its
// error). Returned by value: the operation runs Lua code, which calls
// back into Go, so no Go pointer is passed.
// [-0, +results or +1 error value]
typedef struct { int st, status; } zlua_resume_res;
static zlua_resume_res zlua_resume_op(zlua_env *env, lua_State *L)
{
	zlua_opargs a;
	zlua_resume_res r;
	memset(&a, 0, sizeof a);
	a.n = LUA_MULTRET;
	a.ref = LUA_OK;
	r.st = zlua_op(env, L, ZLUA_DO_RESUME, 0, LUA_MULTRET, &a);
	r.status = a.ref;
	return r;
}

// zlua_resume_scalars_u: zlua_resume_scalars with integer arguments (see
// call.go).
static int zlua_resume_scalars_u(uintptr_t env, uintptr_t L, int ref, int nin, uintptr_t r)
{
	return zlua_resume_scalars((zlua_env *)env, (lua_State *)L, ref, nin, (zlua_callres *)r);
}

static lua_State *zlua_tothread(lua_State *L, int idx) { return lua_tothread(L, idx); }
#cgo nocallback zlua_tothread
#cgo nocallback zlua_costatus
*/
import "C"

import "unsafe"

// OpNewThread creates a thread whose body is the program's one value (a
// function) and leaves it on the stack (see zlua_thread_new).
const OpNewThread = int(C.ZLUA_DO_NEWTHREAD)

// Thread statuses, as coroutine.status names them.
const (
	CoSuspended = int(C.ZLUA_CO_SUSPENDED)
	CoRunning   = int(C.ZLUA_CO_RUNNING)
	CoNormal    = int(C.ZLUA_CO_NORMAL)
	CoDead      = int(C.ZLUA_CO_DEAD)
	// CoKilled is the status Resume reports with a failed operation when
	// the thread was killed (LuaJIT: its stack could not grow for the
	// arguments); CoStatus may report it normal from then on.
	CoKilled = int(C.ZLUA_CO_KILLED)
)

// Resume resumes, on behalf of t, the thread the committed program starts
// with, passing the program's other values. st is the status of the
// protected operation: on failure one error value is on t's stack. When
// st is OK, status is the thread's: Yield or OK with the values it
// yielded or returned on t's stack, or an error status with the thread's
// error value on t's stack (its message and traceback recorded for
// ErrInfo).
func (s *State) Resume(t Thread) (st, status int) {
	r := C.zlua_resume_op(s.env, t.p)
	return int(r.st), int(r.status)
}

// ResumeScalars' answers besides Lua statuses: ResumeSlow, nothing was
// done (take Resume, which reports why the thread cannot run);
// ResumeNoRoom, the thread's values did not fit on t's stack.
const (
	ResumeSlow   = int(C.ZLUA_RESUME_SLOW)
	ResumeNoRoom = int(C.ZLUA_RESUME_NOROOM)
)

// ResumeScalars resumes the suspended thread at registry ref with the nin
// arguments set in r.In, in one crossing (see zlua_resume_scalars). With
// st OK, r.Status is the thread's: Yield or OK with its values read into
// r (on t's stack above r.Base unless r.Popped), or an error status with
// its error value on t's stack. Any other st is a failed protected step
// (error value on t's stack; r.Status is CoKilled if the thread was
// killed), ResumeSlow or ResumeNoRoom (nothing on the stack).
func (s *State) ResumeScalars(t Thread, ref int32, nin int, r *CallResult) int {
	return int(C.zlua_resume_scalars_u(C.uintptr_t(uintptr(unsafe.Pointer(s.env))), C.uintptr_t(uintptr(unsafe.Pointer(t.p))),
		C.int(ref), C.int(nin), C.uintptr_t(uintptr(unsafe.Pointer(r)))))
}

// ToThread returns the thread at idx (the zero Thread for other values).
// [go-safe]
func (t Thread) ToThread(idx int) Thread { return Thread{C.zlua_tothread(t.p, C.int(idx))} }

// CoStatus returns the status (Co*) of co as seen from t, the thread
// running now. [go-safe]: it reads co's state without allocating.
func (t Thread) CoStatus(co Thread) int { return int(C.zlua_costatus(t.p, co.p)) }
