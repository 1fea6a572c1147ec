package zlua_test

import (
	"slices"
	"testing"

	"github.com/zlua-go/zlua"
)

// The proven-address caches (cgo/gate.c): a function sentinel or a
// receiver checked once is recognised by its address on later calls,
// without its length and header. An entry must leave the cache before the
// address stops naming that userdata. These tests watch the caches
// (zlua.ProvenAddrs) and what a stale entry would let through.

// provenEnv is newAddrEnv plus inproven(a, which): whether address a is
// in the sentinel ("fn") or userdata ("ud") cache.
func provenEnv(t *testing.T) *zlua.Env {
	e := newAddrEnv(t)
	must(t, e.SetGlobal("inproven", func(a float64, which string) bool {
		fn, ud := zlua.ProvenAddrs(e)
		if which == "fn" {
			return slices.Contains(fn, uintptr(a))
		}
		return slices.Contains(ud, uintptr(a))
	}))
	return e
}

// A sentinel whose metatable lost __gc is freed without zlua_funcud_gc:
// only the allocator sees its block go, and must take it out of the cache,
// or a userdata later allocated at that address, put in a Go function's
// upvalue, would be taken for a sentinel (its bytes read as a function id).
// (Which block the allocator hands out next is not something a test can
// arrange portably, so the cache itself is checked.)
func TestSentinelFreedWithoutFinalizerLeavesTheProvenCache(t *testing.T) {
	e := provenEnv(t)
	burnFastIDs(t, e) // the cache is the sentinel trampoline's
	must(t, e.SetGlobal("doomed", func() int { return 1 }))
	must(t, e.SetGlobal("probe", func() int { return 2 }))
	run(t, e, `
		local _, s = debug.getupvalue(doomed, 1)
		old = addr(s)
		assert(doomed() == 1)`)
	// Checked from Go, with no Lua→Go call after doomed's: a call of a
	// checking function would enter its own sentinel, which may share
	// doomed's entry of the direct-mapped cache.
	if !provenFn(e, global[float64](t, e, "old")) {
		t.Fatal("a called sentinel is not in the cache")
	}
	run(t, e, `
		-- in a function, so that no register of this chunk keeps it
		local function unfinalize()
			local _, s = debug.getupvalue(doomed, 1)
			local mt = debug.getmetatable(s)
			gc = mt.__gc
			mt.__gc = nil
			doomed = nil
		end
		unfinalize()
		collectgarbage()
		collectgarbage()
		local _, s = debug.getupvalue(probe, 1)
		debug.getmetatable(s).__gc = gc
		assert(not inproven(old, "fn"), "a freed sentinel is still in the proven cache")`)
}

// provenFn reports whether the sentinel at address a (a Lua number) is in
// e's proven-address cache.
func provenFn(e *zlua.Env, a float64) bool {
	fn, _ := zlua.ProvenAddrs(e)
	return slices.Contains(fn, uintptr(a))
}

// debug.setmetatable takes a receiver off the cache: from then on its new
// metatable decides, and a foreign one makes it a bad self.
func TestDebugSetmetatableTakesAReceiverOutOfTheProvenCache(t *testing.T) {
	e := provenEnv(t)
	must(t, e.SetGlobal("held", &Player{Name: "p", HP: 3}))
	run(t, e, `
		local hurt = held.Hurt
		assert(hurt(held, 1) == true, "first call")
		local a = addr(held)
		assert(inproven(a, "ud"), "a receiver checked once is not in the cache")
		local mt = debug.getmetatable(held)
		debug.setmetatable(held, {})
		assert(not inproven(a, "ud"), "debug.setmetatable left the receiver in the cache")
		local ok, err = pcall(hurt, held, 1)
		debug.setmetatable(held, mt) -- its __gc releases the slot at Close
		assert(not ok and err:find("bad self", 1, true), "a userdata with a foreign metatable was a receiver: " .. tostring(err))
		assert(hurt(held, 1) == true, "the metatable path lost the object")`)
}

// A sentinel released by its __gc (here called by hand, as a script with
// debug.getmetatable can) leaves the cache, and its function is refused.
func TestReleasedSentinelLeavesTheProvenCache(t *testing.T) {
	e := provenEnv(t)
	burnFastIDs(t, e)
	must(t, e.SetGlobal("f", func() int { return 1 }))
	run(t, e, `
		local _, s = debug.getupvalue(f, 1)
		a = addr(s)
		assert(f() == 1)`)
	if !provenFn(e, global[float64](t, e, "a")) { // from Go: see above
		t.Fatal("a called sentinel is not in the cache")
	}
	run(t, e, `
		local _, s = debug.getupvalue(f, 1)
		debug.getmetatable(s).__gc(s)
		assert(not inproven(a, "fn"), "a released sentinel is still in the cache")
		local ok, err = pcall(f)
		assert(not ok and err:find("attempt to call a released Go function", 1, true), tostring(err))`)
}

// An object collected normally leaves the cache through its __gc.
func TestCollectedReceiverLeavesTheProvenCache(t *testing.T) {
	e := provenEnv(t)
	must(t, e.SetGlobal("mk", func() *Player { return &Player{Name: "m", HP: 2} }))
	run(t, e, `
		local o = mk()
		assert(o:Hurt(1) == true)
		a = addr(o)
		assert(inproven(a, "ud"))
		o = nil
		for i = 1, 4 do collectgarbage() end
		assert(not inproven(a, "ud"), "a collected receiver is still in the cache")`)
}

// Fields served in C (cgo/objfields.c) trust a proven address as the
// method path does: zlua's own __index moved into a foreign metatable
// must not serve the object's fields once debug.setmetatable ran.
func TestFieldsServedInCFollowTheProvenCache(t *testing.T) {
	e := provenEnv(t)
	must(t, e.SetGlobal("held", &Player{Name: "p", HP: 3}))
	run(t, e, `
		assert(held.HP == 3 and held.HP == 3)
		local a = addr(held)
		assert(inproven(a, "ud"), "a userdata whose field C served is not in the cache")
		local mt = debug.getmetatable(held)
		debug.setmetatable(held, {__index = mt.__index})
		local ok, err = pcall(function() return held.HP end)
		debug.setmetatable(held, mt)
		assert(not ok and err:find("bad self (Player expected, got userdata)", 1, true),
			"a field served through a foreign metatable: " .. tostring(err))
		assert(held.HP == 3)`)
}
