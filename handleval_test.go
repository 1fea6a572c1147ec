package zlua_test

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

type byValueHandlers struct {
	OnHit zlua.Function
}

// A handle type used by value (an out, a field, a parameter) is refused
// with the mistake named: a handle lives at the address its Env gave it.
// Before, the message read "Function expected, got function".
func TestHandlesByValueAreRefusedByName(t *testing.T) {
	e := newEnv(t)
	run(t, e, `function hit(n) return n end
		cfg = {OnHit = hit}
		co = coroutine.create(hit)`)
	var f zlua.Function
	var tb zlua.Table
	var th zlua.Thread
	var h byValueHandlers
	for _, c := range []struct {
		name string
		out  any
		want string
	}{
		{"hit", &f, "zlua.Function by value cannot hold a Lua value (use *zlua.Function)"},
		{"cfg", &tb, "zlua.Table by value cannot hold a Lua value (use *zlua.Table)"},
		{"co", &th, "zlua.Thread by value cannot hold a Lua value (use *zlua.Thread)"},
		{"cfg", &h, "cfg.OnHit: zlua.Function by value cannot hold a Lua value (use *zlua.Function)"},
	} {
		if err := e.Global(c.name, c.out); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Global(%q, %T) = %v, want %q", c.name, c.out, err, c.want)
		}
	}
	must(t, e.SetGlobal("register", func(h byValueHandlers) {}))
	run(t, e, `local ok, err = pcall(register, cfg)
		assert(not ok and err:find("bad argument #1 to 'register' (OnHit: zlua.Function by value", 1, true), err)`)
	// an opaque handle reaching a Go any: "an", not "a"
	type hp struct{ HP int }
	run(t, e, `function ret(h) return h end`)
	var ret *zlua.Function
	must(t, e.GetFunction("ret", &ret))
	defer ret.Release()
	_, err := ret.Call(zlua.Opaque(&hp{HP: 2}))
	if err == nil || !strings.Contains(err.Error(), "cannot convert an opaque handle to a Go value") {
		t.Errorf("an opaque handle as a result: %v", err)
	}
}

// DoFile's open and read errors are in the words of Lua's loader, as
// dofile's and require's ("cannot open x: ..."), and still unwrap to the
// file system's error.
func TestDoFileErrorsSayCannotOpen(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	missing := filepath.Join(dir, "nofile.lua")
	err := e.DoFile(missing)
	if err == nil || err.Error() != "zlua: dofile: cannot open "+missing+": no such file or directory" ||
		!errors.Is(err, fs.ErrNotExist) {
		t.Errorf("DoFile of a missing file: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err = e.DoFileContext(ctx, dir)
	if err == nil || !strings.HasPrefix(err.Error(), "zlua: dofile: cannot read "+dir+": ") {
		t.Errorf("DoFileContext of a directory: %v", err)
	}
}

// After Reset, the typed funcs made from a Lua function (GetFunction,
// Table.Method, a func parameter) and a bound resume name the call in
// their refusal, as Function.Call and Thread.Resume do.
func TestTypedFuncsAfterResetNameTheCall(t *testing.T) {
	e := newEnv(t)
	run(t, e, `function tick(dt) return dt end; shop = {buy = function(self, n) return n end}`)
	var fn *zlua.Function
	must(t, e.GetFunction("tick", &fn))
	var tick func(float64) (float64, error)
	must(t, e.GetFunction("tick", &tick))
	var shop *zlua.Table
	must(t, e.Global("shop", &shop))
	var buy func(int) (int, error)
	must(t, shop.Method("buy", &buy))
	var stored func(int) (int, error)
	must(t, e.SetGlobal("keep", func(cb func(int) (int, error)) { stored = cb }))
	run(t, e, `keep(function(n) return n end)`)
	th, err := e.NewThread(fn)
	must(t, err)
	var step func(float64) (float64, error)
	must(t, th.BindResume(&step))
	e.Reset(nil)
	e.Pump()
	const stale = "handle belongs to a reset or closed Env"
	_, err1 := tick(1)
	_, err2 := buy(1)
	_, err3 := stored(1)
	_, err4 := step(1)
	for _, c := range []struct {
		err  error
		want string
	}{
		{err1, `zlua: call "tick": ` + stale},
		{err2, `zlua: call ":buy": ` + stale},
		{err3, `zlua: call "function": ` + stale},
		{err4, `zlua: resume: ` + stale},
	} {
		if c.err == nil || c.err.Error() != c.want || !errors.Is(c.err, zlua.ErrStale) {
			t.Errorf("got %v, want %q", c.err, c.want)
		}
	}
}

// ResumeContext with a context already done resumes nothing: the thread
// stays suspended and continues at the next resume; the error matches
// ctx.Err() and is no *LuaError (as documented).
func TestResumeContextWithADoneContextRunsNothing(t *testing.T) {
	e := newEnv(t)
	run(t, e, `function patrol() local n = 0 while true do n = n + 1 coroutine.yield(n) end end`)
	var patrol *zlua.Function
	must(t, e.GetFunction("patrol", &patrol))
	defer patrol.Release()
	th, err := e.NewThread(patrol)
	must(t, err)
	defer th.Release()
	out, err := th.Resume()
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = th.ResumeContext(ctx)
	var le *zlua.LuaError
	if !errors.Is(err, context.Canceled) || errors.As(err, &le) || th.Done() {
		t.Fatalf("ResumeContext with a done context: %v (done %v)", err, th.Done())
	}
	out2, err := th.Resume()
	must(t, err)
	if len(out) != 1 || len(out2) != 1 || out2[0] != int64(2) && out2[0] != float64(2) {
		t.Errorf("resumes gave %v then %v, want 1 then 2", out, out2)
	}
}
