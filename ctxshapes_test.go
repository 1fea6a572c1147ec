package zlua_test

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Go functions with a context first whose other parameters and results
// have one of the common shapes (callbackgate's ctxShapes) are called
// without reflection: each gets the call's context, its arguments
// counted after it, and returns its results and errors as any Go
// function does.

// ID is a named integer type: served by the shapes as int is.
type ID int64

func TestGoFuncContextShapes(t *testing.T) {
	e := newEnv(t)
	var seen []context.Context
	note := func(ctx context.Context) { seen = append(seen, ctx) }
	boom := errors.New("boom")
	fail := func(bad bool) error {
		if bad {
			return boom
		}
		return nil
	}
	fns := map[string]any{
		"c0":    func(ctx context.Context) { note(ctx) },
		"ce":    func(ctx context.Context) error { note(ctx); return boom },
		"ci":    func(ctx context.Context) int { note(ctx); return 7 },
		"cie":   func(ctx context.Context) (ID, error) { note(ctx); return 8, nil },
		"cf":    func(ctx context.Context) float64 { note(ctx); return 1.5 },
		"cb":    func(ctx context.Context) bool { note(ctx); return true },
		"cs":    func(ctx context.Context) string { note(ctx); return "s" },
		"ci_":   func(ctx context.Context, n int) { note(ctx) },
		"ci_e":  func(ctx context.Context, n ID) error { note(ctx); return fail(n < 0) },
		"ci_i":  func(ctx context.Context, n int64) int64 { note(ctx); return n * 2 },
		"ci_ie": func(ctx context.Context, n int) (int, error) { note(ctx); return n + 1, fail(n < 0) },
		"cii_e": func(ctx context.Context, a, b int) error { note(ctx); return fail(a > b) },
		"cii_ie": func(ctx context.Context, a, b int) (int, error) {
			note(ctx)
			return a - b, fail(a < b)
		},
		"cf_":  func(ctx context.Context, x float64) { note(ctx) },
		"cf_e": func(ctx context.Context, x float64) error { note(ctx); return fail(x < 0) },
		"cf_f": func(ctx context.Context, x float64) float64 { note(ctx); return x / 2 },
		"cs_":  func(ctx context.Context, s string) { note(ctx) },
		"cs_e": func(ctx context.Context, s string) error { note(ctx); return fail(s == "") },
		"cs_s": func(ctx context.Context, s string) string { note(ctx); return s + "!" },
		"cs_b": func(ctx context.Context, s string) bool { note(ctx); return s != "" },
	}
	for name, fn := range fns {
		must(t, e.SetGlobal(name, fn))
	}
	chunk := `
		c0() local ok, err = pcall(ce) assert(not ok and err == "boom", tostring(err))
		assert(ci() == 7 and cie() == 8 and cf() == 1.5 and cb() == true and cs() == "s")
		ci_(1) ci_e(1) assert(ci_i(21) == 42 and ci_ie(1) == 2) cii_e(1, 2) assert(cii_ie(5, 2) == 3)
		cf_(1) cf_e(1) assert(cf_f(3) == 1.5) cs_("x") cs_e("x") assert(cs_s("x") == "x!" and cs_b("x"))
		for _, f in ipairs{function() ci_e(-1) end, function() ci_ie(-1) end, function() cii_e(2, 1) end,
				function() cii_ie(1, 2) end, function() cf_e(-1) end, function() cs_e("") end} do
			local ok, err = pcall(f) assert(not ok and err:find("boom$"), tostring(err))
		end`
	const calls = 26
	ctx := limitedCtx(t, "shapes")
	must(t, e.DoStringContext(ctx, chunk))
	if len(seen) != calls {
		t.Fatalf("%d calls seen, want %d", len(seen), calls)
	}
	for i, c := range seen {
		if c != ctx {
			t.Fatalf("call %d got %v, want the DoStringContext ctx", i+1, c)
		}
	}
	seen = seen[:0]
	run(t, e, chunk)
	for i, c := range seen {
		if c != context.Background() {
			t.Fatalf("call %d outside a limited call got %v, want Background", i+1, c)
		}
	}
	// Arguments are counted after the context, for each reader.
	for chunk, want := range map[string]string{
		`ci_({})`:       "bad argument #1 to 'ci_' (number expected, got table)",
		`ci_i(1.5)`:     "bad argument #1 to 'ci_i' (number has no integer representation)",
		`cii_e(1)`:      "bad argument #2 to 'cii_e' (number expected, got no value)",
		`cii_ie(1, {})`: "bad argument #2 to 'cii_ie' (number expected, got table)",
		`cf_f("x")`:     "bad argument #1 to 'cf_f' (number expected, got string)",
		`cs_s()`:        "bad argument #1 to 'cs_s' (string expected, got no value)",
		`cs_b({})`:      "bad argument #1 to 'cs_b' (string expected, got table)",
	} {
		errorWant(t, chunk, doMaybeLimited(e, chunk, true), want)
	}
}

// A context parameter costs the shapes no allocation, inside a limited
// call or not.
func TestGoFuncContextShapesAllocateNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	e := newEnv(t)
	must(t, e.SetGlobal("f", func(ctx context.Context, n int) (int, error) { return n + 1, ctx.Err() }))
	run(t, e, `function loop() for i = 1, 100 do f(i) end end
		function empty() for i = 1, 100 do local _ = i + 1 end end`)
	var loop, empty func(context.Context) error
	must(t, e.GetFunction("loop", &loop))
	must(t, e.GetFunction("empty", &empty))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, c := range []context.Context{context.Background(), ctx} {
		must(t, loop(c))
		base := testing.AllocsPerRun(100, func() { _ = loop(c) })
		// the same loop without the calls: what the Go→Lua call costs
		none := testing.AllocsPerRun(100, func() { _ = empty(c) })
		if base > none {
			t.Errorf("limited=%v: %.1f allocations for 100 calls, %.1f without them", c != context.Background(), base, none)
		}
	}
}

// TestLimitedCallsAllocateOnlyTheContextsWatcher: a limited call's own
// bookkeeping is reused from call to call (callbackgate/limit.go,
// limitPool); what remains are the two allocations context.AfterFunc
// makes to watch the context (4 before: the limit and its watcher's
// closure too).
func TestLimitedCallsAllocateOnlyTheContextsWatcher(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	e := newEnv(t)
	run(t, e, `function f(x) return x end`)
	var f func(context.Context, int) error // a delegate shape of its own
	must(t, e.GetFunction("f", &f))
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	must(t, f(ctx, 1))
	if got := testing.AllocsPerRun(200, func() { _ = f(ctx, 1) }); got > 2 {
		t.Errorf("a limited call allocates %.1f times, want 2 (context.AfterFunc's)", got)
	}
	// the watcher still works on a reused limit
	run(t, e, `function spin() while true do end end`)
	var spin func(context.Context) error
	must(t, e.GetFunction("spin", &spin))
	for i := 0; i < 3; i++ {
		short, stop := context.WithTimeout(context.Background(), 20*time.Millisecond)
		err := spin(short)
		stop()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("spin %d: %v, want the deadline", i, err)
		}
	}
}
