package zlua_test

import (
	"testing"

	"github.com/zlua-go/zlua"
)

// The first zlua.FastFuncs function ids of an Env have a C function of
// their own (cgo/fasttramp.c): a call names its Go function by that C
// function, not by the closure's upvalue (the sentinel, which then only
// carries the closure's lifetime). These tests pin what that changes and
// what it must not: a fast closure cannot be pointed at another function,
// and once its sentinel was collected it is refused, for good.

// needFastIDs skips a test of the fast ids where there are none
// (fasttramp.c assembles them for linux/amd64).
func needFastIDs(t *testing.T) {
	if zlua.FastFuncs == 0 {
		t.Skip("no fast function ids on this platform")
	}
}

// burnFastIDs gives every fast id to a function a global keeps, so the
// functions registered after it have the sentinel's trampoline.
func burnFastIDs(t *testing.T, e *zlua.Env) {
	t.Helper()
	fns := make([]func(), zlua.FastFuncs)
	for i := range fns {
		fns[i] = func() {}
	}
	must(t, e.SetGlobal("burned_fast_ids", fns))
}

// debug.setupvalue on a fast closure changes nothing the call reads: the
// function called is still its own (another Go function's sentinel does
// not redirect it). The sentinel it dropped is then garbage; once it is
// collected the closure is refused as released, and its Go function is
// not called again.
func TestFastFunctionIgnoresItsUpvalueUntilTheSentinelIsCollected(t *testing.T) {
	needFastIDs(t)
	e := newEnv(t)
	fcalls, gcalls := 0, 0
	must(t, e.SetGlobal("f", func() int { fcalls++; return 1 }))
	must(t, e.SetGlobal("g", func() int { gcalls++; return 2 }))
	run(t, e, `
		local _, gs = debug.getupvalue(g, 1)
		local values = {1, "s", {}, gs, true, false}
		local fresh = f
		for i, x in ipairs(values) do
			assert(debug.setupvalue(fresh, 1, x) == "")
			assert(fresh() == 1, i)
		end
		debug.setupvalue(fresh, 1, nil)
		assert(fresh() == 1)
		f = nil
		collectgarbage()
		collectgarbage()
		local ok, err = pcall(fresh)
		assert(not ok and err:find("attempt to call a released Go function", 1, true), tostring(err))
		assert(g() == 2)`)
	if fcalls != 7 || gcalls != 1 {
		t.Fatalf("f ran %d times (want 7), g %d (want 1)", fcalls, gcalls)
	}
}

// A closure a finalizer keeps alive outlives its sentinel, collected in
// the same cycle. Its fast id must stay retired: given to a function
// registered later, the old closure would call that function.
func TestFastIDOfACollectedSentinelIsNotGivenAgain(t *testing.T) {
	needFastIDs(t)
	e := newEnv(t)
	oldCalls, newCalls := 0, 0
	must(t, e.SetGlobal("mkold", func() {
		must(t, e.SetGlobal("old", func() { oldCalls++ }))
	}))
	run(t, e, `
		mkold()
		local function keeper(k) return function() kept = k end end
		local onfinal = keeper(old)
		old = nil
		local p
		if newproxy then
			p = newproxy(true)
			getmetatable(p).__gc = onfinal
		else
			p = setmetatable({}, {__gc = onfinal})
		end
		p, onfinal = nil, nil
		collectgarbage()
		collectgarbage()
		assert(type(kept) == "function", "the finalizer did not keep the closure")`)
	// The freed ids reach Go at the end of a call; register many new
	// functions, so a reused id would be among them.
	for i := 0; i < 64; i++ {
		must(t, e.SetGlobal("new", func() { newCalls++ }))
		run(t, e, `new()`)
	}
	run(t, e, `
		local ok, err = pcall(kept)
		assert(not ok and err:find("attempt to call a released Go function", 1, true), tostring(err))`)
	if oldCalls != 0 || newCalls != 64 {
		t.Fatalf("old ran %d times, new %d (want 0 and 64)", oldCalls, newCalls)
	}
}

// Ids past the fast ones are reused as before, and the sentinel's
// trampoline serves them: both kinds in one Env call the right functions.
func TestFastAndSentinelTrampolinesServeTheirOwnFunctions(t *testing.T) {
	needFastIDs(t)
	e := newEnv(t)
	must(t, e.SetGlobal("fast", func(a, b int) int { return a + b }))
	burnFastIDs(t, e)
	must(t, e.SetGlobal("slow", func(a, b int) int { return a * b }))
	run(t, e, `
		local s = 0
		for i = 1, 100 do s = s + fast(i, 1) + slow(i, 2) end
		assert(s == 5150 + 10100, s)
		assert(debug.setupvalue(slow, 1, nil) == "")
		local ok, err = pcall(slow, 1, 2)
		assert(not ok and err:find("upvalue was replaced", 1, true), tostring(err))
		assert(debug.setupvalue(fast, 1, nil) == "")
		assert(fast(1, 2) == 3)`)
}
