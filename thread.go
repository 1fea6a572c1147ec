package zlua

import (
	"context"
	"fmt"
	"reflect"

	"github.com/zlua-go/zlua/callbackgate"
	"github.com/zlua-go/zlua/cgo"
)

// Thread is a Lua thread (a coroutine) held by Go, with the lifetime
// rules of [Function]: it keeps the thread alive until Release or until
// Go drops the handle (then the next Pump releases it); its uses fail with
// ErrStale after a Reset or Close and with ErrReleased after Release;
// another Env refuses it. Pushed into its own Env it is the coroutine
// itself, which scripts can resume too.
//
// Resume runs the thread until it yields or returns. Inside it, a Go
// function returning [Yield](values...) yields to the code that resumed
// the thread: to Go when Go resumed it (Resume returns the values, and the
// arguments of the next Resume become the Go function's results in Lua).
// That is how a game loop runs scripts that wait:
//
//	env.SetGlobal("wait", func(seconds float64) error { return zlua.Yield(seconds) })
//	th, _ := env.NewThread(script)
//	out, err := th.Resume() // runs until the script calls wait(2): out is [2]
//
// A Lua thread reaching a Go parameter of type *Thread or any, or read
// with Env.Global, Table.Get or Table.ForEach, becomes a *Thread.
type Thread struct{ h callbackgate.Thread }

// NewThread creates a thread (a coroutine) whose body is fn. It starts
// suspended: the first Resume calls fn with its arguments. fn must be a
// handle of this Env; a method bound with Table.Method runs without its
// receiver. A handle on a callable table or userdata (one GetFunction
// took for its __call) is refused, as coroutine.create refuses one: wrap
// it in a Lua function (function(...) return t(...) end) to run it as a
// thread.
func (e *Env) NewThread(fn *Function) (*Thread, error) {
	if e.g == nil {
		return nil, errUnmade
	}
	if fn == nil {
		return nil, fmt.Errorf("zlua: new thread: %w", errNilHandle)
	}
	var th *callbackgate.Thread
	var terr error
	err := e.protect(func(t cgo.Thread) int {
		th, terr = e.g.CreateThread(t, &fn.h)
		return cgo.OK
	})
	if err == nil {
		err = terr
	}
	if err != nil {
		return nil, opErrorf(err, "new thread")
	}
	return pubThread(th), nil
}

// Resume starts or continues the thread with args (converted like
// SetGlobal values: the function's arguments at the first Resume, then the
// results of the coroutine.yield, or of the Go function returning Yield,
// that suspended it). It returns the values the thread yielded, or its
// results once its function returned; Done then reports true.
//
// A thread that fails returns its error as a *LuaError with the thread's
// message and traceback, and is dead from then on (on Lua 5.4 it is
// closed: its pending to-be-closed variables run, with the error).
// Resuming a dead thread is the Lua error "cannot resume dead coroutine";
// resuming the thread that is running, or one that resumed the running
// one (from a Go function called inside it), is "cannot resume
// non-suspended coroutine". Resume is an Env call: it may be made from a
// Go function Lua called, like DoString.
func (th *Thread) Resume(args ...any) ([]any, error) {
	if th == nil {
		return nil, fmt.Errorf("zlua: resume: %w", errNilHandle)
	}
	out, err := th.h.Resume(nil, args)
	if err != nil && isHandleError(err) {
		return nil, opErrorf(err, "resume")
	}
	return out, err
}

// ResumeContext is Resume under ctx, with the guarantees of
// DoStringContext: the Lua code the thread runs is interrupted within at
// most 1000 instructions once ctx is done, pcall, xpcall and coroutines inside
// it cannot swallow the interruption, and the error matches ctx.Err() and
// *LuaError. The interruption is an error in the thread, which is then
// dead: also when ctx ends while a Go function the thread called runs and
// the thread then yields or returns before the hook's next check (the
// values are dropped). After an interruption no handler code runs: on
// Lua 5.4 the thread's pending to-be-closed variables are closed, but each
// __close handler, a Lua function or a Go one, is stopped at its start by
// the interruption, as in DoStringContext; release Go resources from Go
// after the call, not from __close. A context that ends after the thread's step does not
// change its outcome. A thread created outside a limited call is limited too (Lua 5.4
// hooks each thread when it is resumed). A nil or never-done ctx resumes
// as Resume does. A ctx already done resumes nothing: the thread stays as
// it was (a suspended thread continues at the next resume) and the error,
// "zlua: resume: " and ctx.Err(), matches ctx.Err() but is no *LuaError.
func (th *Thread) ResumeContext(ctx context.Context, args ...any) ([]any, error) {
	if th == nil {
		return nil, fmt.Errorf("zlua: resume: %w", errNilHandle)
	}
	return th.h.Resume(ctx, args)
}

// BindResume sets *fnPtr, a pointer to a func variable, to a func that
// resumes the thread: its arguments are passed like Resume's, the values
// the thread yields (or returns at the end) convert into its results like
// the results of a typed func from GetFunction (a missing value reads as
// nil), and a last error result receives Resume's error (a func without
// one panics with it). It is the allocation-free way to drive a
// coroutine every frame:
//
//	var step func(dt float64) (wait float64, err error)
//	th.BindResume(&step)
//	wait, err := step(1.0 / 60)
//
// Signatures with no parameter or one int, float64 or bool, and no result
// or one int, float64, bool or string (each optionally followed by an
// error) resume in one crossing without allocating; others use
// reflection. A first parameter of type context.Context is not passed to
// the thread: the resume runs under it, as ResumeContext does (a limited
// call when it can end), as a typed func from GetFunction calls. A
// released or copied handle (ErrReleased, ErrCopied) is refused here; a
// handle whose Env was reset or closed since is refused by the func.
func (th *Thread) BindResume(fnPtr any) error {
	if th == nil {
		return fmt.Errorf("zlua: bind resume: %w", errNilHandle)
	}
	rv := reflect.ValueOf(fnPtr)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Func {
		return fmt.Errorf("zlua: bind resume: want a pointer to a func variable, got %T", fnPtr)
	}
	if err := th.h.Usable(); err != nil {
		return opErrorf(err, "bind resume")
	}
	rv.Elem().Set(th.h.MakeResumer(rv.Elem().Type()))
	return nil
}

// Done reports whether the thread can no longer be resumed: its function
// returned or failed, or the handle was released, or its Env was reset or
// closed (or, on LuaJIT, a Resume failed to make room for its arguments
// on the thread's stack, which kills it: see docs/ARCHITECTURE.md). A thread that yielded, or was never resumed, is not done. Call
// it on the Env's goroutine (from another one, while the Env runs Lua
// code, it reports what the last Resume saw).
func (th *Thread) Done() bool { return th == nil || th.h.Done() }

// String names the handle for logs and fmt (and tostring of a Go value
// holding it): zlua.Thread. It shows no address or reference number and
// reads no Lua state, so any goroutine may call it.
func (th *Thread) String() string {
	if th == nil {
		return "zlua.Thread(nil)"
	}
	return "zlua.Thread"
}

// Release releases the thread now; the reference is freed at the next
// Pump (a suspended thread no longer referenced by Lua is then collected,
// as Lua collects an abandoned coroutine: its pending to-be-closed
// variables do not run). Later uses fail with ErrReleased. Idempotent.
func (th *Thread) Release() {
	if th != nil {
		th.h.Release()
	}
}
