package zlua

import (
	"strings"
	"testing"
)

// sentinelLua defines sentinel(fn): an object whose finalizer calls fn
// (newproxy on LuaJIT, where tables have no __gc).
const sentinelLua = `
local function sentinel(fn)
	if newproxy then
		local p = newproxy(true); getmetatable(p).__gc = fn; return p
	end
	return setmetatable({}, {__gc = fn})
end
`

type target struct{ N int }

// Invariant 3: an object pushed again after its old userdata became
// unreachable (weak cache entry cleared) but before that userdata's __gc
// ran gets a new userdata for the same slot, and the old __gc leaves the
// new cache entry alone. Finalizers run in a fixed order (5.4: newest
// first), so one of the two sentinels around the old userdata always runs
// in that window; the slot's userdata count proves it (2 = old + new).
func TestRepushBeforeGCKeepsTheNewEntry(t *testing.T) {
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	obj := &target{N: 1}
	if err := e.SetGlobal("get", func() *target { return obj }); err != nil {
		t.Fatal(err)
	}
	maxCount := 0
	if err := e.SetGlobal("probe", func() {
		maxCount = max(maxCount, int(e.g.S.SlotCount(1)))
	}); err != nil {
		t.Fatal(err)
	}
	err = e.DoString(sentinelLua + `
		local function repush() saved = get(); probe() end
		do
			local s1 = sentinel(repush)
			local u = get()
			assert(u.N == 1)
			local s2 = sentinel(repush)
		end
		if jit then jit.flush() end
		collectgarbage(); collectgarbage()
		assert(saved, "finalizers did not run")
		assert(rawequal(get(), saved), "the old __gc broke the new cache entry")
		assert(saved.N == 1)
	`)
	if err != nil {
		t.Fatal(err)
	}
	if maxCount != 2 {
		t.Fatalf("slot count peaked at %d: no re-push happened between the weak clear and __gc", maxCount)
	}
	if s := e.Stats(); s.LiveObjects != 1 {
		t.Errorf("LiveObjects = %d with one object held, want 1", s.LiveObjects)
	}
	if err := e.DoString(`saved = nil; if jit then jit.flush() end; collectgarbage(); collectgarbage()`); err != nil {
		t.Fatal(err)
	}
	if s := e.Stats(); s.LiveObjects != 0 {
		t.Errorf("LiveObjects = %d after Lua dropped the object, want 0", s.LiveObjects)
	}
}

func TestResurrectedObjectIsACleanError(t *testing.T) {
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.SetGlobal("obj", &target{N: 5}); err != nil {
		t.Fatal(err)
	}
	err = e.DoString(sentinelLua + `
		do
			local o = obj
			obj = nil
			sentinel(function() saved = o end)
		end
		collectgarbage(); collectgarbage()
		assert(saved, "finalizer did not run")
		local n = saved.N
	`)
	if err == nil || !strings.Contains(err.Error(), "attempt to use a released object") {
		t.Errorf("err = %v, want the released-object error", err)
	}
}

// A __gc called by hand on a live, cached userdata releases it while the
// weak cache still maps its slot to it (on Lua 5.4 zlua's __gc leaves the
// cache alone): the next push must make a new userdata, not hand back the
// released one, and everything is freed in the end.
func TestHandCalledGCThenRepush(t *testing.T) {
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	obj := &target{N: 4}
	if err := e.SetGlobal("get", func() *target { return obj }); err != nil {
		t.Fatal(err)
	}
	err = e.DoString(`
		local u = get()
		assert(rawequal(get(), u)) -- found again: the slot waits for Settle
		debug.getmetatable(u).__gc(u)
		local v = get()
		assert(not rawequal(u, v), "the released userdata came back from the cache")
		assert(v.N == 4 and rawequal(get(), v))
		old = u
	`)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.DoString(`local n = old.N`); err == nil || !strings.Contains(err.Error(), "attempt to use a released object") {
		t.Errorf("err = %v, want the released-object error", err)
	}
	if err := e.DoString(`old = nil; if jit then jit.flush() end; collectgarbage(); collectgarbage()`); err != nil {
		t.Fatal(err)
	}
	if err := e.Pump(); err != nil {
		t.Fatal(err)
	}
	if s := e.Stats(); s.LiveObjects != 0 {
		t.Errorf("LiveObjects = %d after Lua dropped everything, want 0", s.LiveObjects)
	}
}
