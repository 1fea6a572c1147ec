package callbackgate

import (
	"context"
	"errors"
	"strings"

	"github.com/zlua-go/zlua/cgo"
)

// A limited call runs Lua code under a context: the state's count hook
// checks, every 1 to 1000 instructions (about every millisecond), a flag
// that a goroutine watching the context sets when it is done, and raises
// "interrupted: ..." (see cgo/hook.c); once it is set, the next growing
// allocation makes the hook fire at the next instruction.
// Env.DoStringContext, Function.CallContext, typed funcs whose first
// parameter is a context.Context and Thread.ResumeContext are limited
// calls.

// limit is one limited call in progress: begun on thread t, watched by a
// goroutine registered with context.AfterFunc.
type limit struct {
	s     *cgo.State
	t     cgo.Thread
	outer cgo.Thread // the thread an outer limited call runs on
	stop  func() bool
	done  chan struct{}
}

// Unlimited reports whether a call under ctx runs without the hook: a nil
// context or one that is never done.
func Unlimited(ctx context.Context) bool { return ctx == nil || ctx.Done() == nil }

// beginLimit starts a limited call on t under ctx (which can be done):
// the hook is installed (LuaJIT: the compiler is off) and a watcher marks
// the state interrupted when ctx is done. The caller is inside an API call
// and ends the limit with end before it returns. The hook is installed
// before the caller builds its push program: beginning a limit runs no Lua
// code, but the program is built after it all the same.
func (g *Gate) beginLimit(ctx context.Context, t cgo.Thread) *limit {
	l := &limit{s: g.S, t: t, done: make(chan struct{})}
	l.outer = l.s.LimitBegin(t)
	marks := l.s.Interrupts()
	l.stop = context.AfterFunc(ctx, func() {
		reason := cgo.InterruptCanceled
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			reason = cgo.InterruptDeadline
		}
		marks.Interrupt(reason)
		close(l.done)
	})
	return l
}

// end ends the limited call and reports whether the context was done
// before it ended. The watcher has finished when end returns, so it never
// touches a closed state; its mark is withdrawn.
func (l *limit) end() (fired bool) {
	if !l.stop() {
		<-l.done
		l.s.Interrupts().Clear()
		fired = true
	}
	l.s.LimitEnd(l.t, l.outer)
	return fired
}

// Limited runs f (a protected operation on t) as a limited call under ctx
// and reports whether ctx was done before f returned.
func (g *Gate) Limited(ctx context.Context, t cgo.Thread, f func() int) (st int, fired bool) {
	l := g.beginLimit(ctx, t)
	st = f()
	return st, l.end()
}

// CtxResult is the error of a limited call under ctx that returned err.
// Once the context was done during the call (fired), the call ends with
// the context's error even if the script caught every interruption
// (pcall, xpcall, a coroutine) and returned normally. An error while ctx
// is done matches both ctx.Err() and the Lua error.
func CtxResult(ctx context.Context, err error, fired bool) error {
	if err == nil && fired {
		err = NewLuaError("interrupted: " + ctx.Err().Error())
	}
	if err != nil && ctx != nil && ctx.Err() != nil {
		return &ctxError{ctx: ctx.Err(), err: err}
	}
	return err
}

// ctxError is a limited call stopped because its context was done: it
// matches the context's error and the Lua error that stopped the script.
type ctxError struct {
	ctx error
	err error
}

// Error is the Lua error's text, which names the interruption unless the
// hook's error was replaced on its way out (LuaJIT reports an error raised
// inside a message handler as "error in error handling").
func (e *ctxError) Error() string {
	msg := e.err.Error()
	if strings.Contains(msg, "interrupted: ") {
		return msg
	}
	return "zlua: interrupted: " + e.ctx.Error() + " (" + msg + ")"
}

func (e *ctxError) Unwrap() []error { return []error{e.ctx, e.err} }
