package zlua_test

import (
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/zlua-go/zlua"
)

// holdEnv makes another goroutine hold e inside a Go function that Lua
// called until the returned release is called, which waits for that call.
func holdEnv(t *testing.T, e *zlua.Env) (release func()) {
	t.Helper()
	inside, resume := make(chan struct{}), make(chan struct{})
	must(t, e.SetGlobal("holdEnvBlock", func() {
		close(inside)
		<-resume
	}))
	done := make(chan error, 1)
	go func() { done <- e.DoString(`holdEnvBlock()`) }()
	<-inside
	return func() {
		close(resume)
		must(t, <-done)
	}
}

// TestPendingResetSurvivesABusyPump: the Pump that reaches a pending Reset
// while another goroutine uses the Env returns ErrConcurrentUse and leaves
// the Reset pending; the next Pump applies it. Before, the request was
// taken and dropped: the loader never ran.
func TestPendingResetSurvivesABusyPump(t *testing.T) {
	e := newEnv(t)
	loads := 0
	e.Reset(func(e *zlua.Env) error {
		loads++
		return e.DoString(`reloaded = true`)
	})
	run(t, e, `old = true`)
	release := holdEnv(t, e)
	if err := e.Pump(); !errors.Is(err, zlua.ErrConcurrentUse) || loads != 0 {
		t.Fatalf("Pump with the Env held elsewhere = %v (loader ran %d times), want ErrConcurrentUse and no reset", err, loads)
	}
	release()
	must(t, e.Pump())
	if loads != 1 {
		t.Fatalf("loader ran %d times after the Env was free, want 1", loads)
	}
	run(t, e, `assert(reloaded and old == nil)`)
	must(t, e.Pump()) // applied once: nothing pending any more
	if loads != 1 {
		t.Errorf("loader ran again: %d", loads)
	}
}

// TestNewerResetReplacesAPendingOne: a Reset left pending by a busy Pump
// is replaced by a later Reset, as two Resets before one Pump are.
func TestNewerResetReplacesAPendingOne(t *testing.T) {
	e := newEnv(t)
	var ran []string
	e.Reset(func(*zlua.Env) error { ran = append(ran, "first"); return nil })
	release := holdEnv(t, e)
	if err := e.Pump(); !errors.Is(err, zlua.ErrConcurrentUse) {
		t.Fatalf("Pump = %v, want ErrConcurrentUse", err)
	}
	release()
	e.Reset(func(*zlua.Env) error { ran = append(ran, "second"); return nil })
	must(t, e.Pump())
	must(t, e.Pump())
	if len(ran) != 1 || ran[0] != "second" {
		t.Errorf("loaders run: %v, want [second]", ran)
	}
}

// TestCloseRunsPostsAcceptedBeforeIt: functions posted and not yet run
// when Close begins run inside Close, in order, on an open Env; a panic
// among them is returned, and Close still closes. Posts after Close has
// begun, from inside those functions too, return ErrClosed. Before, Close
// dropped them without notice.
func TestCloseRunsPostsAcceptedBeforeIt(t *testing.T) {
	e, err := zlua.New(zlua.Options{})
	must(t, err)
	var got []string
	var postInside, closeInside, pumpInside error
	must(t, e.Post(func(e *zlua.Env) {
		var s string
		if err := e.DoString(`x = "ran on an open Env"`); err != nil {
			s = err.Error()
		} else if err := e.Global("x", &s); err != nil {
			s = err.Error()
		}
		got = append(got, s)
	}))
	must(t, e.Post(func(*zlua.Env) { panic("posted boom") }))
	must(t, e.Post(func(e *zlua.Env) {
		postInside = e.Post(func(*zlua.Env) { got = append(got, "posted during Close") })
		closeInside = e.Close()
		pumpInside = e.Pump()
		got = append(got, "third")
	}))
	err = e.Close()
	if err == nil || !strings.Contains(err.Error(), "posted boom") {
		t.Errorf("Close = %v, want the posted panic", err)
	}
	if len(got) != 2 || got[0] != "ran on an open Env" || got[1] != "third" {
		t.Errorf("posted functions run by Close: %q", got)
	}
	if !errors.Is(postInside, zlua.ErrClosed) {
		t.Errorf("Post while Close runs = %v, want ErrClosed", postInside)
	}
	if !errors.Is(closeInside, zlua.ErrBusy) || !errors.Is(pumpInside, zlua.ErrBusy) {
		t.Errorf("Close, Pump inside a function Close runs = %v, %v, want ErrBusy", closeInside, pumpInside)
	}
	if err := e.Post(func(*zlua.Env) {}); !errors.Is(err, zlua.ErrClosed) {
		t.Errorf("Post after Close = %v, want ErrClosed", err)
	}
	if err := e.DoString(`x = 1`); !errors.Is(err, zlua.ErrClosed) {
		t.Errorf("DoString after Close = %v, want ErrClosed", err)
	}
	must(t, e.Close())
}

// TestPostsRacingWithCloseRunOrAreRefused: goroutines post while the
// owner pumps and then closes. Every Post that returned nil ran exactly
// once; the others returned ErrClosed.
func TestPostsRacingWithCloseRunOrAreRefused(t *testing.T) {
	for round := 0; round < 20; round++ {
		e, err := zlua.New(zlua.Options{})
		must(t, err)
		const workers, each = 4, 300
		var accepted, ran, posting atomic.Int64
		posting.Store(workers)
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer posting.Add(-1)
				for range each {
					err := e.Post(func(e *zlua.Env) {
						if err := e.DoString(`n = (n or 0) + 1`); err != nil {
							t.Errorf("posted function on an open Env: %v", err)
						}
						ran.Add(1)
					})
					if errors.Is(err, zlua.ErrClosed) {
						return
					}
					must(t, err)
					accepted.Add(1)
				}
			}()
		}
		must(t, e.Pump())
		// Close while some posts wait (unless the workers are done).
		for accepted.Load() < ran.Load()+10 && posting.Load() > 0 {
			runtime.Gosched()
		}
		must(t, e.Close())
		wg.Wait()
		if accepted.Load() != ran.Load() {
			t.Fatalf("round %d: %d posts accepted, %d ran", round, accepted.Load(), ran.Load())
		}
		if err := e.Post(func(*zlua.Env) { t.Error("ran after Close") }); !errors.Is(err, zlua.ErrClosed) {
			t.Fatalf("Post after Close = %v", err)
		}
	}
}
