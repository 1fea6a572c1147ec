package zlua_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

// hooksGolden is what the stock interpreter of this build's backend prints
// for testdata/hooks.lua.
func hooksGolden(t *testing.T) string {
	t.Helper()
	name := "testdata/hooks-lua54.golden"
	if !strings.HasPrefix(zlua.Backend, "Lua 5.4") {
		name = "testdata/hooks-luajit.golden"
	}
	b, err := os.ReadFile(name)
	must(t, err)
	return string(b)
}

// TestScriptHooksMatchTheStandardLibrary runs the hook cases of
// testdata/hooks.lua (values gethook reports, argument errors, line, call
// and count events with counts below, at and above the limit's 1000,
// coroutines, errors raised in hooks) plainly and inside a limited call:
// both must print what the stock interpreter prints.
func TestScriptHooksMatchTheStandardLibrary(t *testing.T) {
	want := hooksGolden(t)
	src, err := os.ReadFile("testdata/hooks.lua")
	must(t, err)
	e := newEnv(t)
	must(t, e.DoFile("testdata/hooks.lua"))
	if got := global[string](t, e, "result") + "\n"; got != want {
		t.Errorf("hooks outside limited calls differ from stock:\n%s\nwant:\n%s", got, want)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	must(t, e.DoStringContext(ctx, string(src)))
	if got := global[string](t, e, "result") + "\n"; got != want {
		t.Errorf("hooks inside a limited call differ from stock:\n%s\nwant:\n%s", got, want)
	}
}

// TestScriptHookKeepsTheDeadline: a script's hook set inside a limited
// call (the probe that ran 6.3 s past a 200 ms deadline) no longer
// replaces the limit, whatever its mask.
func TestScriptHookKeepsTheDeadline(t *testing.T) {
	e := newEnv(t)
	for _, set := range []string{
		`debug.sethook(function() end, "l")`,
		`debug.sethook(function() end, "cr")`,
		`debug.sethook(function() end, "", 1e9)`,
		`debug.sethook(function() end, "", 1500)`,
		`debug.sethook(coroutine.running(), function() end, "l")`,
		`debug.sethook()`,
	} {
		interrupted(t, e, set+` local x = 0 while true do x = x + 1 end`)
		interrupted(t, e, set+` coroutine.wrap(function() while true do end end)()`)
		run(t, e, `debug.sethook()`)
	}
}

// TestSethookInALoopKeepsTheDeadline (outside probe E1-F7): each
// debug.sethook re-applies the hook, which restarted the count and undid
// the hurry of a context that was done: a loop that does nothing but call
// sethook ran on forever (with the count hook alone: ZLUA_POKE_SIGNAL=off),
// or seconds past its deadline with a long mask string.
func TestSethookInALoopKeepsTheDeadline(t *testing.T) {
	e := newEnv(t)
	for _, loop := range []string{
		`while true do debug.sethook() end`,
		`local f = function() end while true do debug.sethook(f, "", 0) end`,
		`local f, m = function() end, ("x"):rep(1e5) while true do debug.sethook(f, m, 0) end`,
		`local h = debug.gethook() while true do debug.sethook(h) end`,
		`coroutine.wrap(function() while true do debug.sethook() end end)()`,
	} {
		interrupted(t, e, loop)
		run(t, e, `debug.sethook()`)
	}
}

// TestScriptHooksSurviveLimitedCalls: a hook set before a limited call
// keeps recording during and after it; one set inside stays set after it;
// gethook inside reports the script's hook, not zlua's.
func TestScriptHooksSurviveLimitedCalls(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run(t, e, `lines = 0 function hook() lines = lines + 1 end debug.sethook(hook, "l")`)
	must(t, e.DoStringContext(ctx, `
		local f, m, c = debug.gethook()
		assert(f == hook and m == "l" and c == 0, tostring(f) .. m .. c)
		before = lines
		local a = 1
		a = a + 1
		inside = lines - before`))
	run(t, e, `local n = lines
		local a = 1
		after = lines - n
		debug.sethook()`)
	if inside, after := global[int](t, e, "inside"), global[int](t, e, "after"); inside < 2 || after < 1 {
		t.Errorf("line events: %d inside the limited call, %d after it", inside, after)
	}
	must(t, e.DoStringContext(ctx, `counted = 0 debug.sethook(function() counted = counted + 1 end, "", 100)`))
	// (LuaJIT's compiled loops run no hooks, as in the luajit binary)
	run(t, e, `if jit then jit.off() end local x = 0 for i = 1, 1000 do x = x + i end
		local f, m, c = debug.gethook() debug.sethook() if jit then jit.on() end
		assert(c == 100 and type(f) == "function", "hook set inside a limited call was cleared")`)
	if global[int](t, e, "counted") < 10 {
		t.Errorf("count hook set inside a limited call recorded %d events after it", global[int](t, e, "counted"))
	}
}

// TestCoroutineHooksRecordInsideLimitedCalls: a hook set on a coroutine
// records while a limited call resumes it, as in the stock interpreter,
// and the coroutine is still limited.
func TestCoroutineHooksRecordInsideLimitedCalls(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	must(t, e.DoStringContext(ctx, `
		n = 0
		co = coroutine.create(function()
			local a = 1
			coroutine.yield()
			a = a + 1
			return a
		end)
		debug.sethook(co, function() n = n + 1 end, "l")
		coroutine.resume(co) coroutine.resume(co)`))
	// As stock: 4 lines of the coroutine (LuaJIT's hook is the state's, so
	// it also records the main chunk's last line: 5).
	want := 4
	if !strings.HasPrefix(zlua.Backend, "Lua 5.4") {
		want = 5
	}
	if n := global[int](t, e, "n"); n != want {
		t.Errorf("hook on a coroutine recorded %d lines, want %d", n, want)
	}
	run(t, e, `spin = coroutine.create(function() while true do end end) debug.sethook(spin, function() end, "l")`)
	interrupted(t, e, `local ok, err = coroutine.resume(spin) error(err, 0)`)
	run(t, e, `debug.sethook(spin) debug.sethook()`)
}

// TestErrorsInScriptHooksUnderALimit: an error a script's hook raises
// reaches the script as usual inside a limited call; a message handler is
// not run for it (it would run with hooks off), the deadline still holds.
func TestErrorsInScriptHooksUnderALimit(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	must(t, e.DoStringContext(ctx, `
		local raised = false
		ok, err = pcall(function()
			debug.sethook(function() if not raised then raised = true error("from hook", 0) end end, "l")
			local x = 1
			return x
		end)
		debug.sethook()`))
	if ok, msg := global[bool](t, e, "ok"), global[string](t, e, "err"); ok || msg != "from hook" {
		t.Errorf("pcall around a raising hook = %v, %q", ok, msg)
	}
	interrupted(t, e, `
		local raised = false
		handled = false
		xpcall(function()
			debug.sethook(function() if not raised then raised = true error("from hook") end end, "l")
			local x = 1
		end, function() handled = true while true do end end)
		while true do end`)
	run(t, e, `debug.sethook()`)
	if global[bool](t, e, "handled") {
		t.Error("the message handler ran for an error raised by a hook")
	}
}

// TestJITStaysOffInLimitedCalls (LuaJIT): jit.on() inside a limited call
// would let compiled loops, which run no hooks, escape the deadline.
func TestJITStaysOffInLimitedCalls(t *testing.T) {
	if strings.HasPrefix(zlua.Backend, "Lua 5.4") {
		t.Skip("LuaJIT only")
	}
	e := newEnv(t)
	limitedRun(t, e, `jit.on() local x = 0 for i = 1, math.huge do x = x + i % 3 end`)
	limitedRun(t, e, `require("jit").on() local x = 0 while true do x = x + 1 end`)
	run(t, e, `assert(jit.status(), "JIT left off") jit.off() jit.on() assert(jit.status())`)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := e.DoStringContext(ctx, `jit.on(1)`); err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("jit.on(1) inside a limited call = %v, want its usual argument error", err)
	}
}

// TestHookTableWhereTheStockLibraryKeepsIt: Lua 5.4's debug library keeps
// per-thread hooks in registry._HOOKKEY, a table with weak keys, and the
// official test suite (db.lua) checks it.
func TestHookTableWhereTheStockLibraryKeepsIt(t *testing.T) {
	if !strings.HasPrefix(zlua.Backend, "Lua 5.4") {
		t.Skip("LuaJIT keeps hooks in the state")
	}
	e := newEnv(t)
	run(t, e, `
		debug.sethook(function() end, "l")
		debug.sethook()
		local hk = debug.getregistry()._HOOKKEY
		assert(type(hk) == "table" and getmetatable(hk).__mode == "k")`)
}
