package zlua_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

var errGame = errors.New("entity not found")

func TestPcallCatchesGoErrorsAndPanics(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("fail", func() error { return errGame }))
	must(t, e.SetGlobal("boom", func(x int) int { panic(fmt.Sprintf("boom %d", x)) }))
	run(t, e, `
		local ok, err = pcall(fail)
		assert(not ok and err == "entity not found", tostring(err))
		ok, err = pcall(boom, 7)
		assert(not ok, "panic not caught")
		assert(err:find("go function 'boom' panicked: boom 7", 1, true), err)
		-- called from Lua code, the message carries the caller's position
		ok, err = pcall(function() fail() end)
		assert(err:match("^%(dostring%):%d+: entity not found$"), err)
	`)
}

func TestManyCaughtErrorsKeepStateHealthy(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("fail", func(i int) error { return fmt.Errorf("error %d", i) }))
	must(t, e.SetGlobal("boom", func(i int) { panic(i) }))
	run(t, e, `
		collectgarbage(); collectgarbage()
		before = collectgarbage("count")
		for i = 1, 50000 do
			local ok, err = pcall(fail, i)
			assert(not ok and err == "error " .. i)
			ok, err = pcall(boom, i)
			assert(not ok and err:find("panicked: " .. i, 1, true))
		end
		collectgarbage(); collectgarbage()
		after = collectgarbage("count")
	`)
	before, after := global[float64](t, e, "before"), global[float64](t, e, "after")
	if after > before+64 { // KiB
		t.Errorf("Lua memory grew from %.0f KiB to %.0f KiB over 10^5 caught errors", before, after)
	}
	run(t, e, `x = 1 + 1`)
	if got := global[int](t, e, "x"); got != 2 {
		t.Errorf("state unhealthy after errors: x = %d", got)
	}
	if s := e.Stats(); s.Panics != 50000 {
		t.Errorf("Stats.Panics = %d, want 50000", s.Panics)
	}
}

func TestManyUncaughtErrorsThroughDoString(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("fail", func() error { return errGame }))
	must(t, e.SetGlobal("boom", func() { panic("kaboom") }))
	for i := 0; i < 10000; i++ {
		err := e.DoString(`fail()`)
		if !errors.Is(err, errGame) {
			t.Fatalf("iteration %d: err = %v, want errGame in chain", i, err)
		}
		err = e.DoString(`boom()`)
		var pe *zlua.PanicError
		if !errors.As(err, &pe) || pe.Value != "kaboom" || pe.Func != "boom" {
			t.Fatalf("iteration %d: err = %#v, want *PanicError", i, err)
		}
	}
	run(t, e, `collectgarbage(); ok = true`)
	if !global[bool](t, e, "ok") {
		t.Fatal("state unhealthy after 2*10^4 uncaught errors")
	}
}

func TestPanicErrorCarriesGoStack(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("boom", func() { panic(errGame) }))
	err := e.DoString(`boom()`)
	var pe *zlua.PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v, want *PanicError", err)
	}
	if !errors.Is(err, errGame) {
		t.Error("panic(err) value not reachable with errors.Is")
	}
	if !strings.Contains(pe.Stack(), "TestPanicErrorCarriesGoStack") {
		t.Errorf("Stack does not show the panicking function:\n%s", pe.Stack())
	}
	var le *zlua.LuaError
	if !errors.As(err, &le) || !strings.Contains(le.Message, "go function 'boom' panicked") {
		t.Errorf("LuaError message = %q", le.Message)
	}
}

func TestLuaErrorHasTraceback(t *testing.T) {
	e := newEnv(t)
	err := e.DoString(`
		local function inner() error("deep problem") end
		local function outer() inner() end
		outer()`)
	var le *zlua.LuaError
	if !errors.As(err, &le) {
		t.Fatalf("err = %v, want *LuaError", err)
	}
	if !strings.HasSuffix(le.Message, "deep problem") {
		t.Errorf("Message = %q", le.Message)
	}
	if !strings.Contains(le.Traceback, "stack traceback") || !strings.Contains(le.Traceback, "inner") {
		t.Errorf("Traceback lacks the frames:\n%s", le.Traceback)
	}
}

func TestNestedErrorsPropagateWithTracebacks(t *testing.T) {
	e := newEnv(t)
	// Lua → Go → Lua → Go: the innermost Go error travels out through a Go
	// function that runs Lua and returns the error it got.
	must(t, e.SetGlobal("leaf", func() error { return errGame }))
	must(t, e.SetGlobal("middle", func() error { return e.DoString(`local function inner() leaf() end inner()`) }))
	err := e.DoString(`local function top() middle() end top()`)
	var le *zlua.LuaError
	if !errors.As(err, &le) {
		t.Fatalf("err = %v, want *LuaError", err)
	}
	if !strings.HasSuffix(le.Message, "entity not found") {
		t.Errorf("Message = %q", le.Message)
	}
	if !errors.Is(err, errGame) {
		t.Error("the innermost Go error is not in the chain")
	}
	if !strings.Contains(le.Traceback, "top") {
		t.Errorf("outer traceback lacks the outer frame:\n%s", le.Traceback)
	}
	// pcall in the middle layer still catches it.
	run(t, e, `local ok, err = pcall(middle); assert(not ok and err:find("entity not found"))`)
}

func TestErrorObjectsKeepIdentityThroughGoFrames(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("relay", func() error { return e.DoString(`error(token)`) }))
	must(t, e.SetGlobal("relay2", func() error { return e.DoString(`relay()`) }))
	run(t, e, `
		token = setmetatable({}, {__tostring = function() return "the token" end})
		local ok, err = pcall(relay)
		assert(not ok and rawequal(err, token), "error table lost its identity: " .. tostring(err))
		ok, err = pcall(relay2)
		assert(not ok and rawequal(err, token), "identity lost through two Go frames")
		local seen = {}
		seen[err] = true
		assert(seen[token])
	`)
	err := e.DoString(`error(token)`)
	var le *zlua.LuaError
	if !errors.As(err, &le) || le.Message != "the token" {
		t.Errorf("Message of a table error = %v, want its __tostring", err)
	}
	err = e.DoString(`error({})`)
	if !errors.As(err, &le) || le.Message != "(error object is a table value)" {
		t.Errorf("Message of a plain table error = %v", err)
	}
	// A wrapped LuaError is a new Go error: it is raised as its text.
	must(t, e.SetGlobal("wrap", func() error {
		return fmt.Errorf("wrapped: %w", e.DoString(`error("inner", 0)`))
	}))
	run(t, e, `local ok, err = pcall(wrap); assert(err == "wrapped: inner", err)`)
}

func TestYieldFromGoFunction(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("wait", func(n int) (int, error) { return 0, zlua.Yield(n, "waiting") }))
	run(t, e, `
		local co = coroutine.create(function(a)
			local r1, r2 = wait(a)
			return r1 + r2
		end)
		local ok, v1, v2 = coroutine.resume(co, 5)
		assert(ok and v1 == 5 and v2 == "waiting", tostring(v1))
		local ok2, sum = coroutine.resume(co, 30, 12)
		assert(ok2 and sum == 42, tostring(sum))
		assert(coroutine.status(co) == "dead")

		local gen = coroutine.wrap(function()
			for i = 1, 3 do wait(i) end
			return "done"
		end)
		assert(gen() == 1 and gen() == 2 and gen() == 3 and gen() == "done")
	`)
	err := e.DoString(`wait(1)`) // not in a coroutine
	if err == nil || !strings.Contains(err.Error(), "yield") {
		t.Errorf("yield outside a coroutine: err = %v", err)
	}
}

func TestGoErrorMessagesAreCaughtAsStrings(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("fail", func(s string) error { return errors.New(s) }))
	run(t, e, `
		local ok, err = pcall(fail, "plain")
		assert(type(err) == "string" and err == "plain", tostring(err))
	`)
}

func TestYieldAcrossANestedGoCallIsAnError(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("wait", func() error { return zlua.Yield() }))
	must(t, e.SetGlobal("nested", func(chunk string) error { return e.DoString(chunk) }))
	run(t, e, `
		for _, chunk in ipairs({"coroutine.yield(1)", "wait()"}) do
			local co = coroutine.create(function() nested(chunk) end)
			local ok, err = coroutine.resume(co)
			assert(not ok and err:find("yield", 1, true), tostring(err))
		end
	`)
}
