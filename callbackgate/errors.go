package callbackgate

import (
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/zlua-go/zlua/cgo"
)

// ErrMemory reports that Lua could not allocate memory.
var ErrMemory = errors.New("not enough memory")

// LuaError is an error raised in Lua and caught by zlua.
type LuaError struct {
	// Message is the error value as text: a string or number as is, a
	// value with __tostring through it, else "(error object is a T value)".
	Message string
	// Traceback is Lua's stack traceback where the error was raised (empty
	// for memory errors, which skip the message handler).
	Traceback string

	cause error  // Go error or panic raised by a Go function, if any
	gate  *Gate  // gate whose registry holds ref
	gen   uint64 // gate generation of ref
	ref   int    // registry ref of a non-string error value, else noRef
}

const noRef = -2 // LUA_NOREF

func (e *LuaError) Error() string { return e.Message }

// Unwrap returns the Go error or *PanicError that a Go function raised, if
// this Lua error started as one.
func (e *LuaError) Unwrap() error { return e.cause }

// PanicError is a Go panic recovered at the gate.
type PanicError struct {
	// Func is the name the panicking function was registered under.
	Func string
	// Value is the value passed to panic.
	Value any
	pcs   []uintptr
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("go function '%s' panicked: %v", e.Func, e.Value)
}

// Unwrap returns the panic value if it is an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// Stack returns the Go stack of the panic, one "function\n\tfile:line" per
// frame, innermost first.
func (e *PanicError) Stack() string {
	var b strings.Builder
	frames := runtime.CallersFrames(e.pcs)
	for {
		f, more := frames.Next()
		fmt.Fprintf(&b, "%s\n\t%s:%d\n", f.Function, f.File, f.Line)
		if !more {
			return b.String()
		}
	}
}

// yieldRequest is returned by Yield; the gate yields the running coroutine.
type yieldRequest struct{ values []any }

func (*yieldRequest) Error() string {
	return "zlua: Yield returned outside a Go function called from Lua"
}

// Yield returns an error that, returned as the last result of a Go function
// called from Lua, yields the running coroutine with values. When the
// coroutine resumes, the values passed to resume become the call's results.
func Yield(values ...any) error { return &yieldRequest{values: values} }

// argError is a conversion failure of one argument or nested value.
type argError struct{ detail string }

func (e *argError) Error() string { return e.detail }

func typeError(expected, got string) *argError {
	return &argError{detail: expected + " expected, got " + got}
}

// recentErr links the text a Go error became in Lua to the Go error.
type recentErr struct {
	text  string
	cause error
}

// remember keeps the last few Go errors raised into Lua so an uncaught one
// can be unwrapped again at the outermost call. Bounded: a script that
// catches 10^5 errors keeps 8.
func (g *Gate) remember(text string, cause error) {
	g.recent[g.recentN%len(g.recent)] = recentErr{text, cause}
	g.recentN++
}

// cause finds the Go error behind a Lua error message, newest first. The
// message may carry a position prefix added in Lua.
func (g *Gate) cause(msg string) error {
	n := min(g.recentN, len(g.recent))
	for i := 1; i <= n; i++ {
		r := g.recent[(g.recentN-i)%len(g.recent)]
		if strings.HasSuffix(msg, r.text) {
			return r.cause
		}
	}
	return nil
}

// ErrorFromTop turns the error value on top of t's stack (left by a failed
// protected operation with status) into a *LuaError and pops it.
func (g *Gate) ErrorFromTop(t cgo.Thread, status int) error {
	le := &LuaError{ref: noRef}
	if status == cgo.ErrMem {
		le.Message = ErrMemory.Error()
		le.cause = ErrMemory
		t.Pop(1)
		return le
	}
	msg, tb, ok := g.S.ErrInfo(t)
	le.Traceback = tb
	if s, isStr := t.ToString(-1); isStr {
		le.Message = s
		t.Pop(1)
	} else {
		if ok {
			le.Message = msg
		} else {
			le.Message = "(error object is a " + g.S.TypeName(t, -1) + " value)"
		}
		if ref, err := g.refTop(t); err == nil {
			le.ref, le.gate, le.gen = ref, g, g.gen
			g.liveRefs.Add(1)
			runtime.AddCleanup(le, g.unrefs.Push, int32(ref))
		}
	}
	le.cause = g.cause(le.Message)
	if le.cause == nil && isMemoryMessage(le.Message) {
		le.cause = ErrMemory // caught by a pcall and raised again
	}
	return le
}

// isMemoryMessage reports whether msg is Lua's memory error text, as is or
// with the position error() prefixes when a script raises it again.
func isMemoryMessage(msg string) bool {
	return msg == ErrMemory.Error() || strings.HasSuffix(msg, ": "+ErrMemory.Error())
}

// refTop pops the value on top of t's stack into a registry ref.
func (g *Gate) refTop(t cgo.Thread) (int, error) {
	st, ref := g.S.Run(t, cgo.OpRef, 1, 0, 0)
	if st != cgo.OK {
		t.Pop(1)
		return noRef, ErrMemory
	}
	return ref, nil
}

// NewLuaError returns a LuaError with message msg and no Lua value behind
// it (an error zlua reports for Lua, such as an interruption a script
// caught).
func NewLuaError(msg string) *LuaError { return &LuaError{Message: msg, ref: noRef} }
