package zlua_test

import (
	"context"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

// wantInterrupted checks that err is a deadline interruption: it matches
// context.DeadlineExceeded and *LuaError and names the interruption.
func wantInterrupted(t *testing.T, what string, err error) {
	t.Helper()
	var le *zlua.LuaError
	if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &le) ||
		!strings.Contains(err.Error(), "interrupted: context deadline exceeded") {
		t.Fatalf("%s: err = %v, want the deadline interruption", what, err)
	}
}

// afterInterruption checks that the Env runs code normally, unhooked.
func afterInterruption(t *testing.T, e *zlua.Env) {
	t.Helper()
	run(t, e, `assert(debug.gethook() == nil, "hook left behind") after = 1 + 1`)
	if global[int](t, e, "after") != 2 {
		t.Fatal("Env unusable after an interruption")
	}
}

func TestCallContextReturnsResultsLikeCall(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("wait", func() error { return zlua.Yield() }))
	run(t, e, `function add(a, b) local s = 0 for i = 1, 1e5 do s = s + 1 end return a + b, s, {k = "v"} end
		function fails(x) error("bad " .. x, 0) end`)
	var add, fails *zlua.Function
	must(t, e.GetFunction("add", &add))
	defer add.Release()
	must(t, e.GetFunction("fails", &fails))
	defer fails.Release()
	for _, ctx := range []context.Context{nil, context.Background(), func() context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		t.Cleanup(cancel)
		return ctx
	}()} {
		out, err := add.CallContext(ctx, 40, 2)
		must(t, err)
		if want := []any{int64(42), int64(100000), map[string]any{"k": "v"}}; !reflect.DeepEqual(out, want) {
			t.Errorf("CallContext = %#v, want %#v", out, want)
		}
		// A plain error is not attributed to the context.
		_, err = fails.CallContext(ctx, "input")
		le := errorWant(t, "failing call", err, "bad input")
		if errors.Is(err, context.DeadlineExceeded) {
			t.Error("plain error matches the deadline")
		}
		if !strings.Contains(le.Traceback, "in function 'error'") || !strings.Contains(le.Traceback, "(dostring):2:") {
			t.Errorf("traceback of a failed call:\n%s", le.Traceback)
		}
		afterInterruption(t, e)
	}
	// A context already done calls nothing.
	run(t, e, `calls = 0 function count() calls = calls + 1 end`)
	var count *zlua.Function
	must(t, e.GetFunction("count", &count))
	defer count.Release()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := count.CallContext(ctx); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), `zlua: call "count"`) {
		t.Errorf("CallContext under a done context: %v", err)
	}
	var typed func(context.Context) error
	must(t, e.GetFunction("count", &typed))
	if err := typed(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("typed func under a done context: %v", err)
	}
	if n := global[int](t, e, "calls"); n != 0 {
		t.Errorf("a done context ran the function %d times", n)
	}
}

func TestCallContextStopsAtTheDeadline(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("nested", func(chunk string) error { return e.DoString(chunk) }))
	run(t, e, `function spin() while true do end end
		function swallow() while true do pcall(spin) end end
		function caught() pcall(spin) return "caught" end
		function viaco() return coroutine.resume(coroutine.create(spin)) end
		function vianested() nested("while true do end") end
		old = coroutine.create(spin)
		function oldco() return coroutine.resume(old) end`)
	for _, name := range []string{"spin", "swallow", "caught", "viaco", "vianested", "oldco"} {
		var fn *zlua.Function
		must(t, e.GetFunction(name, &fn))
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		out, err := fn.CallContext(ctx)
		cancel()
		fn.Release()
		wantInterrupted(t, name, err)
		if out != nil {
			t.Errorf("%s: interrupted call returned %v", name, out)
		}
		afterInterruption(t, e)
	}
}

// TestContextFirstTypedFuncsRunUnderTheirContext: a typed func whose first
// parameter is a context.Context passes the rest to Lua and runs as a
// limited call, on the allocation-free signatures and the reflect path,
// bound by GetFunction, Table.Method and received by a Go parameter.
func TestContextFirstTypedFuncsRunUnderTheirContext(t *testing.T) {
	e := newEnv(t)
	run(t, e, `function update(dt) if dt < 0 then while true do end end last = dt end
		function named(n, s) if n < 0 then while true do end end return s:rep(n), n * 2 end
		Mod = {scale = 3}
		function Mod:tick(dt) if dt < 0 then while true do end end return dt * self.scale end`)
	var (
		fNum   func(context.Context, float64) error
		fInt   func(context.Context, int) error
		fStr   func(context.Context, string) error
		fNone  func(context.Context) error
		fMulti func(context.Context, int, string) (string, int, error)
		fPanic func(context.Context, int, string) (string, int)
		method func(context.Context, float64) (float64, error)
	)
	must(t, e.GetFunction("update", &fNum))
	must(t, e.GetFunction("update", &fInt))
	must(t, e.GetFunction("update", &fStr))
	must(t, e.GetFunction("update", &fNone))
	must(t, e.GetFunction("named", &fMulti))
	must(t, e.GetFunction("named", &fPanic))
	var mod *zlua.Table
	must(t, e.Global("Mod", &mod))
	defer mod.Release()
	must(t, mod.Method("tick", &method))
	var fromLua func(context.Context, float64) error
	must(t, e.SetGlobal("take", func(f func(context.Context, float64) error) { fromLua = f }))
	run(t, e, `take(update)`)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	must(t, fNum(ctx, 0.5))
	if got := global[float64](t, e, "last"); got != 0.5 {
		t.Errorf("last = %v after fNum", got)
	}
	must(t, fInt(ctx, 3))
	must(t, fromLua(nil, 1.5))
	if got := global[float64](t, e, "last"); got != 1.5 {
		t.Errorf("last = %v after the func received from Lua", got)
	}
	if err := fStr(ctx, "x"); err == nil || !strings.Contains(err.Error(), "attempt to compare") {
		t.Errorf("fStr: %v", err)
	}
	if err := fNone(ctx); err == nil || !strings.Contains(err.Error(), "attempt to compare") {
		t.Errorf("fNone: %v", err)
	}
	s, n, err := fMulti(ctx, 2, "ab")
	if err != nil || s != "abab" || n != 4 {
		t.Errorf("fMulti = %q, %d, %v", s, n, err)
	}
	if v, err := method(ctx, 2); err != nil || v != 6 {
		t.Errorf("method = %v, %v", v, err)
	}

	short := func() context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		t.Cleanup(cancel)
		return ctx
	}
	wantInterrupted(t, "fNum", fNum(short(), -1))
	wantInterrupted(t, "fInt", fInt(short(), -1))
	wantInterrupted(t, "fromLua", fromLua(short(), -1))
	_, _, err = fMulti(short(), -1, "x")
	wantInterrupted(t, "fMulti", err)
	_, err = method(short(), -1)
	wantInterrupted(t, "method", err)
	func() {
		defer func() {
			err, _ := recover().(error)
			wantInterrupted(t, "func without an error result", err)
		}()
		fPanic(short(), -1, "x")
		t.Error("fPanic returned")
	}()
	afterInterruption(t, e)

	// Bad arguments are reported, the Lua function never called.
	var fAny func(context.Context, any) error
	must(t, e.GetFunction("update", &fAny))
	if err := fAny(ctx, complex(1, 2)); !errors.Is(err, zlua.ErrCannotPush) {
		t.Errorf("unpushable argument: %v", err)
	}
}

func TestCallContextHandleErrors(t *testing.T) {
	e := newEnv(t)
	run(t, e, `function f(...) return ... end`)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var nilFn *zlua.Function
	if _, err := nilFn.CallContext(ctx); err == nil {
		t.Error("nil *Function called")
	}
	var fn *zlua.Function
	must(t, e.GetFunction("f", &fn))
	other := newEnv(t)
	run(t, other, `function g() end`)
	var ofn *zlua.Function
	must(t, other.GetFunction("g", &ofn))
	defer ofn.Release()
	if _, err := fn.CallContext(ctx, ofn); err == nil || !strings.Contains(err.Error(), "function handle of another Env") {
		t.Errorf("another Env's handle as an argument: %v", err)
	}
	if _, err := fn.CallContext(ctx, complex(1, 2)); !errors.Is(err, zlua.ErrCannotPush) || !strings.Contains(err.Error(), "argument #1") {
		t.Errorf("unpushable argument: %v", err)
	}
	afterInterruption(t, e)
	fn.Release()
	if _, err := fn.CallContext(ctx); !errors.Is(err, zlua.ErrReleased) {
		t.Errorf("released: %v", err)
	}
	must(t, e.GetFunction("f", &fn))
	var typed func(context.Context, int) error
	must(t, e.GetFunction("f", &typed))
	e.Reset(nil)
	must(t, e.Pump())
	if _, err := fn.CallContext(ctx); !errors.Is(err, zlua.ErrStale) {
		t.Errorf("stale after Reset: %v", err)
	}
	if err := typed(ctx, 1); !errors.Is(err, zlua.ErrStale) {
		t.Errorf("typed func stale after Reset: %v", err)
	}
}

func TestResumeContextStopsAThread(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("wait", func() error { return zlua.Yield("waiting") }))
	run(t, e, `function spin() while true do end end
		function later() wait() spin() end
		function swallow() while true do pcall(spin) end end
		function viaco() local ok, err = coroutine.resume(coroutine.create(spin)) return "swallowed", err end
		function caughtyield() pcall(spin) wait() return "finished" end`)
	for _, name := range []string{"spin", "later", "swallow", "viaco"} {
		th := newThread(t, e, name)
		if name == "later" { // created and suspended before the limited call
			resumeWant(t, th, nil, "waiting")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		out, err := th.ResumeContext(ctx)
		cancel()
		wantInterrupted(t, name, err)
		if out != nil {
			t.Errorf("%s: interrupted resume returned %v", name, out)
		}
		if !th.Done() {
			t.Errorf("%s: interrupted thread not done", name)
		}
		afterInterruption(t, e)
	}
	// A thread cannot catch the interruption for good: the hook raises it
	// again at the next instruction after pcall, so the thread dies.
	th := newThread(t, e, "caughtyield")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	_, err := th.ResumeContext(ctx)
	cancel()
	wantInterrupted(t, "caughtyield", err)
	if !th.Done() {
		t.Error("a thread that caught the interruption is not done")
	}

	// Under a context that never fires the thread runs normally, with
	// its yields.
	ctx, cancel = context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run(t, e, `function steps() wait() return "end" end`)
	th = newThread(t, e, "steps")
	out, err := th.ResumeContext(ctx)
	if err != nil || !reflect.DeepEqual(out, []any{"waiting"}) {
		t.Errorf("ResumeContext = %v, %v", out, err)
	}
	out, err = th.ResumeContext(ctx)
	if err != nil || !reflect.DeepEqual(out, []any{"end"}) || !th.Done() {
		t.Errorf("ResumeContext = %v, %v, done %v", out, err, th.Done())
	}
	// A done context resumes nothing.
	th = newThread(t, e, "steps")
	done, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if _, err := th.ResumeContext(done); !errors.Is(err, context.Canceled) || th.Done() {
		t.Errorf("ResumeContext(done) = %v, done %v", err, th.Done())
	}
	resumeWant(t, th, nil, "waiting")
}

// TestDeadlineOfAnOuterCallReachesAGoResumedThread: a thread resumed by a
// Go function inside a limited call is limited by that call's context.
func TestDeadlineOfAnOuterCallReachesAGoResumedThread(t *testing.T) {
	e := newEnv(t)
	run(t, e, `function spin() while true do end end`)
	th := newThread(t, e, "spin")
	must(t, e.SetGlobal("step", func() error { _, err := th.Resume(); return err }))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	wantInterrupted(t, "outer DoStringContext", e.DoStringContext(ctx, `pcall(step) while true do end`))
	if !th.Done() {
		t.Error("interrupted thread not done")
	}
	afterInterruption(t, e)
}

func TestLimitedGoCallsLeaveNoWatchers(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("wait", func() error { return zlua.Yield() }))
	run(t, e, `function f(n) for i = 1, n do end end function body() while true do wait() end end`)
	var fn *zlua.Function
	must(t, e.GetFunction("f", &fn))
	defer fn.Release()
	th := newThread(t, e, "body")
	before := runtime.NumGoroutine()
	for i := 0; i < 200; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(i%3)*time.Millisecond)
		fn.CallContext(ctx, 1e4)
		th.ResumeContext(ctx)
		cancel()
	}
	for deadline := time.Now().Add(2 * time.Second); runtime.NumGoroutine() > before && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after 200 limited calls, %d before", n, before)
	}
}

// TestDeadlineOverrunsOfCallsAndThreads logs how long CallContext, a
// context-first typed func and ResumeContext run past a 50 ms deadline
// (RELIABILITY.md quotes them; run with -count=30 -v).
func TestDeadlineOverrunsOfCallsAndThreads(t *testing.T) {
	e, err := zlua.New(zlua.Options{Libs: zlua.LibsSafe})
	must(t, err)
	defer e.Close()
	must(t, e.SetGlobal("wait", func() error { return zlua.Yield() }))
	run(t, e, `function spin() while true do end end
		function swallow() while true do pcall(spin) end end
		function waitspin() wait() while true do pcall(coroutine.wrap(spin)) end end`)
	get := func(name string) *zlua.Function {
		var fn *zlua.Function
		must(t, e.GetFunction(name, &fn))
		t.Cleanup(fn.Release)
		return fn
	}
	var typed func(context.Context) error
	must(t, e.GetFunction("swallow", &typed))
	for _, p := range []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"CallContext spin", func(ctx context.Context) error { _, err := get("spin").CallContext(ctx); return err }},
		{"func(ctx) swallow", typed},
		{"ResumeContext waitspin", func(ctx context.Context) error {
			th, err := e.NewThread(get("waitspin"))
			must(t, err)
			defer th.Release()
			if _, err := th.Resume(); err != nil {
				return err
			}
			_, err = th.ResumeContext(ctx)
			return err
		}},
	} {
		var (
			err     error
			overrun time.Duration
		)
		// On a loaded machine the context may expire before the call
		// starts (it then runs nothing, without a *LuaError): try again.
		for try := 0; try < 5; try++ {
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			deadline, _ := ctx.Deadline()
			err = p.call(ctx)
			overrun = time.Since(deadline)
			cancel()
			if errors.As(err, new(*zlua.LuaError)) {
				break
			}
		}
		wantInterrupted(t, p.name, err)
		t.Logf("overrun %6.2f ms: %s", float64(overrun.Microseconds())/1000, p.name)
	}
}
