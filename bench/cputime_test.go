package bench

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// CPU time beside wall time. The machines these benchmarks run on are
// often shared: wall time (ns/op) counts every moment another process held
// the core, CPU time counts only the work done. cpuClock reads the calling
// thread's CPU clock (CLOCK_THREAD_CPUTIME_ID) with the goroutine locked to
// its OS thread, so the clock follows the goroutine through cgo calls and
// C→Go callbacks, and reports it as cpu-ns/op. It also reports the whole
// process's CPU time as proc-cpu-ns/op: that adds the Go runtime's
// background work on other threads (the concurrent garbage collector,
// which the thread figure leaves out; Lua's collector runs inline and is in
// both).

// threadCPU returns the CPU time consumed so far by the calling thread, in
// nanoseconds.
func threadCPU() int64 { return clockNanos(unix.CLOCK_THREAD_CPUTIME_ID) }

// processCPU returns the CPU time consumed so far by the whole process.
func processCPU() int64 { return clockNanos(unix.CLOCK_PROCESS_CPUTIME_ID) }

// threadSwitches returns the voluntary context switches of the calling
// thread so far: each time it blocked (waited for a lock, slept) rather
// than being preempted.
func threadSwitches() int64 {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		panic("bench: getrusage: " + err.Error())
	}
	return ru.Nvcsw
}

func clockNanos(id int32) int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(id, &ts); err != nil {
		panic("bench: clock_gettime: " + err.Error())
	}
	return ts.Nano()
}

// cpuClock accumulates the CPU time of a benchmark's timed part. It follows
// the benchmark timer: start it right after b.ResetTimer, pause it just
// before b.StopTimer and resume it just after b.StartTimer (both timer
// calls read the memory statistics, which stops the world), and report at
// the end of the timed part (before untimed teardown).
type cpuClock struct {
	b                 *testing.B
	thread, proc      int64 // accumulated while running
	thread0, proc0    int64 // clock values at the last start
	running, reported bool
}

// startCPU locks the goroutine to its thread and starts the clock.
func startCPU(b *testing.B) *cpuClock {
	runtime.LockOSThread()
	c := &cpuClock{b: b}
	c.resume()
	return c
}

// pause stops accumulating (untimed setup between timed parts).
func (c *cpuClock) pause() {
	if !c.running {
		return
	}
	c.thread += threadCPU() - c.thread0
	c.proc += processCPU() - c.proc0
	c.running = false
}

// resume accumulates again.
func (c *cpuClock) resume() {
	if c.running {
		return
	}
	c.running = true
	c.proc0 = processCPU()
	c.thread0 = threadCPU()
}

// report stops the clock, unlocks the thread and reports cpu-ns/op and
// proc-cpu-ns/op over b.N operations. A second call does nothing, so a
// deferred report is safe after an explicit one.
func (c *cpuClock) report() {
	if c.reported {
		return
	}
	c.pause()
	c.reported = true
	runtime.UnlockOSThread()
	c.b.ReportMetric(float64(c.thread)/float64(c.b.N), "cpu-ns/op")
	c.b.ReportMetric(float64(c.proc)/float64(c.b.N), "proc-cpu-ns/op")
}
