package zlua_test

import (
	"runtime"
	"testing"

	"github.com/zlua-go/zlua"
)

// TestTableHandlesDroppedDuringALongCallAreReleased calls a Go function
// that takes a *zlua.Table 400,000 times from one Lua call under a 4 MiB
// memory limit: each call makes a handle holding a registry ref, and the
// refs of the handles Go dropped are released at the scheduler checks
// during the call, not only by the Pump after it (the registry held one
// entry per call until then, and the call failed with "not enough
// memory").
func TestTableHandlesDroppedDuringALongCallAreReleased(t *testing.T) {
	e, err := zlua.New(zlua.Options{MemoryLimit: 4 << 20})
	must(t, err)
	defer e.Close()
	const n = 400000
	calls, peak := 0, 0
	must(t, e.SetGlobal("idx", func(tb *zlua.Table, k int) int {
		calls++
		if calls%20000 == 0 {
			runtime.GC() // the dropped handles' cleanups queue their refs
			peak = max(peak, e.Stats().LiveRefs)
		}
		return k
	}))
	must(t, e.SetGlobal("n", n))
	must(t, e.DoString(`local t = {} for i = 1, n do assert(idx(t, i) == i) end`))
	if calls != n {
		t.Fatalf("%d calls, want %d", calls, n)
	}
	if peak > n/2 {
		t.Fatalf("%d live refs at the peak of %d calls, want the dropped ones released during the call", peak, n)
	}
}
