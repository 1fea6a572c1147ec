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
//
// With every core running an instance, the Go runtime's sysmon thread
// would take the instances' processors at each of its wakeups (every
// 20 µs) once their goroutines ran 10 ms without passing through the
// scheduler, and each wakeup preempts an instance; zlua yields the
// goroutine within 4-8 ms of Lua→Go calls so that it does not happen
// (docs/PERFORMANCE.md, "Parallel Envs"). Native C and gopher-lua are
// driven as they are.
func BenchmarkScale_Parallel(b *testing.B) {
	for _, impl := range frameImpls {
		if impl.methodsOnly { // a variant of the Frame rows, not run here
			continue
		}
		b.Run(impl.name, func(b *testing.B) { benchParallel(b, impl) })
	}
}

const (
	parallelEntities = 1000
	parallelFrames   = 200
	parallelWarmup   = 5 // frames run before the clock starts
	// parallelRepeats is how many times each iteration runs every
	// instance count, interleaved: one run lasts 50-150 ms, short beside
	// this VM's slow phases.
	parallelRepeats = 3
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
	for i := 0; i < b.N*parallelRepeats; i++ {
		for j, n := range counts {
			runtime.GC()
			r, err := runParallel(impl, n)
			if err != nil {
				b.Fatalf("%s, %d instances: %v", impl.name, n, err)
			}
			t := &totals[j]
			t.frames += n * parallelFrames
			t.wall += r.wall
			t.cpu += r.cpu
			t.vcsw += r.vcsw
		}
	}
	procs := runtime.GOMAXPROCS(0)
	one := totals[0]
	for j, n := range counts {
		t := totals[j]
		p := fmt.Sprintf("N%d-", n)
		b.ReportMetric(t.rate(), p+"frames/s")
		b.ReportMetric(t.rate()/float64(min(n, procs)), p+"frames/s/core")
		b.ReportMetric(t.cpuPerFrame(), p+"cpu-ns/frame")
		b.ReportMetric(t.onCPU(n), p+"on-cpu-%")
		b.ReportMetric(1000*float64(t.vcsw)/float64(t.frames), p+"vcsw/kframe")
		if n > 1 {
			b.ReportMetric(t.rate()/one.rate(), p+"speedup")
			b.ReportMetric(t.cpuPerFrame()/one.cpuPerFrame(), p+"cpu-vs-N1")
		}
	}
	b.ReportMetric(0, "ns/op")
}

// rate is frames per wall second.
func (t parallelTotals) rate() float64 { return float64(t.frames) / t.wall.Seconds() }

// cpuPerFrame is thread CPU time per frame.
func (t parallelTotals) cpuPerFrame() float64 { return float64(t.cpu) / float64(t.frames) }

// onCPU is the instances' thread CPU time over n times the wall time, in %.
func (t parallelTotals) onCPU(n int) float64 {
	return 100 * float64(t.cpu) / (float64(n) * float64(t.wall.Nanoseconds()))
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
