package bench

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// BenchmarkScale_Parallel runs N independent instances (zlua Envs, native
// lua_States, gopher-lua LStates) on N goroutines at once, for N = 1, 2
// and GOMAXPROCS (the cores Go uses), each running parallelFrames frames
// of the method-style frame workload with parallelEntities entities. With
// no shared lock or shared cache line on the hot path, N instances on N
// free cores do N times the frames of one.
//
// Metrics, per N (prefix Nn-):
//
//   - frames/s: frames of all instances per wall second; frames/s/core
//     divides by the cores in use, min(N, GOMAXPROCS).
//   - speedup: frames/s over frames/s of one instance (wall time: on a
//     shared machine other processes lower it).
//   - cpu-ns/frame: thread CPU time per frame; cpu-vs-N1 is its ratio to
//     one instance's. This one is robust to other load: a lock that spins
//     or a cache line that bounces between cores raises it above 1.
//   - on-cpu-%: thread CPU time over wall time, per instance. A lock that
//     blocks lowers it (so do other processes taking the cores).
//   - vcsw/kframe: voluntary context switches of the instances' threads
//     per 1000 frames: a thread that blocks (a contended lock, a channel)
//     switches voluntarily; other processes cause involuntary switches
//     only, so this one is robust to other load too.
func BenchmarkScale_Parallel(b *testing.B) {
	for _, impl := range frameImpls {
		b.Run(impl.name, func(b *testing.B) { benchParallel(b, impl) })
	}
}

const (
	parallelEntities = 1000
	parallelFrames   = 200
	parallelWarmup   = 5 // frames run before the clock starts
)

// parallelCounts lists the instance counts to run: 1, 2 and GOMAXPROCS.
func parallelCounts() []int {
	ns := []int{1, 2, runtime.GOMAXPROCS(0)}
	slices.Sort(ns)
	return slices.Compact(ns)
}

// parallelTotals accumulates the runs of one instance count.
type parallelTotals struct {
	frames int
	wall   time.Duration
	cpu    int64 // thread CPU time, summed over the instances
	vcsw   int64 // voluntary context switches, summed over the instances
}

func benchParallel(b *testing.B, impl frameImpl) {
	counts := parallelCounts()
	totals := make([]parallelTotals, len(counts))
	for i := 0; i < b.N; i++ {
		for j, n := range counts {
			runtime.GC()
			r, err := runParallel(impl, n)
			if err != nil {
				b.Fatalf("%s, %d instances: %v", impl.name, n, err)
			}
			totals[j].frames += n * parallelFrames
			totals[j].wall += r.wall
			totals[j].cpu += r.cpu
			totals[j].vcsw += r.vcsw
		}
	}
	procs := runtime.GOMAXPROCS(0)
	one := totals[0]
	oneRate := float64(one.frames) / one.wall.Seconds()
	oneCPU := float64(one.cpu) / float64(one.frames)
	for j, n := range counts {
		t := totals[j]
		rate := float64(t.frames) / t.wall.Seconds()
		cpu := float64(t.cpu) / float64(t.frames)
		p := fmt.Sprintf("N%d-", n)
		b.ReportMetric(rate, p+"frames/s")
		b.ReportMetric(rate/float64(min(n, procs)), p+"frames/s/core")
		b.ReportMetric(cpu, p+"cpu-ns/frame")
		b.ReportMetric(100*float64(t.cpu)/(float64(n)*float64(t.wall.Nanoseconds())), p+"on-cpu-%")
		b.ReportMetric(1000*float64(t.vcsw)/float64(t.frames), p+"vcsw/kframe")
		if n > 1 {
			b.ReportMetric(rate/oneRate, p+"speedup")
			b.ReportMetric(cpu/oneCPU, p+"cpu-vs-N1")
		}
	}
	b.ReportMetric(0, "ns/op")
}

// parallelRun is one run of n instances.
type parallelRun struct {
	wall      time.Duration // until the last instance finished its frames
	cpu, vcsw int64         // summed over the instances' threads
}

// runParallel sets up n instances, each on its own goroutine locked to its
// thread, starts them together and measures their frames (setup and
// teardown are not timed).
func runParallel(impl frameImpl, n int) (parallelRun, error) {
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	cpus, vcsws := make([]int64, n), make([]int64, n)
	ends := make([]time.Time, n)
	errs := make([]error, n)
	ready.Add(n)
	done.Add(n)
	for i := range n {
		go func() {
			defer done.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			sim, err := impl.open(methodsFrame, parallelEntities)
			for f := 0; err == nil && f < parallelWarmup; f++ {
				err = sim.frame(f)
			}
			ready.Done()
			<-start
			if err != nil {
				errs[i] = err
				if sim != nil {
					sim.close()
				}
				return
			}
			defer sim.close()
			v0, c0 := threadSwitches(), threadCPU()
			for f := parallelWarmup; f < parallelWarmup+parallelFrames; f++ {
				if err := sim.frame(f); err != nil {
					errs[i] = err
					return
				}
			}
			cpus[i] = threadCPU() - c0
			ends[i] = time.Now()
			vcsws[i] = threadSwitches() - v0
		}()
	}
	ready.Wait()
	t0 := time.Now()
	close(start)
	done.Wait()
	var r parallelRun
	for i := range n {
		if errs[i] != nil {
			return r, errs[i]
		}
		r.wall = max(r.wall, ends[i].Sub(t0))
		r.cpu += cpus[i]
		r.vcsw += vcsws[i]
	}
	return r, nil
}
