package bench

import (
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
	"github.com/zlua-go/zlua/bench/native"
)

const fnLua = `function f() end`

// releasedHandles makes n handles of f and releases them: their refs wait
// in the queue for the next Pump.
func releasedHandles(b *testing.B, e *zlua.Env, n int) {
	for i := 0; i < n; i++ {
		var f *zlua.Function
		if err := e.GetFunction("f", &f); err != nil {
			b.Fatal(err)
		}
		f.Release()
	}
}

// BenchmarkPump_DrainRefs1000 measures releasing 1000 pending Lua refs:
// one zlua Pump draining 1000 queued refs against a C loop of 1000
// luaL_unref. Creating the refs is not timed (make bench runs this group
// with a fixed iteration count, since the setup costs more than the
// operation). gopher-lua has no registry refs.
func BenchmarkPump_DrainRefs1000(b *testing.B) {
	const batch = 1000
	b.Run("native", func(b *testing.B) {
		s, err := native.Open()
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		if err := s.DoString(fnLua); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		cpu := startCPU(b)
		defer cpu.report()
		for i := 0; i < b.N; i++ {
			cpu.pause()
			b.StopTimer()
			refs, err := s.MakeRefs("f", batch)
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			cpu.resume()
			s.Unref(refs)
		}
	})
	b.Run("zlua", func(b *testing.B) {
		e, err := zlua.New(zlua.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer e.Close()
		if err := e.DoString(fnLua); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		cpu := startCPU(b)
		defer cpu.report()
		for i := 0; i < b.N; i++ {
			cpu.pause()
			b.StopTimer()
			releasedHandles(b, e, batch)
			b.StartTimer()
			cpu.resume()
			if err := e.Pump(); err != nil {
				b.Fatal(err)
			}
		}
		cpu.report()
		b.StopTimer()
		if p := e.Stats().PendingRefs; p != 0 {
			b.Fatalf("PendingRefs = %d after Pump", p)
		}
	})
}

// BenchmarkScale_PumpDrain1e6 queues 10^6 released refs and drains them
// with Pump under a budget of 10^4 per call, as a frame loop would: it
// reports the cost per Pump (p50, p99) and per ref (wall and thread CPU).
func BenchmarkScale_PumpDrain1e6(b *testing.B) {
	const n, budget = 1000000, 10000
	b.Run("zlua", func(b *testing.B) {
		var perPump []float64
		var total time.Duration
		var cpuTotal int64
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for i := 0; i < b.N; i++ {
			e, err := zlua.New(zlua.Options{PumpBudget: budget})
			if err != nil {
				b.Fatal(err)
			}
			if err := e.DoString(fnLua); err != nil {
				b.Fatal(err)
			}
			releasedHandles(b, e, n)
			for e.Stats().PendingRefs > 0 {
				c0, t0 := threadCPU(), time.Now()
				if err := e.Pump(); err != nil {
					b.Fatal(err)
				}
				d := time.Since(t0)
				cpuTotal += threadCPU() - c0
				total += d
				perPump = append(perPump, float64(d.Nanoseconds()))
			}
			e.Close()
		}
		slices.Sort(perPump)
		b.ReportMetric(perPump[len(perPump)/2], "p50-ns/pump")
		b.ReportMetric(perPump[len(perPump)*99/100], "p99-ns/pump")
		b.ReportMetric(float64(total.Nanoseconds())/float64(b.N*n), "ns/ref")
		b.ReportMetric(float64(cpuTotal)/float64(b.N*n), "cpu-ns/ref")
		b.ReportMetric(0, "ns/op")
	})
}
