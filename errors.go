package zlua

import (
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"runtime"
	"strings"
	"unsafe"

	"github.com/zlua-go/zlua/callbackgate"
)

// LuaError is an error raised in Lua and caught by zlua: its Message and
// the Traceback where it was raised. When the error started as a Go error
// or panic in a Go function, errors.Is / errors.As reach it (see
// [PanicError]).
//
// Returned unchanged from a Go function called by Lua, a LuaError re-raises
// the original Lua value: a table raised with error{...} stays the same
// table (rawequal) across any number of Go frames.
type LuaError struct {
	// Message is the error value as text: a string or number as is, a
	// value with __tostring through it, else "(error object is a T value)".
	Message string
	// Traceback is Lua's stack traceback where the error was raised (empty
	// for memory errors, which skip the message handler).
	Traceback string
	st        callbackgate.LuaErrorState
}

// Error returns the Message.
func (e *LuaError) Error() string { return e.Message }

// Unwrap returns the Go error or *PanicError that a Go function raised, if
// this Lua error started as one.
func (e *LuaError) Unwrap() error { return e.st.Cause() }

// Value converts the value the script raised into out, a non-nil pointer,
// as a Go function's argument converts: error{code = 5, item = "sword"}
// reads into a struct, a map, any (map[string]any) or a *Table handle; on
// Lua 5.4 error(42) reads as the number (LuaJIT's error turns a number
// into a string with its position, as stock LuaJIT does). An error raised
// as a string, and one Go code or zlua made, has no other value than its
// Message, which a *string or *any out receives.
//
// A table or other value is read in the Env's state, as [Table.Get] reads:
// call Value where Env calls may be made (on the Env's goroutine, or in a
// Go function Lua called), before a Reset or Close of the Env
// (ErrStale after). A *Table read this way is a handle to release.
func (e *LuaError) Value(out any) error {
	rv := reflect.ValueOf(out)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("zlua: error value: out must be a non-nil pointer, got %T", out)
	}
	err := e.st.ValueInto(e.Message, rv.Elem())
	runtime.KeepAlive(e) // its cleanup releases the value's ref
	if err != nil {
		return opErrorf(err, "error value")
	}
	return nil
}

// PanicError is a Go panic recovered at the gate. Lua sees it as an error
// whose message names the function and the panic value; pcall catches it.
// If no pcall does, the Go caller's error satisfies errors.As(err, &pe).
type PanicError struct {
	// Func is the name the panicking function was registered under;
	// for a func another Go function returned (registered under its
	// maker's name), the name the call site gives it when it gives one
	// (local tick = newTimer(10); tick(-1) reads "tick").
	Func string
	// Value is the value passed to panic.
	Value any
	pcs   []uintptr
	text  string // the message Lua saw, printed once by the gate
}

func (e *PanicError) gate() *callbackgate.PanicError {
	return (*callbackgate.PanicError)(unsafe.Pointer(e))
}

// Error returns "go function 'name' panicked: value", the text Lua saw.
// It never panics: a value whose printing panics (an Error or String
// method that panics with a value that cannot be printed either) reads
// as "(unprintable T: its Error method panicked)".
func (e *PanicError) Error() string { return e.gate().Error() }

// Unwrap returns the panic value if it is an error.
func (e *PanicError) Unwrap() error { return e.gate().Unwrap() }

// Stack returns the Go stack of the panic, one "function\n\tfile:line" per
// frame, innermost first.
func (e *PanicError) Stack() string { return e.gate().Stack() }

// printed is v as %v prints it, never panicking: an unprintable value
// reads "(unprintable T: its M method panicked)" (callbackgate.ValueText).
// For the recoveries that print a user's panic value.
func printed(v any) string { return callbackgate.ValueText(v) }

// ErrMemory reports that Lua could not allocate memory.
var ErrMemory = callbackgate.ErrMemory

// ErrClosed is returned by methods of an Env after Close (also when Close
// ran on another goroutine while the call was starting), and by Post once
// Close has begun.
var ErrClosed = callbackgate.ErrClosed

// ErrBusy is returned by Close and Pump while Lua code of the Env is
// running (from inside a Go function that Lua called).
var ErrBusy = callbackgate.ErrBusy

// ErrConcurrentUse is returned when a goroutine uses an Env while another
// goroutine is running Lua code in it. The Env is not touched.
var ErrConcurrentUse = callbackgate.ErrConcurrentUse

// ErrAbandoned is returned, wrapped with the function's name, by every
// call of an Env after a Go function that Lua called ran runtime.Goexit
// (t.FailNow, t.Skip, or Goexit itself): the Lua call it was in can never
// return, so the state cannot run Lua again. Close still frees the Env
// and returns nil.
//
// Close (and the Pump that applies a Reset) also returns it, naming the
// function, when a Go function the closing state runs — a __gc function,
// the Warn sink — calls runtime.Goexit: that ends only the goroutine
// lua_close runs on (one of Close's own), and Close still runs the other
// finalizers and frees the state.
var ErrAbandoned = callbackgate.ErrAbandoned

// Yield returns an error that, returned as the last result of a Go function
// called from Lua inside a coroutine, yields the coroutine with values. When
// the coroutine is resumed, the values passed to resume become the results
// of the Go function's call in Lua.
func Yield(values ...any) error { return callbackgate.Yield(values...) }

// ErrCannotPush reports a Go value that has no Lua form; errors.Is
// matches it.
var ErrCannotPush = callbackgate.ErrCannotPush

// apiError is the error of an Env, Table, Function or Thread method:
// "zlua: <op>: <cause>". Errors.Is and errors.As reach the cause.
//
// When the cause is a Lua error that started as another apiError returned
// by a Go function Lua called — an API call nested in a Go function
// nested in a Lua call of an API call, such as a Table.Get whose __index
// calls Go which calls Table.Get — the text skips the inner call's
// position and prefix and names the innermost failure once: "zlua: table
// get "x": main.lua:3: boom" however deep the nesting, instead of one
// "zlua: table get "x": (pos):" per level (about 3 KiB at the 80-level
// bound). The chain is unchanged: every LuaError, apiError and the
// original Go error or PanicError stay reachable. Lua code that catches
// the error at some level sees the same one-prefix text (the gate raises
// Error()).
type apiError struct {
	op  string
	err error
}

// opErrorf wraps err as the failure of the operation named by format and
// args (without the "zlua: " prefix).
func opErrorf(err error, format string, args ...any) error {
	return &apiError{op: fmt.Sprintf(format, args...), err: err}
}

// Error names the operation once: the cause's own "zlua: " prefix, and
// the operations of nested API calls it failed in (Register's Globals),
// are left out.
func (e *apiError) Error() string {
	return "zlua: " + e.op + ": " + strings.TrimPrefix(innermost(e.err), "zlua: ")
}

func (e *apiError) Unwrap() error { return e.err }

// innermost returns the text of err, skipping each Lua error that is only
// a nested apiError raised by a Go function (its text is that error's,
// behind the position of the Go function's caller).
func innermost(err error) string {
	for {
		if ae, ok := err.(*apiError); ok {
			err = ae.err
			continue
		}
		le, ok := err.(*LuaError)
		if !ok {
			return err.Error()
		}
		inner, ok := le.Unwrap().(*apiError)
		if !ok {
			return le.Message
		}
		err = inner.err
	}
}

// errUnmade is every Env method's answer on an Env that New did not make
// (its zero value): such an Env has no state, as a closed one has none.
var errUnmade error = unmadeError{}

// unmadeError is the error of a zero Env's methods: it matches ErrClosed
// without repeating its "zlua: " prefix.
type unmadeError struct{}

func (unmadeError) Error() string { return "zlua: Env not made by New (no state, as a closed Env)" }
func (unmadeError) Unwrap() error { return ErrClosed }

// isHandleError reports whether err is a handle's own refusal (released,
// stale, its Env closed), returned as such: not a Lua
// error that merely wraps one.
func isHandleError(err error) bool {
	switch err {
	case ErrReleased, ErrStale, ErrClosed, ErrCopied, callbackgate.ErrZeroHandle:
		return true
	}
	return false
}

// loaderWords puts a file's open or read error in the words of Lua's
// loader (luaL_loadfilex: "cannot open x.lua: no such file or
// directory"), as dofile and require say it; errors.Is and errors.As
// still reach the *fs.PathError and its cause.
func loaderWords(err error) error {
	var pe *fs.PathError
	if !errors.As(err, &pe) || (pe.Op != "open" && pe.Op != "read") {
		return err
	}
	return &wordedError{text: "cannot " + pe.Op + " " + pe.Path + ": " + pe.Err.Error(), err: err}
}

// wordedError is err with another text.
type wordedError struct {
	text string
	err  error
}

func (e *wordedError) Error() string { return e.text }
func (e *wordedError) Unwrap() error { return e.err }
