package zlua_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// Values whose printing panics with a value whose printing panics in
// turn: fmt gives up and panics itself. Before zlua printed such values
// under a recovery of its own, the panic zlua's recovery started unwound
// through Lua's C frames: it escaped DoString past any pcall, broke the
// Lua 5.4 state ("C stack overflow" after ~70 escapes), made LuaJIT crash
// later after an escape from a compiled leaf call, and killed the process
// ("panic while printing panic value") when the caller did not recover.

// uEvil's Error panics with itself.
type uEvil struct{}

func (uEvil) Error() string { panic(uEvil{}) }

// uEvilStringer's String panics with itself.
type uEvilStringer struct{}

func (uEvilStringer) String() string { panic(uEvilStringer{}) }

// uStringerError prints a uEvilStringer.
type uStringerError struct{ s uEvilStringer }

func (e uStringerError) Error() string { return e.s.String() }

// uWrap wraps an error and prints it only when asked (fmt.Errorf with %w
// prints at once).
type uWrap struct{ err error }

func (w uWrap) Error() string { return "wrapped: " + w.err.Error() }
func (w uWrap) Unwrap() error { return w.err }

// uBadUnwrap's Unwrap panics: zlua looks for a LuaError in a returned
// error's chain before raising it.
type uBadUnwrap struct{}

func (uBadUnwrap) Error() string { return "bad unwrap" }
func (uBadUnwrap) Unwrap() error { panic(uEvil{}) }

// uVec gets Metamethods that panic with, or return, uEvil.
type uVec struct{ X float64 }

// uShip's leaf methods fail with uEvil: Move panics when X reaches Boom,
// Fail returns it.
type uShip struct {
	X    float64
	Boom float64
}

func (s *uShip) Move(dx float64) bool {
	if s.Boom > 0 && s.X >= s.Boom {
		panic(uEvil{})
	}
	s.X += dx
	return true
}

func (s *uShip) Fail(n int) (int, error) { return n, uEvil{} }

func init() {
	if err := zlua.Leaf[*uShip]("Move", "Fail"); err != nil {
		panic(err)
	}
}

const (
	evilText     = "(unprintable zlua_test.uEvil: its Error method panicked)"
	stringerText = "(unprintable zlua_test.uEvilStringer: its String method panicked)"
)

// noEscape runs f, failing the test when a panic escapes it.
func noEscape(t *testing.T, what string, f func() error) error {
	t.Helper()
	var err error
	escaped, r := true, any(nil)
	func() {
		defer func() {
			if escaped {
				r = recover()
			}
		}()
		err = f()
		escaped = false
	}()
	if escaped {
		t.Fatalf("%s: a Go panic escaped: %T", what, r)
	}
	return err
}

// stillUsable checks that e runs Lua and reports a Lua error normally.
func stillUsable(t *testing.T, e *zlua.Env) {
	t.Helper()
	must(t, noEscape(t, "x = 1", func() error { return e.DoString(`x = 1 + 1`) }))
	err := noEscape(t, "error('x')", func() error { return e.DoString(`error('x')`) })
	if le := (*zlua.LuaError)(nil); !errors.As(err, &le) || le.Message != "(dostring):1: x" {
		t.Fatalf("error('x') = %v", err)
	}
}

// caught runs 200 pcalls of chunk (a function body) and checks each
// message contains want.
func caught(t *testing.T, e *zlua.Env, chunk, want string) {
	t.Helper()
	must(t, e.SetGlobal("want", want))
	err := noEscape(t, chunk, func() error {
		return e.DoString(`
			for i = 1, 200 do
				local ok, msg = pcall(function() ` + chunk + ` end)
				assert(not ok, "no error")
				assert(type(msg) == "string" and msg:find(want, 1, true), msg)
			end`)
	})
	must(t, err)
	stillUsable(t, e)
}

// uncaughtPanic runs chunk unprotected and checks the Go error is a
// PanicError of fn with value v and message want.
func uncaughtPanic(t *testing.T, e *zlua.Env, chunk, fn string, v any, want string) {
	t.Helper()
	err := noEscape(t, chunk, func() error { return e.DoString(chunk) })
	var pe *zlua.PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("%s: %v, want a *PanicError", chunk, err)
	}
	if pe.Func != fn || pe.Value != v || pe.Error() != want {
		t.Fatalf("%s: PanicError{%q, %T, %q}, want {%q, %T, %q}", chunk, pe.Func, pe.Value, pe.Error(), fn, v, want)
	}
	if !strings.HasSuffix(err.Error(), want) {
		t.Fatalf("%s: error text %q, want it to end in %q", chunk, err.Error(), want)
	}
}

func TestUnprintableErrorsFromGoFunctions(t *testing.T) {
	for _, c := range []struct {
		name string
		fn   any
		val  any    // the PanicError's Value
		text string // the value's text
	}{
		{"returned error", func() error { return uEvil{} }, uEvil{}, evilText},
		{"panic value", func() { panic(uEvil{}) }, uEvil{}, evilText},
		{"panic with %w", func() { panic(fmt.Errorf("w: %w", uEvil{})) }, uEvil{}, evilText},
		{"returned %w", func() error { return fmt.Errorf("w: %w", uEvil{}) }, uEvil{}, evilText},
		{"returned wrapper", func() error { return uWrap{uEvil{}} }, uEvil{}, evilText},
		{"panicking wrapper", func() { panic(uWrap{uEvil{}}) }, uWrap{uEvil{}}, "(unprintable zlua_test.uWrap: its Error method panicked)"},
		{"panicking Unwrap", func() error { return uBadUnwrap{} }, uEvil{}, evilText},
		{"String panics", func() { panic(uEvilStringer{}) }, uEvilStringer{}, stringerText},
		{"returned error printing a Stringer", func() (int, error) { return 0, uWrap{uStringerError{}} }, uEvilStringer{}, stringerText},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			must(t, e.SetGlobal("f", c.fn))
			want := "go function 'f' panicked: " + c.text
			caught(t, e, `f()`, want)
			uncaughtPanic(t, e, `f()`, "f", c.val, want)
			if err, ok := c.val.(error); ok {
				got := noEscape(t, "f()", func() error { return e.DoString(`f()`) })
				if !errors.Is(got, err) {
					t.Fatalf("errors.Is(%q, %T) = false", got, err)
				}
			}
			stillUsable(t, e)
		})
	}
}

// A typed func calling a Lua function that calls a failing Go function
// returns the PanicError, and one without an error result panics with it
// (a value that prints).
func TestUnprintableErrorThroughATypedFunc(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("f", func() error { return uEvil{} }))
	run(t, e, `function lf() return f() end`)
	var withErr func() error
	var noErr func()
	must(t, e.GetFunction("lf", &withErr))
	must(t, e.GetFunction("lf", &noErr))
	for range 200 {
		err := noEscape(t, "typed func", withErr)
		var pe *zlua.PanicError
		if !errors.As(err, &pe) || pe.Value != (uEvil{}) || !strings.HasSuffix(err.Error(), evilText) {
			t.Fatalf("typed func: %v", err)
		}
	}
	err := noEscape(t, "typed func without error", func() (err error) {
		defer func() { err, _ = recover().(error) }()
		noErr()
		return nil
	})
	if !errors.Is(err, uEvil{}) || !strings.HasSuffix(err.Error(), evilText) {
		t.Fatalf("typed func without error result panicked with %v", err)
	}
	stillUsable(t, e)
}

func TestUnprintableErrorsFromMetamethods(t *testing.T) {
	e := newEnv(t)
	must(t, zlua.Metamethods[uVec](e, map[string]any{
		"__add": func(a, b uVec) uVec { panic(uEvil{}) },
		"__sub": func(a, b uVec) (uVec, error) { return uVec{}, uEvil{} },
		"__unm": func(a uVec) uVec { panic(uEvilStringer{}) },
	}))
	must(t, e.SetGlobal("v", uVec{1}))
	caught(t, e, `return v + v`, "go function 'uVec.__add' panicked: "+evilText)
	caught(t, e, `return v - v`, "go function 'uVec.__sub' panicked: "+evilText)
	caught(t, e, `return -v`, "go function 'uVec.__unm' panicked: "+stringerText)
	uncaughtPanic(t, e, `return v + v`, "uVec.__add", uEvil{}, "go function 'uVec.__add' panicked: "+evilText)
}

// Leaf methods: on LuaJIT called through the FFI, from a compiled loop
// (Move panics at its 501st call, long after the loop was compiled).
func TestUnprintableErrorsFromLeafMethods(t *testing.T) {
	e := newEnv(t)
	s := &uShip{}
	must(t, e.SetGlobal("ship", s))
	must(t, e.SetGlobal("want", "go function 'uShip:Move' panicked: "+evilText))
	for range 200 {
		s.X, s.Boom = 0, 500
		must(t, noEscape(t, "leaf loop", func() error {
			return e.DoString(`
				local ok, msg = pcall(function() for i = 1, 1000 do ship:Move(1) end end)
				assert(not ok and msg:find(want, 1, true), msg)`)
		}))
		if s.X != 500 {
			t.Fatalf("X = %v, want 500", s.X)
		}
	}
	caught(t, e, `return ship:Fail(1)`, "go function 'uShip:Fail' panicked: "+evilText)
	s.X, s.Boom = 0, 0
	run(t, e, `for i = 1, 100000 do ship:Move(1) end`)
	if s.X != 100000 {
		t.Fatalf("X = %v after the loop, want 100000", s.X)
	}
	s.X, s.Boom = 0, 100
	uncaughtPanic(t, e, `for i = 1, 1000 do ship:Move(1) end`, "uShip:Move", uEvil{}, "go function 'uShip:Move' panicked: "+evilText)
	stillUsable(t, e)
}

// The Warn sink's panic is reported on stderr (Lua 5.4: LuaJIT has no
// warnings).
func TestUnprintablePanicOfTheWarnSink(t *testing.T) {
	if !strings.HasPrefix(zlua.Backend, "Lua 5.4") {
		t.Skip("LuaJIT has no warnings")
	}
	e, err := zlua.New(zlua.Options{Warn: func(string) { panic(uEvil{}) }})
	must(t, err)
	defer e.Close()
	stderr := captureStderr(t, func() {
		for range 200 {
			must(t, noEscape(t, "warn", func() error { return e.DoString(`warn("hello") pcall(warn, "again")`) }))
		}
	})
	want := "zlua: warning function panicked: " + evilText + " (warning: hello)\n"
	if !strings.HasPrefix(stderr, want) {
		t.Fatalf("stderr starts %q, want %q", stderr[:min(len(stderr), 200)], want)
	}
	stillUsable(t, e)
}

// captureStderr returns what f writes to os.Stderr.
func captureStderr(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	must(t, err)
	saved := os.Stderr
	os.Stderr = w
	out := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		out <- string(b)
	}()
	defer func() {
		os.Stderr = saved
		w.Close()
		r.Close()
	}()
	f()
	os.Stderr = saved
	w.Close()
	return <-out
}

func TestUnprintablePanicOfAPostedFunction(t *testing.T) {
	e := newEnv(t)
	ran := 0
	for range 200 {
		must(t, e.Post(func(*zlua.Env) { panic(uEvil{}) }))
		must(t, e.Post(func(*zlua.Env) { ran++ }))
		err := noEscape(t, "Pump", e.Pump)
		if err == nil || err.Error() != "zlua: posted function panicked: "+evilText {
			t.Fatalf("Pump = %v", err)
		}
	}
	if ran != 200 {
		t.Fatalf("the posted functions after the panicking ones ran %d times, want 200", ran)
	}
	stillUsable(t, e)

	c, err := zlua.New(zlua.Options{})
	must(t, err)
	must(t, c.Post(func(*zlua.Env) { panic(uEvilStringer{}) }))
	err = noEscape(t, "Close", c.Close)
	if err == nil || err.Error() != "zlua: posted function panicked: "+stringerText {
		t.Fatalf("Close = %v", err)
	}
	if err := c.DoString(`x = 1`); !errors.Is(err, zlua.ErrClosed) {
		t.Fatalf("after Close: %v, want ErrClosed", err)
	}
}

// Table errors name the key: printing it must not turn the error into a
// panic.
func TestTableErrorNamesAnUnprintableKey(t *testing.T) {
	var tb *zlua.Table
	var x int
	err := noEscape(t, "Get", func() error { return tb.Get(uEvilStringer{}, &x) })
	if want := "zlua: table get [" + stringerText + "]: nil handle"; err == nil || err.Error() != want {
		t.Fatalf("Get = %v, want %s", err, want)
	}
}

// A PanicError made by hand prints safely too.
func TestPanicErrorOfAnUnprintableValuePrints(t *testing.T) {
	pe := &zlua.PanicError{Func: "f", Value: uEvil{}}
	if got := noEscape(t, "Error", func() error { return errors.New(pe.Error()) }); got.Error() != "go function 'f' panicked: "+evilText {
		t.Fatalf("Error() = %q", got)
	}
}
