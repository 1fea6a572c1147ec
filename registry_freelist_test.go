package zlua

import "testing"

// TestRefsReleasedInACallNeverAllocate releases table handles' registry
// refs at a Lua→Go call's scheduler check while every allocation fails,
// with the registry's hash part grown through several sizes by a script
// in between (each size is full at some step). A release inside a call
// cannot be protected (a raise would unwind through Go frames), so it
// must store only into slots the registry has: the released refs' own,
// and the freelist key, which exists from boot on both backends (on
// LuaJIT boot stores 0 into registry[0]; a release never inserts it).
func TestRefsReleasedInACallNeverAllocate(t *testing.T) {
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var held []*Table
	drains := 0
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(e.SetGlobal("hold", func(tb *Table) { held = append(held, tb) }))
	must(e.SetGlobal("drop", func() {
		for _, tb := range held {
			tb.Release()
		}
		held = held[:0]
		e.g.S.FailAllocAt(1) // every growing allocation from here fails
		e.g.S.SetTick(0)     // the next call's check releases the refs
	}))
	must(e.SetGlobal("heal", func() {
		e.g.S.FailAllocAt(0)
		if e.Stats().PendingRefs == 0 {
			drains++
		}
	}))
	must(e.DoString(`
		local reg = debug.getregistry()
		for i = 1, 600 do
			reg["zlua.test.pad" .. i] = true
			hold({}) hold({}) hold({})
			drop()
			heal()
		end`))
	if drains != 600 {
		t.Fatalf("the refs were released at the check of %d of 600 calls", drains)
	}
}
