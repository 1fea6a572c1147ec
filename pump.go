package zlua

import (
	"errors"
	"fmt"

	"github.com/zlua-go/zlua/callbackgate"
)

// Pump is the end of a frame: it releases the Lua references Go dropped
// since the last Pump (at most Options.PumpBudget), runs the functions
// posted with Post (those queued when it starts, in order, each with its
// panics recovered), and applies a pending Reset. Call it from the owner
// goroutine, outside Lua (ErrBusy from a Go function Lua called). A Reset
// that cannot be applied because another goroutine is using the Env stays
// pending for the next Pump, which the returned ErrConcurrentUse says.
//
// While Pump runs posted functions or a Reset's loader it holds the Env,
// as Close does: their own calls of the Env nest, and every other
// goroutine's call, Pump or Close gets ErrConcurrentUse, so two posted
// functions never run at once and nobody sees a state the loader is still
// building. A posted function that calls Pump gets ErrBusy; one that calls
// Close closes the Env there, after running the rest of this Pump's
// functions and then those posted since, in order.
func (e *Env) Pump() error {
	if e.g == nil {
		return errUnmade
	}
	if e.posted.Len() == 0 && e.reset.Load() == nil {
		// The common frame: only releases, under a plain claim.
		if err := e.g.Claim(); err != nil {
			return e.pumpRefused(err)
		}
		e.g.Settle()
		e.g.DrainRefs(e.opts.PumpBudget)
		e.g.Unclaim()
		return nil
	}
	return e.pumpHeld()
}

// errPumpInPump is Pump's refusal from inside the work a Pump runs.
var errPumpInPump = busyError("zlua: Pump called from a function Pump runs (the Env is held until it returns)")

// busyError is an ErrBusy with its own words.
type busyError string

func (e busyError) Error() string        { return string(e) }
func (e busyError) Is(target error) bool { return target == ErrBusy }

// pumpRefused names a refused Pump: ErrBusy on the goroutine of a running
// Pump (only that goroutine can get ErrBusy while it holds the Env) is a
// Pump from its own work.
func (e *Env) pumpRefused(err error) error {
	if err == ErrBusy && e.pumpRun != nil {
		return errPumpInPump
	}
	if err == ErrBusy && e.closeRun && e.g.Depth() == 1 {
		return errPumpInClose
	}
	return err
}

// postRun is a batch of posted functions being run: next is the first not
// started. A Close inside one of them takes the rest (closeInPump).
type postRun struct {
	fns  []func()
	next int
}

// pumpHeld is Pump with work to run: everything under one Hold.
func (e *Env) pumpHeld() error {
	if err := e.g.Hold(); err != nil {
		return e.pumpRefused(err)
	}
	run := &postRun{}
	e.pumpRun = run
	// Deferred, so that a posted function's runtime.Goexit (after the
	// rest ran, runAllPosted) still lets go of the Env. Release does
	// nothing once a posted function or the Reset closed it.
	defer func() {
		e.pumpRun = nil
		e.g.Release()
	}()
	e.g.Settle()
	e.g.DrainRefs(e.opts.PumpBudget)
	run.fns = e.posted.Take()
	errs := e.runAllPosted(run)
	if e.g.Closed() {
		return errors.Join(errs...) // a posted function closed the Env
	}
	if r := e.reset.Swap(nil); r != nil {
		if err := e.applyReset(r.loader); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// runAllPosted runs run's functions from run.next on, in order, each
// through runPosted, and returns their errors. A function that calls
// runtime.Goexit ends the calling goroutine only after the rest have run
// (the deferred call that sees it runs them), so every function Post
// accepted runs even then; a Pump or Close on that goroutine then ends as
// its own deferred calls say.
func (e *Env) runAllPosted(run *postRun) (errs []error) {
	for run.next < len(run.fns) {
		fn := run.fns[run.next]
		run.next++
		returned := false
		func() {
			defer func() {
				if !returned { // runtime.Goexit: runPosted recovers panics
					errs = append(errs, e.runAllPosted(run)...)
				}
			}()
			if err := e.runPosted(fn); err != nil {
				errs = append(errs, err)
			}
			returned = true
		}()
	}
	return errs
}

// runPosted runs one posted function, its panic recovered as an error
// (and counted in Stats.Panics).
func (e *Env) runPosted(fn func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e.g.CountPanic()
			err = callbackgate.NewPanicError("posted function", r)
		}
	}()
	fn()
	return nil
}

// errNilPost is Post's refusal of a nil function.
var errNilPost = errors.New("zlua: post: nil function")

// Post queues fn to run on the owner goroutine during the next Pump. It is
// the supported way for other goroutines to use the Env; it is safe for
// concurrent use. Once Close has begun it returns ErrClosed and fn never
// runs; every function it accepted runs, in the next Pump or in Close. A
// function that calls runtime.Goexit ends the goroutine running the Pump
// or Close only after the functions posted after it ran (and a Close
// still closes the Env).
func (e *Env) Post(fn func(*Env)) error {
	if e.g == nil {
		return errUnmade
	}
	if fn == nil {
		return errNilPost // it could only fail in the Pump, far from here
	}
	if !e.posted.Post(func() { fn(e) }) {
		return ErrClosed
	}
	return nil
}

// Reset schedules a rebuild of the Lua state for the next Pump: queued
// references are released, the state is closed (every __gc runs), a fresh
// one is initialised as by New, and loader (if not nil) runs on it. Later
// calls before that Pump replace loader; an error loader returns is that
// Pump's error (wrapped: "zlua: reset loader: ...", errors.Is matches it),
// and a panic in loader is recovered as that Pump's error, as a posted
// function's is. Either way the Env stays on the new state as far as
// loader built it: the old state is gone, and a host that wants a working
// version resets again with a loader that succeeds (a hot reload that
// must keep the old version on failure loads into a second Env, or with
// require, instead). Reset may be called from anywhere,
// including a Go function Lua is running. Function handles and errors of
// the old state fail with a clear error afterwards. If the new state
// cannot be built (out of memory), that Pump returns the error and the Env
// is closed. A Go function of the old state's finalizers that calls
// runtime.Goexit ends only its own goroutine (see Close): the state is
// replaced all the same and that Pump returns ErrAbandoned naming it.
func (e *Env) Reset(loader func(*Env) error) {
	if e.g == nil {
		return
	}
	e.reset.Store(&resetRequest{loader: loader})
}

// applyReset tears the state down in the spec's order and rebuilds it,
// then runs loader, all inside Pump's hold, so that no other goroutine
// sees the state half built (ErrConcurrentUse meanwhile).
func (e *Env) applyReset(loader func(*Env) error) error {
	// A Go function that called runtime.Goexit while the old state closed
	// (a __gc function) ended only its own goroutine (closeLua): the old
	// state is freed, the new one is built, and Pump reports it.
	closeErr := e.g.Teardown()
	err := e.g.Reopen()
	if err == nil && e.testFailAt != 0 {
		e.g.S.FailAllocAt(e.testFailAt)
	}
	if err == nil {
		err = e.init()
	}
	if err != nil {
		// The old state is gone and the new one could not be built: the
		// Env closes rather than run scripts on a half-initialised state.
		// Posted functions cannot run on it any more: they are counted.
		// (Pump's Release finds the gate closed.)
		dropped := len(e.posted.CloseTake())
		if cerr := e.g.CloseClaimed(); cerr != nil {
			closeErr = errors.Join(closeErr, cerr)
		}
		e.forget()
		if dropped > 0 {
			return errors.Join(closeErr, fmt.Errorf("zlua: reset: %w (the Env is closed; %d posted functions dropped)", err, dropped))
		}
		return errors.Join(closeErr, fmt.Errorf("zlua: reset: %w (the Env is closed)", err))
	}
	if loader != nil {
		if err := runLoader(loader, e); err != nil {
			return errors.Join(closeErr, err)
		}
	}
	return closeErr
}

// runLoader runs a Reset's loader on the new state, outside Lua. Like a
// posted function it may come from any goroutine's Reset, so its panic is
// recovered as the Pump's error rather than unwinding the frame loop that
// called Pump; the state it was building stays open as it left it.
func runLoader(loader func(*Env) error, e *Env) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e.g.CountPanic()
			err = callbackgate.NewPanicError("reset loader", r)
		}
	}()
	if err := loader(e); err != nil {
		return fmt.Errorf("zlua: reset loader: %w", err)
	}
	return nil
}
