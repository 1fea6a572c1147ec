package zlua_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

// errShutdown is the host's reason for stopping scripts in these tests.
var errShutdown = errors.New("server shutting down")

// wantCause checks that err matches the context's error and the cause and
// that its text names the cause last; an interruption (ran is true) is
// also a *LuaError, a call refused before it began is not.
func wantCause(t *testing.T, what string, err, ctxErr error, ran bool) {
	t.Helper()
	var le *zlua.LuaError
	if !errors.Is(err, ctxErr) || !errors.Is(err, errShutdown) || errors.As(err, &le) != ran ||
		strings.Contains(err.Error(), "interrupted: ") != ran ||
		!strings.HasSuffix(err.Error(), "(cause: server shutting down)") {
		t.Fatalf("%s: err = %v, want an error matching %v and the cause (interrupted: %v)", what, err, ctxErr, ran)
	}
}

func TestInterruptionsCarryTheContextsCause(t *testing.T) {
	e := newEnv(t)
	run(t, e, `function spin() while true do end end
		function body() coroutine.yield(1) while true do end end`)

	// cancelled with a cause while the script runs
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(20*time.Millisecond, func() { cancel(errShutdown) })
	wantCause(t, "DoStringContext", e.DoStringContext(ctx, `spin()`), context.Canceled, true)

	// a deadline with its own cause
	dctx, dcancel := context.WithTimeoutCause(context.Background(), 20*time.Millisecond, errShutdown)
	defer dcancel()
	var spin *zlua.Function
	must(t, e.GetFunction("spin", &spin))
	defer spin.Release()
	_, err := spin.CallContext(dctx)
	wantCause(t, "CallContext", err, context.DeadlineExceeded, true)

	// calls under a context cancelled before them run nothing
	var body *zlua.Function
	must(t, e.GetFunction("body", &body))
	defer body.Release()
	th, err := e.NewThread(body)
	must(t, err)
	defer th.Release()
	if _, err := th.Resume(); err != nil {
		t.Fatal(err)
	}
	done, cancelDone := context.WithCancelCause(context.Background())
	cancelDone(errShutdown)
	_, err = th.ResumeContext(done)
	wantCause(t, "ResumeContext, done before", err, context.Canceled, false)
	wantCause(t, "DoStringContext, done before", e.DoStringContext(done, `x = 1`), context.Canceled, false)
	wantCause(t, "SetGlobalContext, done before", e.SetGlobalContext(done, "x", 1), context.Canceled, false)

	// a thread interrupted while it runs
	rctx, rcancel := context.WithCancelCause(context.Background())
	time.AfterFunc(20*time.Millisecond, func() { rcancel(errShutdown) })
	_, err = th.ResumeContext(rctx)
	wantCause(t, "ResumeContext", err, context.Canceled, true)

	// a plain cancel names no cause, and the Env goes on
	plain, cancelPlain := context.WithCancel(context.Background())
	cancelPlain()
	err = e.DoStringContext(plain, `spin()`)
	if !errors.Is(err, context.Canceled) || errors.Is(err, errShutdown) || strings.Contains(err.Error(), "cause:") {
		t.Fatalf("plain cancel: err = %v, want context.Canceled without a cause", err)
	}
	afterInterruption(t, e)
}
