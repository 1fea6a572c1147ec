package zlua_test

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A limited call has no count hook until its context is done (cgo/hook.c,
// limit_armed): the watcher's signal must then find the thread the script
// runs on, whichever coroutine that is. These loops neither allocate nor
// leave Lua for long, so nothing else stops them.
func TestLazyHookStopsLoopsOnEveryThread(t *testing.T) {
	e := newEnv(t)
	if err := e.SetGlobal("add", func(a, b int) int { return a + b }); err != nil {
		t.Fatal(err)
	}
	stopInTime(t, e, []string{
		// a coroutine that yields back at once, resumed forever: the
		// running thread changes at every instruction or two
		`local co = coroutine.wrap(function() while true do coroutine.yield() end end)
		 while true do co() end`,
		// the same through coroutine.resume, the loop in the coroutine
		`local co = coroutine.create(function() while true do for i = 1, 100 do end coroutine.yield() end end)
		 while true do coroutine.resume(co) end`,
		// the loop five coroutines deep
		`local function nest(n) if n == 0 then while true do end end coroutine.wrap(nest)(n - 1) end
		 nest(5)`,
		// a Go call in the loop: the signal may come while Go runs
		`local s = 0 while true do s = add(s, 1) end`,
		// caught and resumed: every catch must meet the hook again
		`local co = coroutine.wrap(function() while true do pcall(function() while true do end end) end end)
		 co()`,
	}, "")
}

// A limited call of another Env nested inside this one's (a Go function
// runs it) holds the thread's signal while it runs: when it returns after
// this call's context is done, this call stops at its next instruction.
func TestLazyHookOuterCallStopsAfterANestedEnvsCall(t *testing.T) {
	outer, inner := newEnv(t), newEnv(t)
	if err := outer.SetGlobal("other", func() {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		err := inner.DoStringContext(ctx, `while true do end`)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("the nested Env's call: %v, want its deadline", err)
		}
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := outer.DoStringContext(ctx, `other() while true do end`)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("outer call: %v, want its deadline", err)
	}
	// the nested call alone lasts 100 ms
	if d := time.Since(start); d > 400*time.Millisecond {
		t.Errorf("the outer call ended %v after it began, want soon after the nested one's 100 ms", d)
	}
	run(t, outer, `assert(true)`) // still usable
}

// Env A's code running under a limited call of another Env B on the same
// OS thread (A's limited call → Go → B's limited call → Go → a plain call
// into A): the signal's handler must hurry A, not only B, the innermost
// (outside probe D1-F1: it hung whatever B's context was).
func TestLazyHookReachesAnEnvUnderAnotherEnvsLimitedCall(t *testing.T) {
	for _, c := range []struct {
		name string
		ctxB func(ctxA context.Context) (context.Context, context.CancelFunc)
	}{
		{"same context", func(ctxA context.Context) (context.Context, context.CancelFunc) {
			return ctxA, func() {}
		}},
		{"a later deadline", func(context.Context) (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 3*time.Second)
		}},
		{"a context never done", func(context.Context) (context.Context, context.CancelFunc) {
			return context.WithCancel(context.Background())
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, b := newEnv(t), newEnv(t)
			must(t, b.SetGlobal("backA", func() error { return a.DoString(`while true do end`) }))
			must(t, a.SetGlobal("intoB", func(ctx context.Context) error {
				ctxB, cancel := c.ctxB(ctx)
				defer cancel()
				return b.DoStringContext(ctxB, `backA()`)
			}))
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			done := make(chan error, 1)
			start := time.Now()
			go func() { done <- a.DoStringContext(ctx, `intoB()`) }()
			select {
			case err := <-done:
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("A's call: %v, want its deadline", err)
				}
				if d := time.Since(start); d > time.Second {
					t.Errorf("A's call ended %v after it began, want soon after its 50 ms", d)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("A's call still running 10 s after its deadline")
			}
			run(t, a, `assert(true)`)
			run(t, b, `assert(true)`)
		})
	}
}
