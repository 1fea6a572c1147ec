package zlua_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

// yieldRun is how long the yield tests keep Lua calling Go (os.clock,
// the process's CPU time): eight times the 5 ms between yields.
const yieldRun = 40 * time.Millisecond

// checkYields checks Stats.Yields after a run of wall time d made of
// Lua→Go calls: at least one per 10 ms (half the periods, room for slow
// ticks under -race), at most one per 5 ms plus the first.
func checkYields(t *testing.T, e *zlua.Env, d time.Duration) {
	t.Helper()
	y := e.Stats().Yields
	least := max(1, uint64(d/(10*time.Millisecond)))
	most := uint64(d/(5*time.Millisecond)) + 1
	if y < least || y > most {
		t.Fatalf("%d yields in a %v run of Lua→Go calls, want %d..%d", y, d.Round(time.Millisecond), least, most)
	}
}

// TestLongRunsOfCallsYieldToTheScheduler runs one Lua call that calls a Go
// function for 40 ms: the goroutine is yielded to the Go scheduler every
// 5 ms of it, as the runtime would preempt Go code (without the yields,
// the runtime's sysmon takes the goroutine's processor at each of its
// wakeups, every 20 µs). No call is lost or repeated around a yield.
func TestLongRunsOfCallsYieldToTheScheduler(t *testing.T) {
	e, err := zlua.New(zlua.Options{})
	must(t, err)
	defer e.Close()
	n := 0
	must(t, e.SetGlobal("bump", func(k int) int { n++; return k + 1 }))
	must(t, e.SetGlobal("secs", yieldRun.Seconds()))
	t0 := time.Now()
	var k int
	must(t, e.Eval(`
		local k, t0 = 0, os.clock()
		repeat
			for _ = 1, 256 do k = bump(k) end
		until os.clock() - t0 >= secs
		return k`, &k))
	checkYields(t, e, time.Since(t0))
	if k != n {
		t.Fatalf("Lua counted %d calls, Go %d", k, n)
	}
}

// TestSparseCallsYieldToo keeps Lua busy for 20 µs between calls into Go
// (about 2000 calls in the run): the calls between two scheduler checks
// follow the calls' density, so these yield every 5 ms too (a fixed count
// of 1024 calls between checks let 20 ms pass between them).
func TestSparseCallsYieldToo(t *testing.T) {
	e, err := zlua.New(zlua.Options{})
	must(t, err)
	defer e.Close()
	n := 0
	must(t, e.SetGlobal("bump", func(k int) int { n++; return k + 1 }))
	must(t, e.SetGlobal("secs", yieldRun.Seconds()))
	t0 := time.Now()
	var k int
	must(t, e.Eval(`
		local k, t0 = 0, os.clock()
		repeat
			local t = os.clock()
			while os.clock() - t < 20e-6 do end
			k = bump(k)
		until os.clock() - t0 >= secs
		return k`, &k))
	checkYields(t, e, time.Since(t0))
	if k != n {
		t.Fatalf("Lua counted %d calls, Go %d", k, n)
	}
}

// TestLeafMethodCallsYieldToo: the same with a leaf method (LuaJIT calls
// it through the FFI, not the trampoline; a due yield makes the leaf
// refuse once, and the method's C closure runs it after the yield).
func TestLeafMethodCallsYieldToo(t *testing.T) {
	e, err := zlua.New(zlua.Options{})
	must(t, err)
	defer e.Close()
	w := &Leafer{}
	must(t, e.SetGlobal("w", w))
	must(t, e.SetGlobal("secs", yieldRun.Seconds()))
	t0 := time.Now()
	var k int
	must(t, e.Eval(`
		local k, t0 = 0, os.clock()
		repeat
			for _ = 1, 256 do w:Move(1, 0); k = k + 1 end
		until os.clock() - t0 >= secs
		return k`, &k))
	checkYields(t, e, time.Since(t0))
	if w.Moves != k || w.X != float64(k) {
		t.Fatalf("Lua made %d calls, the method ran %d times (X = %v)", k, w.Moves, w.X)
	}
}

// BenchmarkYieldInACallback measures what one yield costs the goroutine:
// a Go function Lua calls that yields to the scheduler (the goroutine is
// locked to its thread inside the callback, so the runtime hands its
// processor to another thread and back), beside one that does not.
// Dispatch yields at most once per 5 ms, so a yield's cost divided by
// 5 ms is the most the yields take from a run of calls.
func BenchmarkYieldInACallback(b *testing.B) {
	for _, yield := range []bool{false, true} {
		name := "plain"
		if yield {
			name = "gosched"
		}
		b.Run(name, func(b *testing.B) {
			e, err := zlua.New(zlua.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			if err := e.SetGlobal("f", func() {
				if yield {
					runtime.Gosched()
				}
			}); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			if err := e.DoStringArgs(`for _ = 1, ... do f() end`, b.N); err != nil {
				b.Fatal(err)
			}
		})
	}
}
