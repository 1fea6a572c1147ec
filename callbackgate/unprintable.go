package callbackgate

import (
	"fmt"
	"runtime"
)

// ValueText returns v as fmt's %v prints it, and never panics.
//
// Printing calls the value's own methods (Format, Error, String). When
// one panics, fmt prints "%!v(PANIC=Error method: ...)" with the panic
// value; when printing that value panics as well (an Error method that
// panics with its own receiver), fmt gives up and panics itself. zlua
// prints user values inside its deferred recoveries: a panic value or
// the Warn sink's with Lua's C frames below, where a new panic would
// unwind through them, and a posted function's in Pump and Close, which
// must end cleanly. ValueText returns unprintable's text instead. (A runtime.Goexit in such a method still
// ends the goroutine, as anywhere.)
//
// A value fmt cannot print in bounded time and stack (one holding itself,
// or larger than printBound allows) is named by its type instead.
func ValueText(v any) (s string) {
	if txt, ok := printBound(v); !ok {
		return txt
	}
	printed := false
	defer func() {
		if !printed {
			recover()
			s = unprintable(v)
		}
	}()
	s = fmt.Sprint(v)
	printed = true
	return s
}

// unprintable is the text standing for v when printing it panicked:
// "(unprintable T: its M method panicked)", T being v's type and M the
// method fmt calls first (Format, Error or String), or "(unprintable T:
// printing it panicked)" when v has none of them (a method of a field
// panicked). Parenthesised, as Lua's "(error object is a T value)", so
// that it cannot be taken for the value's own text.
func unprintable(v any) string {
	what := "printing it"
	switch v.(type) {
	case fmt.Formatter:
		what = "its Format method"
	case error:
		what = "its Error method"
	case fmt.Stringer:
		what = "its String method"
	}
	return fmt.Sprintf("(unprintable %T: %s panicked)", v, what) // %T calls no method
}

// panicText is a PanicError's message: "go function 'name' panicked: v".
func panicText(name string, v any) string {
	return "go function '" + name + "' panicked: " + ValueText(v)
}

// NewPanicError returns the *PanicError (the public type) of panic value
// r recovered outside Lua, by Go code zlua runs for the host (a posted
// function, a Reset loader), named what: its text is "zlua: <what>
// panicked: <r>". Call it from the deferred function that recovered r:
// the stack it records starts at the panic.
func NewPanicError(what string, r any) error {
	pe := &PanicError{Func: what, Value: r, pcs: make([]uintptr, 32)}
	pe.pcs = pe.pcs[:runtime.Callers(3, pe.pcs)]
	pe.text = "zlua: " + what + " panicked: " + ValueText(r)
	return pubPanicError(pe)
}
