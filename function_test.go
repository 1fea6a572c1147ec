package zlua_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

func TestGetFunctionSignatures(t *testing.T) {
	e := newEnv(t)
	run(t, e, `
		function add(a, b) return a + b end
		function scale(x, k) return x * k end
		function greet(name) return "hi " .. name end
		function flags(a, b) return a and b, not a end
		function multi() return 1, "two", 3.5 end
		function sum(...) local s = 0 for _, v in ipairs({...}) do s = s + v end return s end
		function fail(msg) error(msg) end
		function nothing() end
		function tbl() return {1, 2, 3}, {x = 1} end
	`)
	var add func(int, int) (int, error)
	must(t, e.GetFunction("add", &add))
	if v, err := add(40, 2); v != 42 || err != nil {
		t.Errorf("add = %d, %v", v, err)
	}
	var addNoErr func(int, int) int
	must(t, e.GetFunction("add", &addNoErr))
	if v := addNoErr(1, 2); v != 3 {
		t.Errorf("add (no error result) = %d", v)
	}
	var scale func(float64, float64) float64
	must(t, e.GetFunction("scale", &scale))
	if v := scale(1.5, 3); v != 4.5 {
		t.Errorf("scale = %v", v)
	}
	var greet func(string) (string, error)
	must(t, e.GetFunction("greet", &greet))
	if v, err := greet("orc"); v != "hi orc" || err != nil {
		t.Errorf("greet = %q, %v", v, err)
	}
	var flags func(bool, bool) (bool, bool)
	must(t, e.GetFunction("flags", &flags))
	if a, b := flags(true, false); a || b {
		t.Errorf("flags = %v, %v", a, b)
	}
	var multi func() (int, string, float64, error)
	must(t, e.GetFunction("multi", &multi))
	if a, b, c, err := multi(); a != 1 || b != "two" || c != 3.5 || err != nil {
		t.Errorf("multi = %v %v %v %v", a, b, c, err)
	}
	var sum func(...int) (int, error)
	must(t, e.GetFunction("sum", &sum))
	if v, err := sum(1, 2, 3, 4); v != 10 || err != nil {
		t.Errorf("sum(variadic) = %d, %v", v, err)
	}
	var tbl func() ([]int, map[string]int, error)
	must(t, e.GetFunction("tbl", &tbl))
	if s, m, err := tbl(); len(s) != 3 || m["x"] != 1 || err != nil {
		t.Errorf("tbl = %v %v %v", s, m, err)
	}

	var fail func(string) error
	must(t, e.GetFunction("fail", &fail))
	err := fail("no mana")
	var le *zlua.LuaError
	if !errors.As(err, &le) || !strings.HasSuffix(le.Message, "no mana") || !strings.Contains(le.Traceback, "stack traceback") {
		t.Errorf("fail: err = %#v", err)
	}
	var failPanics func(string)
	must(t, e.GetFunction("fail", &failPanics))
	func() {
		defer func() {
			r := recover()
			if pe, ok := r.(error); !ok || !errors.As(pe, &le) {
				t.Errorf("a func without error result panicked with %v, want *LuaError", r)
			}
		}()
		failPanics("boom")
	}()
	var nothing func() (int, error)
	must(t, e.GetFunction("nothing", &nothing))
	if _, err := nothing(); err == nil || !strings.Contains(err.Error(), `zlua: call "nothing": result #1: number expected, got nil`) {
		t.Errorf("missing result: %v", err)
	}
	var untyped *zlua.Function
	must(t, e.GetFunction("multi", &untyped))
	out, err := untyped.Call()
	if err != nil || len(out) != 3 || out[0] != int64(1) || out[1] != "two" || out[2] != 3.5 {
		t.Errorf("Call = %#v, %v", out, err)
	}
}

func TestGetFunctionErrors(t *testing.T) {
	e := newEnv(t)
	run(t, e, `notfn = 5`)
	var f func()
	for _, c := range []struct {
		name string
		ptr  any
		want string
	}{
		{"missing", &f, `zlua: get function "missing": function expected, got nil`},
		{"notfn", &f, `zlua: get function "notfn": function expected, got number`},
		{"print", f, `want a pointer to a func variable`},
		{"print", new(int), `want a pointer to a func variable`},
	} {
		if err := e.GetFunction(c.name, c.ptr); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("GetFunction(%q, %T) = %v, want %q", c.name, c.ptr, err, c.want)
		}
	}
	run(t, e, `function id(x) return x end`)
	var id func(complex128) error
	must(t, e.GetFunction("id", &id))
	if err := id(1i); err == nil || !strings.Contains(err.Error(), "argument #1: cannot push Go value of type complex128") {
		t.Errorf("unsupported argument: %v", err)
	}
}

func TestLuaFunctionsBecomeGoFuncs(t *testing.T) {
	e := newEnv(t)
	var handlers []func(string) error
	must(t, e.SetGlobal("on", func(h func(string) error) { handlers = append(handlers, h) }))
	var anyFn any
	must(t, e.SetGlobal("keep", func(v any) { anyFn = v }))
	must(t, e.SetGlobal("apply", func(f func(int, int) int, a, b int) int { return f(a, b) }))
	run(t, e, `
		log = {}
		on(function(ev) log[#log + 1] = ev end)
		on(zlua.to_delegate(function(ev) if ev == "bad" then error("refused " .. ev) end end))
		keep(function(a) return a * 2 end)
		assert(apply(function(a, b) return a * b end, 6, 7) == 42)
		local ok, err = pcall(zlua.to_delegate, 42)
		assert(not ok and err:find("bad argument #1 to 'to_delegate' %(function expected, got number%)"), err)
		ok, err = pcall(on, 42)
		assert(not ok and err:find("bad argument #1 to 'on' (function expected, got number)", 1, true), err)
	`)
	for _, h := range handlers {
		if err := h("spawn"); err != nil {
			t.Fatal(err)
		}
	}
	if err := handlers[1]("bad"); err == nil || !strings.Contains(err.Error(), "refused bad") {
		t.Errorf("handler error = %v", err)
	}
	var n int
	run(t, e, `n = #log`)
	must(t, e.Global("n", &n))
	if n != 1 {
		t.Errorf("first handler ran %d times, want 1", n)
	}
	f, ok := anyFn.(*zlua.Function)
	if !ok {
		t.Fatalf("a Lua function read as any = %T, want *zlua.Function", anyFn)
	}
	if out, err := f.Call(21); err != nil || out[0] != int64(42) {
		t.Errorf("Call = %v, %v", out, err)
	}
	// A handle pushed back is the original function.
	must(t, e.SetGlobal("again", f))
	run(t, e, `assert(again(4) == 8)`)
}

func TestHandlesCalledFromInsideLua(t *testing.T) {
	e := newEnv(t)
	run(t, e, `function mul(a, b) return a * b end`)
	var mul func(int, int) int
	must(t, e.GetFunction("mul", &mul))
	must(t, e.SetGlobal("viaGo", func(x int) int { return mul(x, 2) }))
	run(t, e, `assert(viaGo(21) == 42)
		local co = coroutine.wrap(function() return viaGo(5) end)
		assert(co() == 10)`)
}

// A result that cannot be converted fails the call; the handles made for
// the results before it are released (freed by the next Pump), not left
// to a cleanup that only a garbage collection would run.
func TestCallFailingOnAResultReleasesTheHandlesBeforeIt(t *testing.T) {
	e := newEnv(t)
	run(t, e, `function pair() return function() end, {}, io.stdout end`)
	var f *zlua.Function
	must(t, e.GetFunction("pair", &f))
	defer f.Release()
	base := e.Stats().LiveRefs
	for _, call := range []func() ([]any, error){
		func() ([]any, error) { return f.Call() },
		func() ([]any, error) { return f.CallContext(context.Background()) },
		func() ([]any, error) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			return f.CallContext(ctx)
		},
	} {
		out, err := call()
		if err == nil || !strings.Contains(err.Error(), "result #3") || out != nil {
			t.Fatalf("Call = %v, %v; want the third result refused", out, err)
		}
		must(t, e.Pump()) // releases during a call are freed by the next Pump
		if got := e.Stats().LiveRefs; got != base {
			t.Errorf("LiveRefs = %d after the failed call and a Pump, want %d", got, base)
		}
	}
}
