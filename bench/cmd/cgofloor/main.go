// Command cgofloor prints what the cgo boundary alone costs on this
// machine: an empty Go→C call and an empty C→Go callback, in thread CPU
// time (CLOCK_THREAD_CPUTIME_ID, the goroutine locked to its thread), as
// the median of -rounds rounds of -n calls each. These are the floors
// under zlua's crossing rows: a Lua→Go call pays at least one callback
// more than the native C row, a Go→Lua call at least one cgo call more
// (docs/PERFORMANCE-HISTORY.md, "Issue 10's targets, measured").
//
// Usage:
//
//	go run ./cmd/cgofloor [-n 2000000] [-rounds 9]
package main

/*
static int zero_arg(int x) { return x + 1; }
extern int cgofloorBack(int);
static int callbacks(int n)
{
	int s = 0, i;
	for (i = 0; i < n; i++)
		s = cgofloorBack(s);
	return s;
}
*/
import "C"

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"

	"golang.org/x/sys/unix"
)

//export cgofloorBack
func cgofloorBack(x C.int) C.int { return x + 1 }

// threadCPU returns the calling thread's CPU time in nanoseconds.
func threadCPU() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		fmt.Fprintln(os.Stderr, "cgofloor:", err)
		os.Exit(1)
	}
	return ts.Nano()
}

func main() {
	n := flag.Int("n", 2000000, "calls per round")
	rounds := flag.Int("rounds", 9, "rounds (the median is reported)")
	flag.Parse()
	if *n <= 0 || *rounds <= 0 {
		fmt.Fprintln(os.Stderr, "cgofloor: -n and -rounds must be positive")
		os.Exit(2)
	}
	runtime.LockOSThread()
	var calls, backs []float64
	for r := 0; r < *rounds; r++ {
		t := threadCPU()
		for i := 0; i < *n; i++ {
			C.zero_arg(C.int(i))
		}
		calls = append(calls, float64(threadCPU()-t)/float64(*n))
		t = threadCPU()
		C.callbacks(C.int(*n))
		backs = append(backs, float64(threadCPU()-t)/float64(*n))
	}
	slices.Sort(calls)
	slices.Sort(backs)
	m := *rounds / 2
	fmt.Printf("Go->C empty cgo call:  %.1f cpu-ns (median of %d; min %.1f, max %.1f)\n", calls[m], *rounds, calls[0], calls[*rounds-1])
	fmt.Printf("C->Go empty callback:  %.1f cpu-ns (median of %d; min %.1f, max %.1f)\n", backs[m], *rounds, backs[0], backs[*rounds-1])
}
