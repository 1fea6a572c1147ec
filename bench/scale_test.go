package bench

import (
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

// BenchmarkScale_Objects1e6 pushes 10^6 distinct Go objects into a Lua
// table (all live at once), drops them, collects and pumps, then does it
// again in the same Env: the first round grows the slot table, the second
// reuses it. It reports ns per object for each round (wall and thread
// CPU), the bytes each live object costs (Lua heap plus Go heap, measured
// while all are held), the process's peak RSS, and the live slots left
// after each round (0 when everything was released).
func BenchmarkScale_Objects1e6(b *testing.B) {
	const n = 1000000
	b.Run("zlua", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			e, err := zlua.New(zlua.Options{})
			if err != nil {
				b.Fatal(err)
			}
			must(b, e.SetGlobal("mk", func() *Counter { return &Counter{} }))
			var perRound, cpuRound [2]float64
			var left [2]int
			var perObject float64
			for round := 0; round < 2; round++ {
				runtime.GC()
				var m0, m1 runtime.MemStats
				runtime.ReadMemStats(&m0)
				lua0 := e.Stats().LuaBytes
				runtime.LockOSThread()
				c0, t0 := threadCPU(), time.Now()
				must(b, e.DoString(`held = {} for i = 1, 1000000 do held[i] = mk() end`))
				perRound[round] = float64(time.Since(t0).Nanoseconds()) / n
				cpuRound[round] = float64(threadCPU()-c0) / n
				runtime.UnlockOSThread()
				runtime.GC()
				runtime.ReadMemStats(&m1)
				if round == 0 {
					goBytes := float64(m1.HeapAlloc) - float64(m0.HeapAlloc)
					luaBytes := float64(e.Stats().LuaBytes) - float64(lua0)
					perObject = (goBytes + luaBytes) / n
				}
				must(b, e.DoString(`held = nil collectgarbage() collectgarbage()`))
				must(b, e.Pump())
				left[round] = e.Stats().LiveObjects
			}
			capacity := e.Stats().SlotCapacity
			must(b, e.Close())
			var ru syscall.Rusage
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
			b.ReportMetric(perRound[0], "ns/object-grow")
			b.ReportMetric(perRound[1], "ns/object-reuse")
			b.ReportMetric(cpuRound[0], "cpu-ns/object-grow")
			b.ReportMetric(cpuRound[1], "cpu-ns/object-reuse")
			b.ReportMetric(perObject, "B/live-object")
			b.ReportMetric(float64(ru.Maxrss)/1024, "peak-RSS-MiB")
			b.ReportMetric(float64(left[0]+left[1]), "slots-left")
			b.ReportMetric(float64(capacity), "slot-capacity")
			b.ReportMetric(0, "ns/op")
		}
	})
}
