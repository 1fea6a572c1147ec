package cgo_test

import (
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/zlua-go/zlua/cgo"
)

// TestLimitEndedOnAnotherThreadKeepsTheEnv: a limited call whose
// goroutine was unlocked by code that had not locked it can end on
// another OS thread than it began on. The thread it began on still names
// the env for the signal's handler, so Close keeps the C env (with no
// limit running) instead of freeing it: a signal there later reads it and
// does nothing.
func TestLimitEndedOnAnotherThreadKeepsTheEnv(t *testing.T) {
	for _, moved := range []bool{false, true} {
		s, err := cgo.Open(0)
		if err != nil {
			t.Fatal(err)
		}
		kept := cgo.KeptEnvs()
		begun := make(chan cgo.LimitPrev)
		release, done := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(done)
			runtime.LockOSThread()
			p := s.LimitBegin(s.Main())
			if !moved {
				s.LimitEnd(s.Main(), p)
			}
			begun <- p
			<-release
			runtime.UnlockOSThread() // the thread lives on
		}()
		p := <-begun
		if moved {
			// This goroutine's thread is another one: the first is
			// locked to the goroutine above.
			runtime.LockOSThread()
			s.LimitEnd(s.Main(), p)
			runtime.UnlockOSThread()
		}
		close(release)
		<-done
		s.Close()
		want := kept
		if moved {
			want++
		}
		if got := cgo.KeptEnvs(); got != want {
			t.Fatalf("moved %v: %d envs kept, want %d", moved, got, want)
		}
		// A signal to the first thread finds the kept env (or none).
		if err := syscall.Tgkill(syscall.Getpid(), p.Tid(), syscall.Signal(cgo.PokeSignal())); err != nil && err != syscall.ESRCH {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
