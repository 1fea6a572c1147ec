package zlua_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

// yieldRun is how long the yield tests keep Lua calling Go (os.clock,
// the process's CPU time): ten times the 4 ms after which a yield is due.
const yieldRun = 40 * time.Millisecond

// checkYields checks Stats.Yields after a run of wall time d made of
// Lua→Go calls: at least one per 20 ms (one per 7 ms of the run, and the
// run starts again when the goroutine is back from a yield: other
// goroutines' turns, longer under -race on a busy machine, are not
// counted), at most one per 4 ms (a due yield at an outermost return)
// plus one.
// inCall: whether they were to be taken inside the call (one long call:
// all but maybe the last) or at outermost returns (short calls: all but
// maybe one).
func checkYields(t *testing.T, e *zlua.Env, d time.Duration, inCall bool) {
	t.Helper()
	y := e.Stats().Yields
	least := max(1, uint64(d/(20*time.Millisecond)))
	most := uint64(d/(4*time.Millisecond)) + 1
	if y < least || y > most {
		t.Fatalf("%d yields in a %v run of Lua→Go calls, want %d..%d", y, d.Round(time.Millisecond), least, most)
	}
	got := zlua.YieldsInCalls(e)
	if inCall && got+1 < y { // the last one may come due just before the return
		t.Fatalf("%d of %d yields taken inside the call, want all or all but one", got, y)
	}
	// At returns: all but at most one. A check that comes late (a busy
	// machine, cgocheck2's slow calls) finds the next one due past 8 ms
	// and yields at once, inside the call.
	if !inCall && got > 1 {
		t.Fatalf("%d of %d yields taken inside calls, want at most one", got, y)
	}
}

// TestLongRunsOfCallsYieldToTheScheduler runs one Lua call that calls a Go
// function for 40 ms: the goroutine is yielded to the Go scheduler every
// 7 ms of it, as the runtime would preempt Go code (without the yields,
// the runtime's sysmon takes the goroutine's processor at each of its
// wakeups, every 20 µs). No call is lost or repeated around a yield.
func TestLongRunsOfCallsYieldToTheScheduler(t *testing.T) {
	runBumps(t, `for _ = 1, 256 do k = bump(k) end`)
}

// runBumps runs body in a Lua loop for yieldRun (os.clock), body calling
// the Go function bump, and checks the yields of that one long call and
// that Lua and Go counted the same calls.
func runBumps(t *testing.T, body string) {
	t.Helper()
	e, err := zlua.New(zlua.Options{})
	must(t, err)
	defer e.Close()
	n := 0
	must(t, e.SetGlobal("bump", func(k int) int { n++; return k + 1 }))
	must(t, e.SetGlobal("secs", yieldRun.Seconds()))
	t0 := time.Now()
	var k int
	must(t, e.Eval(`local k, t0 = 0, os.clock()
		repeat `+body+` until os.clock() - t0 >= secs
		return k`, &k))
	checkYields(t, e, time.Since(t0), true)
	if k != n {
		t.Fatalf("Lua counted %d calls, Go %d", k, n)
	}
}

// TestSparseCallsYieldToo keeps Lua busy for 20 µs between calls into Go
// (about 2000 calls in the run): the calls between two scheduler checks
// follow the calls' density, so these yield every 7 ms too (a fixed count
// of 1024 calls between checks let 20 ms pass between them).
func TestSparseCallsYieldToo(t *testing.T) {
	runBumps(t, `local t = os.clock()
		while os.clock() - t < 20e-6 do end
		k = bump(k)`)
}

// TestShortCallsYieldAtTheirReturn calls a Lua function that calls Go 200
// times, from Go, for 40 ms: the yields are taken where the calls return
// to Go, unlocked (116–143 ns), not inside a callback,
// where the goroutine is locked to its thread (tens of microseconds).
//
// A thread the machine's load takes off its CPU inside a call finds its
// check late and yields there: a run with more than one yield inside
// calls is tried again, up to six runs of 40 ms (each failure is logged;
// three runs all failed once while three other test suites shared the
// two cores).
func TestShortCallsYieldAtTheirReturn(t *testing.T) {
	for try := 1; ; try++ {
		e, err := zlua.New(zlua.Options{})
		must(t, err)
		n := 0
		must(t, e.SetGlobal("bump", func(k int) int { n++; return k + 1 }))
		must(t, e.DoString(`function step(k) for _ = 1, 200 do k = bump(k) end return k end`))
		var step *zlua.Function
		must(t, e.Global("step", &step))
		t0 := time.Now()
		k := 0
		for time.Since(t0) < yieldRun {
			res, err := step.Call(k)
			must(t, err)
			k = int(res[0].(int64))
		}
		d := time.Since(t0)
		if k != n {
			t.Fatalf("Lua counted %d calls, Go %d", k, n)
		}
		if got := zlua.YieldsInCalls(e); got > 1 && try < 6 {
			t.Logf("run %d: %d of %d yields taken inside calls (a late check); again", try, got, e.Stats().Yields)
			step.Release()
			must(t, e.Close())
			continue
		}
		checkYields(t, e, d, false)
		step.Release()
		must(t, e.Close())
		return
	}
}

// TestLeafMethodCallsYieldToo: the same with a leaf method (LuaJIT calls
// it through the FFI, not the trampoline: leafDispatch runs the check).
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
	checkYields(t, e, time.Since(t0), true)
	if w.Moves != k || w.X != float64(k) {
		t.Fatalf("Lua made %d calls, the method ran %d times (X = %v)", k, w.Moves, w.X)
	}
}

// BenchmarkYieldInACallback measures what one yield costs the goroutine:
// a Go function Lua calls that yields to the scheduler (the goroutine is
// locked to its thread inside the callback, so the runtime hands its
// processor to another thread and back), beside one that does not.
// Inside a call zlua yields at most once per 7 ms, so a yield's cost
// divided by 7 ms is the most the yields take from one long call; runs of
// short calls from an unlocked goroutine yield at their returns instead,
// for 116–143 ns (the unlocked row).
func BenchmarkYieldInACallback(b *testing.B) {
	// What a yield at an outermost return costs an unlocked goroutine.
	b.Run("unlocked", func(b *testing.B) {
		for range b.N {
			runtime.Gosched()
		}
	})
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
