package zlua_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

// TestDeepRecursionThroughGoIsAnError recurses Lua → Go → Lua → … until
// something gives: it must be a clean Lua error on both backends (LuaJIT
// alone would exhaust the C stack and crash), and the Env must stay usable.
func TestDeepRecursionThroughGoIsAnError(t *testing.T) {
	e := newEnv(t)
	deepest := 0
	must(t, e.SetGlobal("down", func(n int) error {
		deepest = max(deepest, n)
		return e.DoStringArgs(`rec(...)`, n+1)
	}))
	must(t, e.SetGlobal("again", func() error { return e.DoString(`again()`) }))
	run(t, e, `function rec(n) return down(n) end`)
	for _, chunk := range []string{`rec(1)`, `again()`, `local ok, err = pcall(rec, 1) error(err, 0)`} {
		err := e.DoString(chunk)
		var le *zlua.LuaError
		if !errors.As(err, &le) || !strings.Contains(le.Message, "stack overflow") {
			t.Fatalf("%s: err = %.200v, want a stack overflow error", chunk, err)
		}
		run(t, e, `x = 1`)
	}
	if deepest < 50 {
		t.Errorf("recursion stopped at depth %d: the limit is too tight", deepest)
	}
	t.Logf("stopped at depth %d", deepest)
}

func TestHugeStrings(t *testing.T) {
	e := newEnv(t)
	var got int
	must(t, e.SetGlobal("size", func(s string) int { got = len(s); return len(s) }))
	run(t, e, `n = size(string.rep("x", 100 * 1024 * 1024))`)
	if got != 100*mib || global[int](t, e, "n") != 100*mib {
		t.Errorf("Go received %d bytes", got)
	}
	var b []byte
	must(t, e.SetGlobal("big", strings.Repeat("y", 16*mib)))
	must(t, e.Global("big", &b))
	if len(b) != 16*mib {
		t.Errorf("read back %d bytes", len(b))
	}
	run(t, e, `big = nil collectgarbage()`)

	limited := newLimitedEnv(t, 32*mib)
	must(t, limited.SetGlobal("size", func(s string) int { return len(s) }))
	err := limited.DoString(`size(string.rep("x", 100 * 1024 * 1024))`)
	if !errors.Is(err, zlua.ErrMemory) {
		t.Errorf("string.rep of 100 MiB under a 32 MiB limit = %v", err)
	}
}

// TestErrorsInFinalizers: Lua 5.4 drops an error raised by a __gc (it
// would be a warning) while LuaJIT raises it from whatever allocation ran
// the collection, one pending finalizer at a time. Either way the Env
// survives, and Close runs the remaining finalizers without failing.
// (LibsSafe lets scripts define no finalizers at all.)
func TestErrorsInFinalizers(t *testing.T) {
	e := newEnv(t)
	mk := `local function bomb()
			if newproxy then local p = newproxy(true) getmetatable(p).__gc = function() error("gc boom") end return p end
			return setmetatable({}, {__gc = function() error("gc boom") end})
		end`
	err := e.DoString(mk + ` for i = 1, 100 do bomb() end collectgarbage() collectgarbage()`)
	if strings.HasPrefix(zlua.Backend, "LuaJIT") {
		if err == nil || !strings.Contains(err.Error(), "gc boom") {
			t.Errorf("LuaJIT: err = %v, want the finalizer's error", err)
		}
	} else if err != nil {
		t.Errorf("Lua 5.4: err = %v, want nil (finalizer errors are warnings)", err)
	}
	// LuaJIT raises one pending finalizer error per collection step.
	for i := 0; e.DoString(`collectgarbage()`) != nil; i++ {
		if i > 200 {
			t.Fatal("finalizer errors never drained")
		}
	}
	run(t, e, `x = 1`)
	run(t, e, mk+` keep = {} for i = 1, 10 do keep[i] = bomb() end`)
	c, err := zlua.New(zlua.Options{})
	must(t, err)
	must(t, c.DoString(mk+` keep = {} for i = 1, 10 do keep[i] = bomb() end`))
	must(t, c.Close())
}

func TestSentinelMetatableIsProtected(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("gf", func() {}))
	run(t, e, `
		local u = select(2, debug.getupvalue(gf, 1))
		assert(type(u) == "userdata")
		assert(getmetatable(u) == "zlua: protected metatable")
		assert(not pcall(setmetatable, u, {}))`)
}

// TestCStackRecursionUnderALimit: recursion through C library functions
// (gsub calling gsub, coroutines resuming coroutines) ends with "C stack
// overflow" on both backends inside a limited call; stock LuaJIT would
// crash the process.
func TestCStackRecursionUnderALimit(t *testing.T) {
	e := newSafeEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, chunk := range []string{
		`local function f(s) return (s:gsub(".", f)) end f("x")`,
		`local function f() return coroutine.wrap(f)() end f()`,
		`local function f() local t = {3, 2, 1} table.sort(t, function(a, b) f() return a < b end) end f()`,
		`local function f(s) return (s:gsub(".", f)) end for i = 1, 3 do pcall(f, "x") end f("x")`,
	} {
		err := e.DoStringContext(ctx, chunk)
		if err == nil || !strings.Contains(err.Error(), "stack overflow") {
			t.Errorf("%s: err = %.200v, want a stack overflow", chunk, err)
		}
		must(t, e.DoStringContext(ctx, `x = 1`))
	}
}
