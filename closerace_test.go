package zlua_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

// closeRaceRounds is the number of Envs TestCloseRacingWithCallsNeverCrashes
// closes under a running caller: 10^4 under -race (the figure issue 11 asks
// for; the race detector is what catches a field read before the claim),
// a tenth otherwise (cgocheck2, plain runs: enough to crash the old code
// every time) and a tenth of that with -short. Each round is a New and a
// Close: on the 2-core machine under load, 10^4 rounds took 30 s (Lua 5.4)
// and 61 s (LuaJIT) under -race.
var closeRaceRounds = map[bool]int{true: 10_000, false: 1_000}[raceEnabled]

// TestCloseRacingWithCallsNeverCrashes closes an Env while another
// goroutine calls it in a loop (DoString, a *Function, a typed func,
// SetGlobal, Global), after a random delay of 0–200 µs. The caller must end
// with ErrClosed (ErrStale for handles) and may see ErrConcurrentUse on
// the way; Close loses to a running call with ErrConcurrentUse and is
// retried. Before the fix the closed check came before the owner claim and
// the process died in zlua_load(NULL, …) or zlua_prog_reserve(NULL, …).
func TestCloseRacingWithCallsNeverCrashes(t *testing.T) {
	rounds := closeRaceRounds
	if testing.Short() {
		rounds /= 10
	}
	start := time.Now()
	retries := 0
	for round := range rounds {
		e, err := zlua.New(zlua.Options{})
		must(t, err)
		var fn *zlua.Function
		var typed func(int) error
		must(t, e.DoString(`function f(x) return x end`))
		must(t, e.GetFunction("f", &fn))
		must(t, e.GetFunction("f", &typed))
		c := &closeRace{between: make(chan struct{}), closed: make(chan struct{})}
		done := make(chan error, 1)
		go func() { done <- c.callUntilClosed(e, fn, typed) }()
		spin(time.Duration(rand.IntN(200)) * time.Microsecond)
		for {
			err := e.Close()
			if err == nil {
				break
			}
			if !errors.Is(err, zlua.ErrConcurrentUse) {
				t.Fatalf("round %d: Close = %v", round, err)
			}
			// Retry from a point where the caller is between two calls
			// and about to start the next: on a loaded machine a Close
			// spinning against a caller that never lets go can lose for
			// milliseconds. The next call still races with Close.
			retries++
			select {
			case <-c.between:
			case err := <-done:
				t.Fatalf("round %d: caller stopped before Close succeeded: %v", round, err)
			}
		}
		close(c.closed)
		if err := <-done; err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
	}
	t.Logf("%d rounds in %v (%d Close retries)", rounds, time.Since(start), retries)
}

// closeRace is the caller's side of one round.
type closeRace struct {
	between chan struct{} // the caller offers a point between two calls
	closed  chan struct{} // closed once Close succeeded
}

// callUntilClosed calls e in a loop until a call reports the Env closed.
func (c *closeRace) callUntilClosed(e *zlua.Env, fn *zlua.Function, typed func(int) error) error {
	var x int
	for i := 0; ; i++ {
		var err error
		switch i % 5 {
		case 0:
			err = e.DoString(`x = 1`)
		case 1:
			_, err = fn.Call(i)
		case 2:
			err = typed(i)
		case 3:
			err = e.SetGlobal("x", i)
		case 4:
			err = e.Global("x", &x)
		}
		switch {
		case err == nil, errors.Is(err, zlua.ErrConcurrentUse):
		case errors.Is(err, zlua.ErrClosed), errors.Is(err, zlua.ErrStale):
			return nil
		default:
			return err
		}
		select {
		case c.between <- struct{}{}:
		case <-c.closed:
		default:
		}
	}
}

// spin waits d without sleeping: timers are too coarse for microseconds.
func spin(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}

// TestEveryEntryPointRacingWithClose runs each entry point of an Env on
// its own goroutine in a loop while another goroutine closes the Env after
// a random delay, and two more call Close at the same moment. Every call
// must succeed or report ErrClosed, ErrStale or ErrConcurrentUse; Stats and
// Post must keep working (Post refusing with ErrClosed once Close began).
func TestEveryEntryPointRacingWithClose(t *testing.T) {
	rounds := 100 // about 2 s (Lua 5.4) and 6 s (LuaJIT) under -race
	if testing.Short() {
		rounds = 20
	}
	start := time.Now()
	defer func() { t.Logf("%d rounds in %v", rounds, time.Since(start)) }()
	type viewer interface{ Name() string }
	for round := range rounds {
		e, err := zlua.New(zlua.Options{})
		must(t, err)
		must(t, e.DoString(`function f(x) return x end`))
		var fn *zlua.Function
		must(t, e.GetFunction("f", &fn))
		entry := map[string]func(i int) error{
			"DoString":     func(int) error { return e.DoString(`x = 1`) },
			"DoStringArgs": func(i int) error { return e.DoStringArgs(`x = ...`, i) },
			"SetGlobal":    func(i int) error { return e.SetGlobal("x", i) },
			"Global":       func(int) error { var x any; return e.Global("x", &x) },
			"GetFunction":  func(int) error { var g func(string) error; return e.GetFunction("print", &g) },
			"Register":     func(i int) error { return e.Register("game.n", i) },
			"AsView":       func(int) error { return e.SetGlobal("v", zlua.AsView[viewer](&closeRaceObj{})) },
			"Call":         func(i int) error { _, err := fn.Call(i); return err },
			"Pump":         func(int) error { return e.Pump() },
			"Post":         func(int) error { return e.Post(func(*zlua.Env) {}) },
			"Reset": func(int) error {
				e.Reset(func(e *zlua.Env) error { return e.DoString(`function f(x) return x end`) })
				return e.Pump()
			},
			"Stats": func(int) error { e.Stats(); return nil },
		}
		var wg sync.WaitGroup
		stop := make(chan struct{})
		errs := make(chan error, len(entry)+2)
		for name, call := range entry {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// A bounded number of calls, so that the closers get the
				// Env in the end even on a loaded machine.
				for i := 0; i < 50; i++ {
					err := call(i)
					switch {
					case err == nil, errors.Is(err, zlua.ErrConcurrentUse),
						errors.Is(err, zlua.ErrClosed), errors.Is(err, zlua.ErrStale):
					default:
						errs <- fmt.Errorf("%s: %w", name, err)
						return
					}
					select {
					case <-stop:
						return
					default:
					}
				}
			}()
		}
		spin(time.Duration(rand.IntN(200)) * time.Microsecond)
		for range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					err := e.Close()
					if err == nil {
						return
					}
					if !errors.Is(err, zlua.ErrConcurrentUse) {
						errs <- fmt.Errorf("Close: %w", err)
						return
					}
					runtime.Gosched()
				}
			}()
		}
		for e.DoString(`x = 1`) != zlua.ErrClosed {
			runtime.Gosched()
		}
		close(stop)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("round %d: %v", round, err)
		}
	}
}

type closeRaceObj struct{}

func (*closeRaceObj) Name() string { return "obj" }
