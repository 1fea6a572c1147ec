package zlua_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// outsider runs f on another goroutine and returns what it returned.
func outsider(f func() error) error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	return <-done
}

// TestPumpHoldsTheEnvWhileItsWorkRuns: while a Pump runs a posted
// function or a Reset's loader, every other goroutine's call, Pump and
// Close is refused with ErrConcurrentUse (before, they got in between the
// Pump's steps: two Pumps ran posted functions at once, and a loader's
// half-built state was visible); the work's own calls nest.
func TestPumpHoldsTheEnvWhileItsWorkRuns(t *testing.T) {
	e := newEnv(t)
	check := func(where string) {
		for name, f := range map[string]func() error{
			"DoString": func() error { return e.DoString(`x = 1`) },
			"Pump":     e.Pump,
			"Close":    e.Close,
		} {
			if err := outsider(f); !errors.Is(err, zlua.ErrConcurrentUse) {
				t.Errorf("%s from another goroutine while %s = %v, want ErrConcurrentUse", name, where, err)
			}
		}
	}
	must(t, e.Post(func(e *zlua.Env) {
		must(t, e.DoString(`inPost = true`))
		check("a posted function runs")
	}))
	e.Reset(func(e *zlua.Env) error {
		if err := e.DoString(`half = true`); err != nil {
			return err
		}
		check("the Reset loader runs")
		return e.DoString(`ready = true`)
	})
	must(t, e.Pump())
	run(t, e, `assert(half and ready and inPost == nil)`)
	must(t, e.Pump())
}

// TestCloseFromAPostedFunctionKeepsThePostingOrder: Close called by a
// function Pump runs first runs the rest of that Pump's functions, on the
// open Env, then those posted since, then closes. Before, the later posts
// ran first and the earlier ones found the Env closed.
func TestCloseFromAPostedFunctionKeepsThePostingOrder(t *testing.T) {
	e, err := zlua.New(zlua.Options{})
	must(t, err)
	var order []string
	post := func(name string, body func(*zlua.Env)) {
		must(t, e.Post(func(e *zlua.Env) {
			order = append(order, name)
			if body != nil {
				body(e)
			}
		}))
	}
	var closeErr error
	post("p1", nil)
	post("p2", func(e *zlua.Env) {
		post("p4", func(e *zlua.Env) {
			if err := e.DoString(`x = 4`); err != nil {
				t.Errorf("p4, posted before Close: %v", err)
			}
		})
		closeErr = e.Close()
		if err := e.DoString(`x = 2`); !errors.Is(err, zlua.ErrClosed) {
			t.Errorf("after Close inside p2: %v, want ErrClosed", err)
		}
	})
	post("p3", func(e *zlua.Env) {
		if err := e.DoString(`x = 3`); err != nil {
			t.Errorf("p3, posted before p2 ran: %v", err)
		}
		if err := e.Close(); !errors.Is(err, zlua.ErrBusy) {
			t.Errorf("Close from a function Close runs = %v, want ErrBusy", err)
		}
	})
	if err := e.Pump(); err != nil {
		t.Fatalf("Pump: %v", err)
	}
	must(t, closeErr)
	if got := fmt.Sprint(order); got != "[p1 p2 p3 p4]" {
		t.Errorf("order %s, want [p1 p2 p3 p4]", got)
	}
	if err := e.Post(func(*zlua.Env) {}); !errors.Is(err, zlua.ErrClosed) {
		t.Errorf("Post after Close = %v", err)
	}
	if err := e.Pump(); !errors.Is(err, zlua.ErrClosed) {
		t.Errorf("Pump after Close = %v", err)
	}
}

// TestPumpFromAPostedFunctionIsBusy: a posted function cannot pump the Env
// its Pump holds; the error says so.
func TestPumpFromAPostedFunctionIsBusy(t *testing.T) {
	e := newEnv(t)
	var got error
	must(t, e.Post(func(e *zlua.Env) { got = e.Pump() }))
	must(t, e.Pump())
	if !errors.Is(got, zlua.ErrBusy) || got.Error() != "zlua: Pump called from a function Pump runs (the Env is held until it returns)" {
		t.Errorf("nested Pump = %v", got)
	}
}

var errPostedBroke = errors.New("posted broke")

// TestPostedAndLoaderPanicsArePanicErrors: a panic in a posted function or
// a Reset loader comes back from Pump as a *PanicError, as one in a Go
// function Lua called does: errors.Is reaches an error panic value, and
// the Go stack of the panic is kept. Before, both were plain text.
func TestPostedAndLoaderPanicsArePanicErrors(t *testing.T) {
	e := newEnv(t)
	must(t, e.Post(func(*zlua.Env) { panic(errPostedBroke) }))
	e.Reset(func(*zlua.Env) error { panic("loader broke") })
	err := e.Pump()
	var pe *zlua.PanicError
	if !errors.Is(err, errPostedBroke) || !errors.As(err, &pe) {
		t.Fatalf("Pump = %v, want a PanicError wrapping errPostedBroke", err)
	}
	if pe.Func != "posted function" || pe.Value != errPostedBroke ||
		!strings.Contains(pe.Stack(), "TestPostedAndLoaderPanicsArePanicErrors") {
		t.Errorf("posted PanicError: Func %q, Value %v, stack:\n%s", pe.Func, pe.Value, pe.Stack())
	}
	want := "zlua: posted function panicked: posted broke\nzlua: reset loader panicked: loader broke"
	if err.Error() != want {
		t.Errorf("Pump error text %q, want %q", err.Error(), want)
	}
	var joined interface{ Unwrap() []error }
	if !errors.As(err, &joined) || len(joined.Unwrap()) != 2 || !errors.As(joined.Unwrap()[1], &pe) || pe.Value != "loader broke" {
		t.Errorf("the loader's panic is not a PanicError: %v", err)
	}
}

// TestCloseAndPumpFromAFunctionCloseRuns: a function posted before Close
// runs inside Close's hold; its own Close and Pump are ErrBusy, in words
// that say so rather than "env is running Lua code" (probe Y1 F2), the
// same whether Close was called directly or from a function Pump ran.
func TestCloseAndPumpFromAFunctionCloseRuns(t *testing.T) {
	for _, viaPump := range []bool{false, true} {
		e, err := zlua.New(zlua.Options{})
		must(t, err)
		var closeErr, pumpErr error
		inClose := func(e *zlua.Env) { closeErr, pumpErr = e.Close(), e.Pump() }
		if viaPump {
			// Close from a function Pump runs: what was posted since runs
			// under the Pump's hold, then the Env closes
			must(t, e.Post(func(e *zlua.Env) {
				must(t, e.Post(inClose))
				must(t, e.Close())
			}))
			must(t, e.Pump())
		} else {
			must(t, e.Post(inClose))
			must(t, e.Close())
		}
		if !errors.Is(closeErr, zlua.ErrBusy) || closeErr.Error() != "zlua: Close called from a function Close runs (the Env closes once they return)" {
			t.Errorf("via Pump %v: Close = %v", viaPump, closeErr)
		}
		if !errors.Is(pumpErr, zlua.ErrBusy) || pumpErr.Error() != "zlua: Pump called from a function Close runs (the Env closes once they return)" {
			t.Errorf("via Pump %v: Pump = %v", viaPump, pumpErr)
		}
	}
}
