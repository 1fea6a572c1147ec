package zlua

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/zlua-go/zlua/cgo"
)

// DoStringContext runs chunk like DoString and stops it when ctx is done:
// a count hook checks, every 1000 Lua instructions, a flag that a
// goroutine watching ctx sets, and raises the Lua error "interrupted:
// context deadline exceeded" (or "... canceled"). Once raised, the error
// is raised again at every instruction, so a script's pcall cannot keep it
// from reaching the caller. The returned error satisfies
// errors.Is(err, ctx.Err()) and errors.As with *LuaError.
//
// Lua code run by nested calls (a Go function that calls DoString, a
// coroutine resumed by the chunk) is limited too. Go code is not: a Go
// function called from the chunk runs to completion and should watch ctx
// itself. Finalizers (__gc) run with hooks disabled on both backends;
// Options.Libs = LibsSafe keeps scripts from defining them. On LuaJIT,
// compiled code never runs hooks, so the JIT compiler is off and compiled
// traces are flushed while a limited call runs; it is switched back on when
// the outermost one returns. A context that is never done (ctx.Done() ==
// nil) runs the chunk as DoString does, without the hook.
func (e *Env) DoStringContext(ctx context.Context, chunk string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("zlua: do string: %w", err)
	}
	if ctx.Done() == nil {
		return e.DoString(chunk)
	}
	err := e.protect(func(t cgo.Thread) int {
		return e.limited(ctx, t, func() int {
			return e.g.S.DoString(t, chunk, doStringName, e.opts.Libs.chunkMode())
		})
	})
	if err != nil && ctx.Err() != nil {
		return &ctxError{ctx: ctx.Err(), err: err}
	}
	return err
}

// limited runs f (a protected operation on t) with the count hook
// installed and a watcher that interrupts it when ctx is done. The watcher
// has finished when limited returns, so it never touches a closed state.
func (e *Env) limited(ctx context.Context, t cgo.Thread, f func() int) int {
	s := e.g.S
	s.LimitBegin(t)
	interrupt, clear := s.Interrupter()
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		reason := cgo.InterruptCanceled
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			reason = cgo.InterruptDeadline
		}
		interrupt(reason)
		close(fired)
	})
	st := f()
	if !stop() {
		<-fired
		clear()
	}
	s.LimitEnd(t)
	return st
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
