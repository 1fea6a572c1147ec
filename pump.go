package zlua

import (
	"errors"
	"fmt"
)

// Pump is the end of a frame: it releases the Lua references Go dropped
// since the last Pump (at most Options.PumpBudget), runs the functions
// posted with Post (those queued when it starts, in order, each with its
// panics recovered), and applies a pending Reset. Call it from the owner
// goroutine, outside Lua (ErrBusy from a Go function Lua called).
func (e *Env) Pump() error {
	if e.g.Closed() {
		return ErrClosed
	}
	if err := e.g.Claim(); err != nil {
		return err
	}
	e.g.Settle()
	e.g.DrainRefs(e.opts.PumpBudget)
	e.g.Unclaim()

	var errs []error
	for _, fn := range e.posted.Take() {
		if err := runPosted(fn); err != nil {
			errs = append(errs, err)
		}
	}
	if r := e.reset.Swap(nil); r != nil && !e.g.Closed() {
		if err := e.applyReset(r.loader); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func runPosted(fn func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("zlua: posted function panicked: %v", r)
		}
	}()
	fn()
	return nil
}

// Post queues fn to run on the owner goroutine during the next Pump. It is
// the supported way for other goroutines to use the Env; it is safe for
// concurrent use. After Close it returns ErrClosed and fn never runs.
func (e *Env) Post(fn func(*Env)) error {
	if !e.posted.Post(func() { fn(e) }) {
		return ErrClosed
	}
	return nil
}

// Reset schedules a rebuild of the Lua state for the next Pump: queued
// references are released, the state is closed (every __gc runs), a fresh
// one is initialised as by New, and loader (if not nil) runs on it. Later
// calls before that Pump replace loader. Reset may be called from anywhere,
// including a Go function Lua is running. Function handles and errors of
// the old state fail with a clear error afterwards. If the new state
// cannot be built (out of memory), that Pump returns the error and the Env
// is closed.
func (e *Env) Reset(loader func(*Env) error) {
	e.reset.Store(&resetRequest{loader: loader})
}

// applyReset tears the state down in the spec's order and rebuilds it.
func (e *Env) applyReset(loader func(*Env) error) error {
	if err := e.g.Claim(); err != nil {
		return err
	}
	e.g.Teardown()
	err := e.g.Reopen()
	if err == nil && e.testFailAt != 0 {
		e.g.S.FailAllocAt(e.testFailAt)
	}
	e.g.Unclaim()
	if err == nil {
		err = e.init()
	}
	if err != nil {
		// The old state is gone and the new one could not be built: the
		// Env closes rather than run scripts on a half-initialised state.
		e.posted.Close()
		e.g.Close()
		openEnvs.Delete(e)
		return fmt.Errorf("zlua: reset: %w (the Env is closed)", err)
	}
	if loader != nil {
		if err := loader(e); err != nil {
			return fmt.Errorf("zlua: reset loader: %w", err)
		}
	}
	return nil
}
