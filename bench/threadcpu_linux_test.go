package bench

import (
	"syscall"
	"time"
)

// threadCPU is the CPU time the calling OS thread has used (getrusage
// RUSAGE_THREAD); the caller locks its goroutine to the thread.
func threadCPU() time.Duration {
	const rusageThread = 1 // RUSAGE_THREAD, Linux
	var ru syscall.Rusage
	if syscall.Getrusage(rusageThread, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
