package cgo_test

import (
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/zlua-go/zlua/cgo"
)

var tidSink uintptr

// BenchmarkThreadID compares the two ways of naming the calling OS thread
// for the owner check (docs/ARCHITECTURE.md, "Thread identity"): the address
// of a C thread-local read through cgo (cgo.ThreadID, what a nested Enter or
// a Claim from inside Lua pays; the trampoline reads the same address
// without a crossing) and the gettid system call (golang.org/x/sys/unix's
// Gettid is the same raw system call as syscall.Gettid). Besides ns/op it
// reports cpu-ns/op, the thread's own CPU time, which other load on the
// machine does not inflate.
func BenchmarkThreadID(b *testing.B) {
	b.Run("cgo-tls", func(b *testing.B) {
		threadCPU(b, func() { tidSink += cgo.ThreadID() })
	})
	b.Run("gettid", func(b *testing.B) {
		threadCPU(b, func() { tidSink += uintptr(syscall.Gettid()) })
	})
}

// threadCPU runs op b.N times on one locked OS thread and reports the
// thread's CPU time (user and system, getrusage RUSAGE_THREAD) per op.
func threadCPU(b *testing.B, op func()) {
	const rusageThread = 1 // RUSAGE_THREAD
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ReportAllocs()
	var before, after syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &before); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		op()
	}
	if err := syscall.Getrusage(rusageThread, &after); err != nil {
		b.Fatal(err)
	}
	cpu := tvDur(after.Utime) + tvDur(after.Stime) - tvDur(before.Utime) - tvDur(before.Stime)
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

func tvDur(tv syscall.Timeval) time.Duration {
	return time.Duration(tv.Sec)*time.Second + time.Duration(tv.Usec)*time.Microsecond
}
