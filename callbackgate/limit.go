package callbackgate

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zlua-go/zlua/cgo"
)

// A limited call runs Lua code under a context: a goroutine watching the
// context sets a flag when it is done and signals the call's OS thread,
// whose handler makes the state's hook fire at the next instruction,
// whatever the instruction running then costs (cgo/poke.c); the hook
// raises "interrupted: ..." (cgo/hook.c), and the next growing allocation
// hurries it too. Until the flag is set the call runs with no hook of its
// own (a count hook costs every instruction on Lua 5.4); without the
// signal a count hook checks the flag every 1 to 1000 instructions.
// Env.DoStringContext, Function.CallContext, typed funcs whose first
// parameter is a context.Context and Thread.ResumeContext are limited
// calls.

// limit is one limited call in progress: begun on thread t, watched by a
// goroutine registered with context.AfterFunc. From begin to end the
// calling goroutine is locked to its OS thread, the one the signal goes
// to.
type limit struct {
	g     *Gate
	s     *cgo.State
	t     cgo.Thread
	ctx   context.Context // what Go functions with a context parameter get (CallContext)
	prev  cgo.LimitPrev   // for LimitEnd: the outer call's thread, the OS thread
	done  <-chan struct{} // the context's Done
	stop  func() bool
	marks cgo.Interrupts // the state's marks, for the watcher
	over  bool           // ended, or abandoned with its goroutine
	// ended: end ran to its end (not cut): release may recycle l
	ended bool
	// watch is l.onDone, made once per limit struct (limitPool reuses
	// them: a limited call makes the context's two allocations only)
	watch func()
	// The watcher, once the context is done: watching is Done when it has
	// finished; it sleeps between signals on wake (made then), which quit
	// closes after setting quitting.
	watching sync.WaitGroup
	quitting atomic.Bool
	wake     atomic.Pointer[chan struct{}]
}

// Unlimited reports whether a call under ctx runs without the hook: a nil
// context or one that is never done.
func Unlimited(ctx context.Context) bool { return ctx == nil || ctx.Done() == nil }

// pokeFirst and pokeLast space the watcher's signals: a signal can find
// the call's thread where it cannot act (another Env's limited call runs
// nested on the thread; the thread was between a coroutine's resume and
// naming it the running one), so it is sent again after pokeFirst, then
// at doubling intervals up to pokeLast, and every pokeLast after that
// until the call ends. On Lua 5.4 a limited call has no count hook before
// its context is done (cgo/hook.c, limit_armed): the signals, the
// allocator and the resume paths are what stop plain Lua code.
const (
	pokeFirst = time.Millisecond
	pokeLast  = 64 * time.Millisecond
)

// beginLimit starts a limited call on t under ctx (which can be done):
// the hook is installed (LuaJIT: the compiler is off) and a watcher marks
// the state interrupted when ctx is done, then signals the call's thread.
// The caller is inside an API call and ends the limit with end before it
// returns. The hook is installed before the caller builds its push
// program: beginning a limit runs no Lua code, but the program is built
// after it all the same.
func (g *Gate) beginLimit(ctx context.Context, t cgo.Thread) *limit {
	runtime.LockOSThread() // until end: the signal's thread is this one
	l := limitPool.Get().(*limit)
	l.g, l.s, l.t, l.ctx, l.done = g, g.S, t, ctx, ctx.Done()
	l.prev = l.s.LimitBegin(t)
	l.marks = l.s.Interrupts()
	l.watching.Add(1) // Done by the watcher, or by quit if it never runs
	l.stop = context.AfterFunc(ctx, l.watch)
	liveWatchers.Add(1)
	g.limits = append(g.limits, l)
	return l
}

// limitPool keeps the limits of ended calls for the next ones: release
// puts back a limit whose end ran, when nothing refers to it any more
// (its watcher has finished or will never run).
var limitPool = sync.Pool{New: func() any {
	l := new(limit)
	l.watch = l.onDone
	return l
}}

// onDone is the watcher, run by context.AfterFunc once the context is
// done: it marks the state and signals the call's thread.
func (l *limit) onDone() {
	defer l.watching.Done()
	reason := cgo.InterruptCanceled
	if errors.Is(l.ctx.Err(), context.DeadlineExceeded) {
		reason = cgo.InterruptDeadline
	}
	l.marks.Interrupt(reason)
	l.poke(l.marks)
}

// recycle puts l back in limitPool, cleared: no state, context or gate
// stays reachable from it.
func (l *limit) recycle() {
	watch := l.watch
	*l = limit{}
	l.watch = watch
	limitPool.Put(l)
}

// callCtx is the context a Go function called from Lua gets as its
// context.Context first parameter (ctxparam.go): the one of the innermost
// limited call in progress, or context.Background() when none is. Limited
// calls nest as the Go calls that begin them do, and whatever Lua code
// runs (on any thread: a coroutine resumed by the script or by
// ResumeContext) runs inside all of them, so the last one begun is the
// one in effect. Owner only.
func (g *Gate) callCtx() context.Context {
	if n := len(g.limits); n > 0 {
		return g.limits[n-1].ctx
	}
	return context.Background()
}

// liveWatchers counts the watchers registered and not yet stopped or
// finished (LiveWatchers).
var liveWatchers atomic.Int64

// LiveWatchers returns how many watchers of limited calls are registered
// and not yet stopped or finished: 0 once every limited call has ended or
// been abandoned. For the leak checks of the tests.
func LiveWatchers() int64 { return liveWatchers.Load() }

// poke signals the call's thread until the call ends (see pokeFirst). It
// runs on the watcher's goroutine.
func (l *limit) poke(marks cgo.Interrupts) {
	wake := make(chan struct{})
	l.wake.Store(&wake)
	wait := pokeFirst
	t := time.NewTimer(wait)
	defer t.Stop()
	for !l.quitting.Load() { // else quit has begun and may not have seen wake
		if marks.Poke() == cgo.PokeNever {
			return // the handler is not zlua's, or no thread is known
		}
		select {
		case <-wake:
			return
		case <-t.C:
		}
		wait = min(2*wait, pokeLast)
		t.Reset(wait)
	}
}

// quit stops the watcher and waits until it has finished (it never
// touches the state after that); it reports whether the context was done
// before. The mark, if any, is left. Called once per limit.
func (l *limit) quit() (fired bool) {
	l.quitting.Store(true)
	if w := l.wake.Load(); w != nil {
		close(*w) // the watcher is signalling: it stops
	}
	if l.stop() {
		l.watching.Done() // the watcher will never run
	} else {
		fired = true
		l.watching.Wait()
	}
	liveWatchers.Add(-1)
	return fired
}

// end ends the limited call and reports whether the context was done
// before it ended. The watcher has finished when end returns, so it never
// touches a closed state; its mark is withdrawn.
func (l *limit) end() (fired bool) {
	l.over = true
	if fired = l.quit(); fired {
		l.s.Interrupts().Clear()
	}
	l.s.LimitEnd(l.t, l.prev)
	l.g.dropLimit(l)
	runtime.UnlockOSThread()
	l.ended = true
	return fired
}

// release ends l unless it has ended (or was abandoned): deferred by the
// callers of beginLimit, so that a Go panic between begin and end does
// not leave the watcher registered and the thread naming the call.
func (l *limit) release() {
	if l.over {
		if l.ended {
			l.recycle() // its caller's last use (release is deferred)
		}
		return
	}
	if l.g.unwinding() {
		// A Goexit abandoned the gate under this call and abandonLimits
		// did not see it: touch nothing of the state.
		l.cut()
		l.g.dropLimit(l)
		return
	}
	l.end()
}

// cut ends what l holds in Go when its call will never reach end (a
// Goexit abandoned it): the watcher stops and the goroutine's lock on
// its thread is given back. It touches nothing of the state.
func (l *limit) cut() {
	l.over = true
	l.quit()
	runtime.UnlockOSThread()
}

// dropLimit removes l, which has ended, from the limits in progress (the
// last one: limited calls nest).
func (g *Gate) dropLimit(l *limit) {
	for i := len(g.limits) - 1; i >= 0; i-- {
		if g.limits[i] == l {
			g.limits[i] = nil
			g.limits = append(g.limits[:i], g.limits[i+1:]...)
			return
		}
	}
}

// abandonLimits ends, for a goroutine whose Goexit abandoned the gate,
// what its limited calls in progress hold (those from index from on: the
// ones it began): their watchers are stopped (else a context done later
// would mark and signal a state Close may have freed), the calling thread
// names none of them, and the goroutine is unlocked once per call. It
// runs on the dying goroutine.
func (g *Gate) abandonLimits(from int) {
	if from >= len(g.limits) {
		return
	}
	for i := len(g.limits) - 1; i >= from; i-- {
		l := g.limits[i]
		l.cut()
		g.S.LimitAbandoned(l.prev)
		g.limits[i] = nil
	}
	g.limits = g.limits[:from]
}

// Limited runs f (a protected operation on t) as a limited call under ctx
// and reports whether ctx was done before f returned.
func (g *Gate) Limited(ctx context.Context, t cgo.Thread, f func() int) (st int, fired bool) {
	l := g.beginLimit(ctx, t)
	defer l.release()
	st = f()
	return st, l.end()
}

// CtxResult is the error of a limited call under ctx that returned err.
// Once the context was done during the call (fired), the call ends with
// the context's error even if the script caught every interruption
// (pcall, xpcall, a coroutine) and returned normally. An error while ctx
// is done matches both ctx.Err() and the Lua error, and the context's
// cause (context.WithCancelCause, WithDeadlineCause, WithTimeoutCause)
// where it is another error.
func CtxResult(ctx context.Context, err error, fired bool) error {
	if err == nil && fired {
		err = NewLuaError("interrupted: " + ctx.Err().Error())
	}
	if err != nil && ctx != nil && ctx.Err() != nil {
		e := &ctxError{ctx: ctx.Err(), err: err}
		if c := context.Cause(ctx); c != nil && c != e.ctx {
			e.cause = c
		}
		return e
	}
	return err
}

// ctxError is a limited call stopped because its context was done: it
// matches the context's error, its cause when it has its own and the Lua
// error that stopped the script.
type ctxError struct {
	ctx   error
	cause error // nil when the cause is ctx itself
	err   error
}

// Error is the Lua error's text, which names the interruption unless the
// hook's error was replaced on its way out (LuaJIT reports an error raised
// inside a message handler as "error in error handling"), then the
// context's own cause when it has one: "...: interrupted: context
// canceled (cause: server shutting down)".
func (e *ctxError) Error() string {
	msg := e.err.Error()
	if !strings.Contains(msg, "interrupted: ") {
		msg = "zlua: interrupted: " + e.ctx.Error() + " (" + msg + ")"
	}
	if e.cause != nil {
		msg += " (cause: " + e.cause.Error() + ")"
	}
	return msg
}

// Unwrap gives the context's error, its cause when it has its own and the
// Lua error, for errors.Is and errors.As.
func (e *ctxError) Unwrap() []error {
	if e.cause != nil {
		return []error{e.ctx, e.cause, e.err}
	}
	return []error{e.ctx, e.err}
}

// CtxDone is the error of a call refused because ctx was done before it
// began: nil while ctx is not done (or is nil), else ctx.Err(), joined with the
// context's cause when it has its own (context.WithCancelCause …) so
// that errors.Is matches both.
func CtxDone(ctx context.Context) error {
	if ctx == nil {
		return nil // nil is unlimited (Unlimited)
	}
	err := ctx.Err()
	if err == nil {
		return nil
	}
	if c := context.Cause(ctx); c != nil && c != err {
		return &causeError{err: err, cause: c}
	}
	return err
}

// causeError is a done context's error with its own cause.
type causeError struct{ err, cause error }

// Error is the context's error, then the cause: "context canceled
// (cause: server shutting down)".
func (e *causeError) Error() string { return e.err.Error() + " (cause: " + e.cause.Error() + ")" }

// Unwrap gives the context's error and the cause, for errors.Is and
// errors.As.
func (e *causeError) Unwrap() []error { return []error{e.err, e.cause} }
