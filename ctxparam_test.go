package zlua_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

// Go functions whose first parameter is a context.Context get the
// context of the limited call in progress (C1-F3).

type ctxKey struct{}

// ctxRecorder is a Go function for Lua that notes the context it was
// given and returns the value under ctxKey ("" without one).
type ctxRecorder struct{ got []context.Context }

func (r *ctxRecorder) fn(ctx context.Context) string {
	r.got = append(r.got, ctx)
	s, _ := ctx.Value(ctxKey{}).(string)
	return s
}

// limitedCtx is a context of a minute carrying name under ctxKey.
func limitedCtx(t *testing.T, name string) context.Context {
	ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), ctxKey{}, name), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestGoFuncGetsTheDoStringContext(t *testing.T) {
	e := newEnv(t)
	var r ctxRecorder
	must(t, e.SetGlobal("which", r.fn))
	must(t, e.SetGlobal("slowio", func(ctx context.Context, ms int) (int, error) {
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(time.Duration(ms) * time.Microsecond):
			return ms * 2, nil
		}
	}))
	ctx := limitedCtx(t, "outer")
	must(t, e.DoStringContext(ctx, `got = which() doubled = slowio(500)`))
	if len(r.got) != 1 || r.got[0] != ctx {
		t.Fatalf("contexts seen = %v, want the DoStringContext ctx", r.got)
	}
	if got := global[string](t, e, "got"); got != "outer" {
		t.Errorf("ctx.Value = %q, want outer", got)
	}
	if got := global[int](t, e, "doubled"); got != 1000 {
		t.Errorf("slowio(500) = %d, want 1000", got)
	}
}

func TestGoFuncGetsBackgroundOutsideLimitedCalls(t *testing.T) {
	e := newEnv(t)
	var r ctxRecorder
	must(t, e.SetGlobal("which", r.fn))
	run(t, e, `which()`)
	// A context that is never done makes no limited call: nothing to
	// carry (the documented rule), the Go function gets Background.
	never := context.WithValue(context.Background(), ctxKey{}, "never")
	must(t, e.DoStringContext(never, `which()`))
	// After a limited call has ended, none is in effect again.
	must(t, e.DoStringContext(limitedCtx(t, "over"), `which()`))
	run(t, e, `which()`)
	want := []context.Context{context.Background(), context.Background(), nil, context.Background()}
	if len(r.got) != len(want) {
		t.Fatalf("%d calls seen, want %d", len(r.got), len(want))
	}
	for i, w := range want {
		if w != nil && r.got[i] != w {
			t.Errorf("call %d: ctx = %v, want Background", i+1, r.got[i])
		}
	}
}

// blockUntilDone blocks until ctx is done or a minute passes and
// returns ctx.Err(), as a Go function stopping a slow operation does.
func blockUntilDone(ctx context.Context, what string) (string, error) {
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case <-time.After(time.Minute):
		return what + " done", nil
	}
}

func TestGoFuncSeesTheDeadlinePass(t *testing.T) {
	for _, pcalled := range []bool{false, true} {
		t.Run(fmt.Sprintf("pcall=%v", pcalled), func(t *testing.T) {
			e := newEnv(t)
			must(t, e.SetGlobal("fetch", blockUntilDone))
			chunk := `local s = fetch("x") return s`
			if pcalled { // the script sees the error; the call still ends with the deadline
				chunk = `local ok, err = pcall(fetch, "x") error("caught: " .. tostring(err), 0)`
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
			defer cancel()
			start := time.Now()
			err := e.DoStringContext(ctx, chunk)
			if took := time.Since(start); took > 10*time.Second {
				t.Fatalf("the Go function ran %v: it did not see the deadline", took)
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("err = %v, want it to match context.DeadlineExceeded", err)
			}
			var le *zlua.LuaError
			if !errors.As(err, &le) || !strings.Contains(err.Error(), "context deadline exceeded") {
				t.Fatalf("err = %v, want a *LuaError naming the deadline", err)
			}
			if !pcalled && err.Error() != "zlua: interrupted: context deadline exceeded ((dostring):1: context deadline exceeded)" {
				t.Fatalf("err = %q, want the interruption with the Go function's error", err)
			}
			if pcalled && !strings.Contains(err.Error(), "caught: context deadline exceeded") &&
				!strings.Contains(err.Error(), "interrupted: context deadline exceeded") {
				t.Fatalf("err = %v, want the script's caught error or the interruption", err)
			}
			afterInterruption(t, e)
		})
	}
}

func TestGoFuncSeesCancellation(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("fetch", blockUntilDone))
	cause := errors.New("server shutting down")
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	time.AfterFunc(20*time.Millisecond, func() { cancel(cause) })
	err := e.DoStringContext(ctx, `local s = fetch("x") return s`)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, cause) ||
		!strings.Contains(err.Error(), "context canceled") {
		t.Fatalf("err = %v, want the cancellation with its cause", err)
	}
}

func TestGoFuncGetsTheInnermostContext(t *testing.T) {
	e := newEnv(t)
	var r ctxRecorder
	must(t, e.SetGlobal("which", r.fn))
	run(t, e, `function body() return which() end`)
	var body *zlua.Function
	must(t, e.GetFunction("body", &body))
	defer body.Release()
	var typed func(context.Context) (string, error)
	must(t, e.GetFunction("body", &typed))
	inner, typedCtx := limitedCtx(t, "inner"), limitedCtx(t, "typed")
	must(t, e.SetGlobal("nest", func(ctx context.Context) (string, string, error) {
		out, err := body.CallContext(inner) // Go→Lua→Go under another ctx
		if err != nil {
			return "", "", err
		}
		s, err := typed(typedCtx)
		v, _ := ctx.Value(ctxKey{}).(string)
		return out[0].(string) + "," + s, v, err
	}))
	outer := limitedCtx(t, "outer")
	must(t, e.DoStringContext(outer, `a = which() b, c = nest() d = which()`))
	for name, want := range map[string]string{"a": "outer", "b": "inner,typed", "c": "outer", "d": "outer"} {
		if got := global[string](t, e, name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	// A plain Call inside a limited call keeps the outer context.
	must(t, e.SetGlobal("plain", func() (string, error) {
		out, err := body.Call()
		if err != nil {
			return "", err
		}
		return out[0].(string), nil
	}))
	must(t, e.DoStringContext(outer, `p = plain()`))
	if got := global[string](t, e, "p"); got != "outer" {
		t.Errorf("plain Call inside the outer call: %q, want outer", got)
	}
	// A typed func's own context.
	out, err := body.CallContext(inner)
	must(t, err)
	if out[0] != "inner" {
		t.Errorf("CallContext: %v, want inner", out[0])
	}
}

func TestGoFuncInCoroutineGetsTheResumeContext(t *testing.T) {
	e := newEnv(t)
	var r ctxRecorder
	must(t, e.SetGlobal("which", r.fn))
	run(t, e, `function loop() while true do coroutine.yield(which()) end end`)
	var loop *zlua.Function
	must(t, e.GetFunction("loop", &loop))
	defer loop.Release()
	th, err := e.NewThread(loop)
	must(t, err)
	defer th.Release()
	resumed := func(out []any, err error) string {
		t.Helper()
		must(t, err)
		return out[0].(string)
	}
	if got := resumed(th.ResumeContext(limitedCtx(t, "first"))); got != "first" {
		t.Errorf("ResumeContext: %q, want first", got)
	}
	if got := resumed(th.Resume()); got != "" {
		t.Errorf("Resume after ResumeContext: %q, want Background's", got)
	}
	// Resumed from a Go function of a script run under another context:
	// with its own, then with none (the script's is in effect).
	must(t, e.SetGlobal("step", func(own bool) (string, error) {
		if own {
			out, err := th.ResumeContext(limitedCtx(t, "co"))
			return fmt.Sprint(out[0]), err
		}
		out, err := th.Resume()
		return fmt.Sprint(out[0]), err
	}))
	// The script's own coroutine, resumed by Lua, runs under the script's.
	must(t, e.DoStringContext(limitedCtx(t, "script"), `
		a, b = step(true), step(false)
		local co = coroutine.wrap(loop)
		c = co()
		d = which()`))
	for name, want := range map[string]string{"a": "co", "b": "script", "c": "script", "d": "script"} {
		if got := global[string](t, e, name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	// A resumer bound with BindResume and a context parameter.
	var resume func(context.Context) (string, error)
	must(t, th.BindResume(&resume))
	if got, err := resume(limitedCtx(t, "bound")); err != nil || got != "bound" {
		t.Errorf("bound resumer: %q, %v, want bound", got, err)
	}
}

// Sleeper's methods take the call's context first.
type Sleeper struct{ seen context.Context }

func (s *Sleeper) Nap(ctx context.Context, ms int) (string, error) {
	s.seen = ctx
	return blockUntilDoneFor(ctx, ms)
}

func (s *Sleeper) Count(ctx context.Context, sep string, n ...int) string {
	s.seen = ctx
	return fmt.Sprint(sep, n)
}

func (s *Sleeper) Tag(ctx context.Context, n int, tag string) string {
	s.seen = ctx
	return fmt.Sprint(n, " ", tag)
}

// blockUntilDoneFor is blockUntilDone for at most ms milliseconds.
func blockUntilDoneFor(ctx context.Context, ms int) (string, error) {
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case <-time.After(time.Duration(ms) * time.Millisecond):
		return "rested", nil
	}
}

// Stamp is a struct value whose value method takes the context first.
type Stamp struct{ N int }

func (s Stamp) Label(ctx context.Context, prefix string) string {
	v, _ := ctx.Value(ctxKey{}).(string)
	return fmt.Sprint(prefix, s.N, v)
}

func TestGoMethodGetsTheCallContext(t *testing.T) {
	e := newEnv(t)
	s := &Sleeper{}
	must(t, e.SetGlobal("s", s))
	must(t, e.SetGlobal("st", Stamp{N: 7}))
	ctx := limitedCtx(t, "m")
	must(t, e.DoStringContext(ctx, `a = s:Nap(1) b = s:Count("/", 1, 2) c = st:Label("#") d = s:Tag("0x10", "0x10")`))
	if s.seen != ctx {
		t.Errorf("method saw %v, want the DoStringContext ctx", s.seen)
	}
	for name, want := range map[string]string{"a": "rested", "b": "/[1 2]", "c": "#7m", "d": "16 0x10"} {
		if got := global[string](t, e, name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	run(t, e, `s:Nap(0)`)
	if s.seen != context.Background() {
		t.Errorf("method outside a limited call saw %v, want Background", s.seen)
	}
	// A deadline passing while the method blocks.
	short, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	err := e.DoStringContext(short, `s:Nap(60000)`)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "context deadline exceeded") {
		t.Fatalf("err = %v, want the deadline", err)
	}
	// Argument errors count from the parameter after the context.
	for chunk, want := range map[string]string{
		`s:Nap("x")`:           "bad argument #1 to 'Sleeper:Nap' (number expected, got string)",
		`s:Nap()`:              "bad argument #1 to 'Sleeper:Nap' (number expected, got no value)",
		`s:Count("/", 1, "x")`: "bad argument #3 to 'Sleeper:Count' (number expected, got string)",
		`st:Label({})`:         "bad argument #1 to 'Stamp:Label' (string expected, got table)",
	} {
		errorWant(t, chunk, doMaybeLimited(e, chunk, true), want)
		errorWant(t, chunk, e.DoString(chunk), want)
	}
}

func TestGoFuncArgumentsCountAfterTheContext(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("f", func(ctx context.Context, n int, s string) string {
		return fmt.Sprintf("%v %d %s", ctx != nil, n, s)
	}))
	must(t, e.SetGlobal("v", func(ctx context.Context, sep string, n ...float64) string {
		return fmt.Sprintf("%v %s %v", ctx != nil, sep, n)
	}))
	must(t, e.SetGlobal("g", func(n int, ctx context.Context) int { return n }))
	for _, limited := range []bool{false, true} {
		// A numeric string stays a string: the trampoline's number hints
		// are those of the parameters after the context.
		must(t, doMaybeLimited(e, `a = f(1, "x") b = v("/") c = v("/", 1.5, 2) d = f("0x10", "0x10")`, limited))
		for name, want := range map[string]string{"a": "true 1 x", "b": "true / []", "c": "true / [1.5 2]", "d": "true 16 0x10"} {
			if got := global[string](t, e, name); got != want {
				t.Errorf("limited=%v: %s = %q, want %q", limited, name, got, want)
			}
		}
		for chunk, want := range map[string]string{
			`f("x", "y")`:    "bad argument #1 to 'f' (number expected, got string)",
			`f()`:            "bad argument #1 to 'f' (number expected, got no value)",
			`f(1)`:           "bad argument #2 to 'f' (string expected, got no value)",
			`f(1, {})`:       "bad argument #2 to 'f' (string expected, got table)",
			`v()`:            "bad argument #1 to 'v' (string expected, got no value)",
			`v("/", 1, "x")`: "bad argument #3 to 'v' (number expected, got string)",
			// A context parameter anywhere but first is an ordinary
			// argument, which Lua has none to give.
			`g(1, 2)`: "bad argument #2 to 'g' (Context expected, got number)",
		} {
			errorWant(t, chunk, doMaybeLimited(e, chunk, limited), want)
		}
	}
}
