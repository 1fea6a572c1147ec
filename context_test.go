package zlua_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

// limitedRun runs chunk under a short deadline and checks that it was
// stopped by it, quickly, and that zlua's hook is gone afterwards.
func limitedRun(t *testing.T, e *zlua.Env, chunk string) {
	t.Helper()
	interrupted(t, e, chunk)
	run(t, e, `assert(debug.gethook() == nil, "hook left behind") after = 1 + 1`)
	if global[int](t, e, "after") != 2 {
		t.Fatal("Env unusable after an interruption")
	}
}

// stopInTime runs each chunk under a 50 ms deadline (interrupted), logs
// its overrun and fails the test for one above 150 ms; after is run, when
// not empty, between chunks.
func stopInTime(t *testing.T, e *zlua.Env, chunks []string, after string) {
	t.Helper()
	stopWithin(t, e, chunks, after, 150*time.Millisecond)
}

// stopWithin is stopInTime with the overrun allowed given.
func stopWithin(t *testing.T, e *zlua.Env, chunks []string, after string, allowed time.Duration) {
	t.Helper()
	for _, chunk := range chunks {
		over := interrupted(t, e, chunk)
		t.Logf("overrun %6.2f ms: %s", float64(over.Microseconds())/1000, chunk)
		if over > allowed {
			t.Errorf("overran the deadline by %v: %s", over, chunk)
		}
		if after != "" {
			run(t, e, after)
		}
	}
}

// interrupted runs chunk under a 50 ms deadline and checks that it was
// stopped by it with the interruption error; it returns how long the call
// ran past the deadline. A call still running 10 s after the deadline
// fails the test (the Env stays busy: its Close in the cleanup fails too).
func interrupted(t *testing.T, e *zlua.Env, chunk string) time.Duration {
	t.Helper()
	var (
		err      error
		deadline time.Time
	)
	// On a loaded machine the context may expire before the chunk starts
	// (DoStringContext then runs nothing): try again.
	for try := 0; try < 5; try++ {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		deadline, _ = ctx.Deadline()
		done := make(chan error, 1)
		go func() { done <- e.DoStringContext(ctx, chunk) }()
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("DoStringContext(%q) still running 10 s after its deadline", chunk)
		}
		cancel()
		if !strings.HasPrefix(fmt.Sprint(err), "zlua: do string: ") {
			break
		}
	}
	overrun := time.Since(deadline)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("DoStringContext(%q) = %v, want DeadlineExceeded", chunk, err)
	}
	var le *zlua.LuaError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "interrupted: context deadline exceeded") {
		t.Errorf("error %v is not the Lua interruption", err)
	}
	return overrun
}

func TestDeadlineStopsInfiniteLoops(t *testing.T) {
	e := newEnv(t)
	for _, chunk := range []string{
		`while true do end`,
		`local x = 0 while true do x = x + 1 end`,
		`for i = 1, math.huge do end`,
		`local function f() return f() end f()`,
		// pcall cannot hold the interruption back
		`while true do pcall(function() while true do end end) end`,
		`while true do pcall(error, "x") end`,
	} {
		limitedRun(t, e, chunk)
	}
}

func TestDeadlineStopsCompiledLoops(t *testing.T) {
	// On LuaJIT spin's loop is compiled by the first, unlimited call;
	// compiled code never runs hooks, so the limited call must not use it.
	e := newEnv(t)
	run(t, e, `function spin(n) local x = 0 for i = 1, n do x = x + i % 3 end return x end
		for i = 1, 50 do spin(1e5) end`)
	limitedRun(t, e, `spin(1e15)`)
	run(t, e, `assert(spin(1e6) > 0) assert(not jit or jit.status(), "JIT left off")`)
}

func TestDeadlineReachesNestedCallsAndCoroutines(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("nested", func(chunk string) error { return e.DoString(chunk) }))
	run(t, e, `
		old = coroutine.create(function() while true do end end)
		paused = coroutine.create(function() coroutine.yield() while true do end end)
		coroutine.resume(paused)
		oldwrap = coroutine.wrap(function() while true do end end)`)
	limitedRun(t, e, `nested("while true do end")`)
	limitedRun(t, e, `local ok, err = coroutine.resume(old) error(err, 0)`)
	limitedRun(t, e, `local ok, err = coroutine.resume(paused) error(err, 0)`)
	limitedRun(t, e, `oldwrap()`)
	limitedRun(t, e, `coroutine.wrap(function() nested("while true do end") end)()`)
}

func TestCancelStopsALoopFromAnotherGoroutine(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	must(t, e.SetGlobal("started", func() { go func() { time.Sleep(10 * time.Millisecond); cancel() }() }))
	err := e.DoStringContext(ctx, `started() while true do end`)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "interrupted: context canceled") {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestDoStringContextRunsNormally(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	must(t, e.SetGlobal("add", func(a, b int) int { return a + b }))
	must(t, e.SetGlobal("wait", func() error { return zlua.Yield(1) }))
	must(t, e.DoStringContext(ctx, `
		x = 0
		for i = 1, 1e5 do x = add(x, 1) end
		local co = coroutine.wrap(function() wait() return "resumed" end)
		co(); y = co()`))
	if x, y := global[int](t, e, "x"), global[string](t, e, "y"); x != 100000 || y != "resumed" {
		t.Errorf("x, y = %d, %q", x, y)
	}
	err := e.DoStringContext(ctx, `error("plain")`)
	var le *zlua.LuaError
	if !errors.As(err, &le) || errors.Is(err, context.DeadlineExceeded) || !strings.HasSuffix(le.Message, "plain") {
		t.Errorf("plain error under a live context = %v", err)
	}
	// A context without Done runs like DoString.
	must(t, e.DoStringContext(context.Background(), `z = 3`))
	// A context already done runs nothing.
	done, stop := context.WithCancel(context.Background())
	stop()
	if err := e.DoStringContext(done, `z = 4`); !errors.Is(err, context.Canceled) {
		t.Errorf("done context: err = %v", err)
	}
	if z := global[int](t, e, "z"); z != 3 {
		t.Errorf("chunk ran under a done context: z = %d", z)
	}
}

func TestInnerDeadlineLeavesOuterCallRunning(t *testing.T) {
	e := newEnv(t)
	var inner error
	must(t, e.SetGlobal("spin", func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		inner = e.DoStringContext(ctx, `while true do end`)
	}))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	must(t, e.DoStringContext(ctx, `spin(); local s = 0 for i = 1, 1e5 do s = s + i end done = s`))
	if !errors.Is(inner, context.DeadlineExceeded) {
		t.Errorf("inner = %v", inner)
	}
	if global[int](t, e, "done") != 5000050000 {
		t.Error("outer call did not finish")
	}
}

func TestCloseRunningCoroutineUnderDeadline(t *testing.T) {
	e := newEnv(t)
	if !strings.HasPrefix(zlua.Backend, "Lua 5.4") {
		t.Skip("to-be-closed variables are Lua 5.4")
	}
	run(t, e, `
		co = coroutine.create(function()
			local guard <close> = setmetatable({}, {__close = function() while true do end end})
			coroutine.yield()
		end)
		coroutine.resume(co)`)
	limitedRun(t, e, `local ok, err = coroutine.close(co) error(err, 0)`)
}

// TestDoStringContextFromAFinalizer: hooks are off inside finalizers on
// both backends, so a limited call made there runs its chunk unlimited
// (LuaJIT also refuses to switch its compiler there; zlua lets it be).
func TestDoStringContextFromAFinalizer(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ran := false
	var got error
	must(t, e.SetGlobal("limited", func() {
		ran = true
		got = e.DoStringContext(ctx, `fromgc = true`)
	}))
	run(t, e, `
		if newproxy then local p = newproxy(true) getmetatable(p).__gc = function() limited() end
		else setmetatable({}, {__gc = function() limited() end}) end
		collectgarbage() collectgarbage()`)
	if !ran {
		t.Fatal("finalizer did not run")
	}
	if got != nil || !global[bool](t, e, "fromgc") {
		t.Errorf("DoStringContext inside __gc: %v", got)
	}
	limitedRun(t, e, `while true do end`) // the Env still limits
}

// TestLimitedCallsLeaveNoWatchers: the goroutine watching each context is
// gone when DoStringContext returns, interrupted or not.
func TestLimitedCallsLeaveNoWatchers(t *testing.T) {
	e := newEnv(t)
	before := runtime.NumGoroutine()
	for i := range 200 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(i%3)*time.Millisecond)
		_ = e.DoStringContext(ctx, `for i = 1, 1e5 do end`)
		cancel()
	}
	for range 100 {
		if runtime.NumGoroutine() <= before {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("goroutines: %d before, %d after", before, runtime.NumGoroutine())
}

// TestInterruptInsideProtectedOperations: the hook raises inside Lua code
// that zlua's own protected operations run (a __newindex reached by
// SetGlobal, a __tostring run by the message handler); each operation
// catches it like any Lua error and the Env keeps its invariants.
func TestInterruptInsideProtectedOperations(t *testing.T) {
	e := newEnv(t)
	var inner error
	must(t, e.SetGlobal("set", func() error {
		inner = e.SetGlobal("trap", 1)
		return inner
	}))
	run(t, e, `
		looping = setmetatable({}, {__tostring = function() while true do end end})
		setmetatable(_G, {__newindex = function(t, k, v) if k == "trap" then while true do end end rawset(t, k, v) end})`)
	limitedRun(t, e, `set()`)
	if inner == nil || !strings.Contains(inner.Error(), "interrupted") {
		t.Errorf("SetGlobal inside the limited call = %v", inner)
	}
	limitedRun(t, e, `error(looping)`)
	run(t, e, `setmetatable(_G, nil)`)
	must(t, e.SetGlobal("trap", 2))
}

// TestCoroutineWrappersMatchTheStandardLibrary compares zlua's resume,
// wrap and close (Lua 5.4) with the stock library's results and messages.
func TestCoroutineWrappersMatchTheStandardLibrary(t *testing.T) {
	if !strings.HasPrefix(zlua.Backend, "Lua 5.4") {
		t.Skip("LuaJIT keeps its own coroutine library")
	}
	want, err := os.ReadFile("testdata/coroutines.golden")
	must(t, err)
	e := newEnv(t)
	must(t, e.DoFile("testdata/coroutines.lua"))
	if got := global[string](t, e, "result") + "\n"; got != string(want) {
		t.Errorf("coroutine library differs from stock Lua 5.4:\n%s\nwant:\n%s", got, want)
	}
}

// TestLimitedCallErrorsKeepTheirTraceback: an error of a limited call
// carries the traceback of where it was raised, as outside limited calls
// (on LuaJIT, switching the compiler back on after the call used to wipe
// the record of it).
func TestLimitedCallErrorsKeepTheirTraceback(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := e.DoStringContext(ctx, "local function inner() error('boom') end\ninner()")
	var le *zlua.LuaError
	if !errors.As(err, &le) {
		t.Fatalf("err = %v, want a *LuaError", err)
	}
	if !strings.Contains(le.Message, "boom") || !strings.Contains(le.Traceback, "stack traceback") ||
		!strings.Contains(le.Traceback, "inner") {
		t.Fatalf("message %q, traceback %q", le.Message, le.Traceback)
	}
}
