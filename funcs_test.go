package zlua_test

import (
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

func TestGoFunctionsAreReleasedWhenLuaDropsThem(t *testing.T) {
	e := newEnv(t)
	base := e.Stats().LiveFuncs
	for i := 0; i < 1000; i++ {
		must(t, e.SetGlobal("f", func() int { return i }))
	}
	must(t, e.SetGlobal("make", func(n int) func() int { return func() int { return n } }))
	run(t, e, `
		for i = 1, 10000 do assert(make(i)() == i) end
		f = nil; make = nil
		-- LuaJIT traces keep the closures they were recorded with alive
		if jit then jit.flush() end
		collectgarbage(); collectgarbage()
	`)
	must(t, e.Pump())
	if got := e.Stats().LiveFuncs; got != base {
		t.Errorf("LiveFuncs = %d after Lua dropped every function, want %d", got, base)
	}
}

func TestFailedPushReleasesRegisteredFunctions(t *testing.T) {
	e := newEnv(t)
	base := e.Stats().LiveFuncs
	// The function is registered, then the complex number fails the push:
	// the program never runs, so the function's id must not stay taken.
	if err := e.SetGlobal("x", []any{func() {}, complex(1, 1)}); err == nil {
		t.Fatal("SetGlobal with a complex number inside succeeded")
	}
	if got := e.Stats().LiveFuncs; got != base {
		t.Errorf("LiveFuncs = %d after a failed push, want %d", got, base)
	}
}

func TestReleasedGoFunctionCannotBeCalled(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("gf", func() int { return 1 }))
	// A finalizer resurrects the closure after its sentinel's __gc ran.
	run(t, e, `
		local function withgc(fn)
			if newproxy then
				local p = newproxy(true); getmetatable(p).__gc = fn; return p
			end
			return setmetatable({}, {__gc = fn})
		end
		do
			local f = gf
			gf = nil
			withgc(function() saved = f end)
		end
		collectgarbage(); collectgarbage()
		assert(saved, "finalizer did not run")
		local ok, err = pcall(saved)
		assert(not ok and err:find("attempt to call a released Go function", 1, true), tostring(err))
	`)
}

func TestFunctionsInsideTablesKeepTheirNames(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("api", map[string]any{
		"spawn": func(kind string, hp int) string { return kind },
	}))
	err := e.DoString(`api.spawn("orc", "lots")`)
	if err == nil || !strings.Contains(err.Error(), "bad argument #2 to 'spawn' (number expected, got string)") {
		t.Errorf("err = %v", err)
	}
}

// A long call that makes many Go closures (a Go function returning a new
// func each time) keeps the gate's list of not-yet-armed function ids
// bounded: each closure is armed when its push runs, and the list drops
// armed ids when it fills.
func TestUnarmedFunctionIdsStayBoundedInALongCall(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("mk", func(n int) func() int { return func() int { return n } }))
	run(t, e, `for i = 1, 100000 do local f = mk(i); assert(f() == i) end`)
	if c := zlua.UnarmedFuncsCap(e); c > 4096 {
		t.Errorf("unarmed list capacity %d after 10^5 closures made in one call", c)
	}
}
