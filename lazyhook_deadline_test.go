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
