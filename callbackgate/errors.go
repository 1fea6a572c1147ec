package callbackgate

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"

	"github.com/zlua-go/zlua/cgo"
)

// ErrMemory reports that Lua could not allocate memory.
var ErrMemory = errors.New("not enough memory")

// LuaError is an error raised in Lua and caught by zlua. The zlua package
// declares its own LuaError with the same layout (see RegisterPublic);
// errors reach users as that type.
type LuaError struct {
	// Message is the error value as text: a string or number as is, a
	// value with __tostring through it, else "(error object is a T value)".
	Message string
	// Traceback is Lua's stack traceback where the error was raised (empty
	// for memory errors, which skip the message handler).
	Traceback string
	LuaErrorState
}

// LuaErrorState is what zlua keeps of a Lua error besides its text: the
// Go cause and the original error value.
type LuaErrorState struct {
	cause error     // Go error or panic raised by a Go function, if any
	val   *errValue // the non-string error value, else nil
}

// errValue is the registry ref of a non-string error value. It is a
// separate allocation, the one the ref's cleanup watches, so that copies
// of a LuaError share it: the ref lives while any copy does.
type errValue struct {
	gate *Gate  // gate whose registry holds ref
	gen  uint64 // gate generation of ref
	ref  int
}

// valueRef returns the ref of the error value when it is g's current
// state's (ok false for a string error, another Env, or one reset since).
func (s *LuaErrorState) valueRef(g *Gate) (ref int, ok bool) {
	if v := s.val; v != nil && v.gate == g && v.gen == g.gen {
		return v.ref, true
	}
	return noRef, false
}

// Cause returns the Go error or *PanicError that a Go function raised, if
// the Lua error started as one.
func (s *LuaErrorState) Cause() error { return s.cause }

const noRef = -2 // LUA_NOREF

func (e *LuaError) Error() string { return e.Message }

// Unwrap returns the Go error or *PanicError that a Go function raised, if
// this Lua error started as one.
func (e *LuaError) Unwrap() error { return e.cause }

// PanicError is a Go panic recovered at the gate. The zlua package
// declares its own PanicError with the same layout (see RegisterPublic).
type PanicError struct {
	// Func is the name the panicking function was registered under;
	// for a func another Go function returned (registered under its
	// maker's name), the name the call site gives it when it gives one
	// (local tick = newTimer(10); tick(-1) reads "tick").
	Func string
	// Value is the value passed to panic.
	Value any
	pcs   []uintptr
	text  string // the message, printed once when recovered (ValueText)
}

// Error returns "go function 'name' panicked: value", the text Lua saw.
// It never panics: a value whose printing panics reads as
// "(unprintable T: its Error method panicked)" (see ValueText).
func (e *PanicError) Error() string {
	if e.text == "" { // made outside the gate
		return panicText(e.Func, e.Value)
	}
	return e.text
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

// Error is the text of a Yield that did not yield: the gate yields only
// for the value itself returned as the last result of a Go function Lua
// called (not wrapped, not panicked, not returned elsewhere).
func (*yieldRequest) Error() string {
	return "zlua: Yield did not yield: return it, unwrapped, as the last result of a Go function called from Lua"
}

// Yield returns an error that, returned as the last result of a Go function
// called from Lua, yields the running coroutine with values. When the
// coroutine resumes, the values passed to resume become the call's results.
func Yield(values ...any) error { return &yieldRequest{values: values} }

// argError is a conversion failure of one argument or value; a nested
// one travels inside a pathError that locates it. cause is an error other
// than a conversion failure (a memory error) met on the way.
type argError struct {
	detail string
	cause  error
}

func (e *argError) Error() string { return e.detail }

func (e *argError) Unwrap() error { return e.cause }

func typeError(expected, got string) *argError {
	return &argError{detail: expected + " expected, got " + got}
}

// recentErr links a Go error to the exact Lua string it was raised as:
// text, preceded by the caller's position when seq is not 0 (the
// trampoline adds that prefix and keeps a copy under seq, see
// cgo.State.Raised).
type recentErr struct {
	text  string
	cause error
	seq   uint32
	// tab, when not 0, makes the entry a wrapped error value instead: the
	// registry ref of the table (or other non-string value) a Go function
	// re-raised from inside the Go error cause wraps (rememberWrapped).
	tab int
	// weight is what the entry keeps in Go memory, under a MemoryLimit
	// (recentWeight; 0 without one)
	weight int64
}

// remember keeps the last few Go errors raised into Lua so an uncaught one
// can be unwrapped again at the outermost call. Bounded: a script that
// catches 10^5 errors keeps 8. positioned says the trampoline will prefix
// the caller's position; slot and seq are what it needs to keep it.
func (g *Gate) remember(text string, cause error, positioned bool) (slot int, seq uint32) {
	slot = g.recentN % len(g.recent)
	if positioned {
		if g.raiseSeq++; g.raiseSeq == 0 {
			g.raiseSeq = 1 // 0 means none
		}
		seq = g.raiseSeq
	}
	g.recent[slot] = recentErr{text: text, cause: cause, seq: seq, weight: g.recentWeight(text, cause)}
	g.recentN++
	g.trimRecent()
	return slot, seq
}

// rememberWrapped keeps cause, a Go error that wraps the *LuaError whose
// value (at registry ref tab) a Go function re-raised, so that when that
// value reaches Go uncaught its LuaError unwraps to cause (wrappedCause):
// Lua keeps the value's identity, Go keeps the wrapper. The entry holds
// cause, which holds the LuaError and so its ref, until forgetRecent.
func (g *Gate) rememberWrapped(tab int, cause error) {
	g.recent[g.recentN%len(g.recent)] = recentErr{cause: cause, tab: tab, weight: g.recentWeight("", cause)}
	g.recentN++
	g.trimRecent()
}

// recentBudget bounds, under a MemoryLimit, the Go bytes the remembered
// errors older than the newest may keep: an eighth of the limit, at least
// 64 KiB (0: no limit, no bound). Each remembered error keeps its cause
// until the outermost call returns, and a cause can be big: a panic's
// value converted from a script's table, an error formatted around a
// script's string. Eight of them caught with pcall in one call kept 8 to
// 14 times a 16 MiB limit (probe Y2 F1: 217 MB for 60,000-entry tables).
func (g *Gate) recentBudget() int64 {
	lim := int64(g.S.MemoryLimit())
	if lim == 0 {
		return 0
	}
	return max(lim/8, 64<<10)
}

// recentWeight estimates what a remembered error keeps: its text and
// what its cause references (smallWalk, counted past the budget at most).
func (g *Gate) recentWeight(text string, cause error) int64 {
	b := g.recentBudget()
	if b == 0 {
		return 0
	}
	return int64(len(text)) + smallWalk(reflect.ValueOf(cause), smallOfDepth, b+1)
}

// trimRecent lets the oldest remembered errors go while the ones older
// than the newest weigh more than recentBudget: the newest is always
// kept (an uncaught error is the newest when it reaches Go); an error
// let go is, should the script re-raise it later, a *LuaError without its
// Go cause.
func (g *Gate) trimRecent() {
	b := g.recentBudget()
	if b == 0 {
		return
	}
	n := min(g.recentN, len(g.recent))
	var sum int64
	for i := 2; i <= n; i++ {
		sum += g.recent[(g.recentN-i)%len(g.recent)].weight
	}
	for i := n; i >= 2 && sum > b; i-- {
		r := &g.recent[(g.recentN-i)%len(g.recent)]
		sum -= r.weight
		*r = recentErr{} // matches nothing: no cause
	}
}

// wrappedCause finds the Go error remembered for the error value at
// registry ref ref, newest first (nil when none).
func (g *Gate) wrappedCause(t cgo.Thread, ref int) error {
	n := min(g.recentN, len(g.recent))
	for i := 1; i <= n; i++ {
		r := &g.recent[(g.recentN-i)%len(g.recent)]
		if r.tab != 0 && r.cause != nil && g.S.SameRef(t, r.tab, ref) {
			return r.cause
		}
	}
	return nil
}

// forgetRecent ends what remember and rememberWrapped kept, at an
// outermost return: the Go errors (and the Lua values wrapped ones hold)
// are let go, not kept until 8 later raises overwrite them. Inlined: one
// test when nothing was raised.
func (g *Gate) forgetRecent() {
	if g.recentN != 0 {
		g.recent = [len(g.recent)]recentErr{}
		g.recentN = 0
	}
}

// cause finds the Go error behind an error value that reached Go as the
// string msg, newest first. Only the same value matches: msg must be
// exactly the string the gate raised (position prefix included), as when
// a script lets the error through, catches and re-raises it unchanged
// (error(e, 0)), or a Go function returns it; or that string behind the
// positions ("chunk:12: ") that error(e) and coroutine.wrap put before a
// string they raise again. A script's own error whose text merely ends
// like a Go error's is not that error.
func (g *Gate) cause(msg string) error {
	n := min(g.recentN, len(g.recent))
	for i := 1; i <= n; i++ {
		slot := (g.recentN - i) % len(g.recent)
		r := &g.recent[slot]
		if r.tab != 0 || r.cause == nil {
			continue // a wrapped error value, not a string, or let go
		}
		if len(msg) < len(r.text) || msg[len(msg)-len(r.text):] != r.text {
			continue
		}
		head := msg[:len(msg)-len(r.text)]
		if r.seq != 0 {
			where, ok := g.S.Raised(slot, r.seq)
			if !ok || len(head) < len(where) || head[len(head)-len(where):] != string(where) {
				continue
			}
			head = head[:len(head)-len(where)]
		}
		if head == "" || isPositions(head) {
			return r.cause
		}
	}
	return nil
}

// isPositions reports whether p ends as luaL_where's position does,
// "chunk:12: " (what comes before is the chunk name, which may hold
// anything, or the positions of earlier re-raises).
func isPositions(p string) bool {
	rest, ok := strings.CutSuffix(p, ": ")
	if !ok {
		return false
	}
	i := len(rest)
	for i > 0 && rest[i-1] >= '0' && rest[i-1] <= '9' {
		i--
	}
	return i < len(rest) && i >= 2 && rest[i-1] == ':'
}

// ErrorFromTop turns the error value on top of t's stack (left by a failed
// protected operation with status) into a *LuaError and pops it.
func (g *Gate) ErrorFromTop(t cgo.Thread, status int) error {
	le := &LuaError{}
	if status == cgo.ErrMem {
		le.Message = ErrMemory.Error()
		le.cause = ErrMemory
		t.Pop(1)
		return pubLuaError(le)
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
		goErr := g.goErrorAt(t, t.Top())
		if ref, err := g.refTop(t); err == nil {
			le.val = &errValue{gate: g, gen: g.gen, ref: ref}
			track(g, le.val, int32(ref)) // the error value lives while a copy of le does
			le.cause = g.wrappedCause(t, ref)
		}
		if le.cause == nil {
			le.cause = goErr
		}
	}
	if le.val == nil { // a string: Go errors are raised as strings
		le.cause = g.cause(le.Message)
		if le.cause == nil && isMemoryMessage(le.Message) {
			le.cause = ErrMemory // caught by a pcall and raised again
		}
	}
	return pubLuaError(le)
}

// isMemoryMessage reports whether msg is Lua's memory error text, as is or
// with the positions error() prefixes ("chunk:12: ") when scripts raise it
// again. A script's own message that ends in those words without such a
// prefix ("disk: not enough memory") is not a memory error.
func isMemoryMessage(msg string) bool {
	const mem = "not enough memory"
	if msg == mem {
		return true
	}
	prefix, ok := strings.CutSuffix(msg, ": "+mem)
	if !ok {
		return false
	}
	i := len(prefix)
	for i > 0 && prefix[i-1] >= '0' && prefix[i-1] <= '9' {
		i--
	}
	return i < len(prefix) && i > 1 && prefix[i-1] == ':'
}

// refTop pops the value on top of t's stack into a registry ref.
func (g *Gate) refTop(t cgo.Thread) (int, error) {
	st, ref := g.S.Run(t, cgo.OpRef, 1, 0, 0)
	return g.refDone(t, st, ref)
}

// refDone is refTop's and refValue's end: ref, or the error of the
// failed ref (its value popped).
func (g *Gate) refDone(t cgo.Thread, st, ref int) (int, error) {
	if st != cgo.OK {
		// Not only memory: at the C stack's bound (Lua 5.4's nested C
		// calls, coroutines resumed through Go functions) the protected
		// call itself fails, and "not enough memory" with a few KB in use
		// misled (probe A3-F5).
		err := ErrMemory
		if st != cgo.ErrMem {
			err = errCStack
			if s, ok := t.ToString(-1); ok && st != cgo.ErrErr {
				err = errors.New(s)
			}
		}
		t.Pop(1)
		return noRef, err
	}
	return ref, nil
}

// errCStack is the refusal of a ref the C stack's bound stopped (Lua
// 5.4's error while handling the "C stack overflow" error).
var errCStack = errors.New("C stack overflow")

// NewLuaError returns a LuaError (the public type) with message msg and
// no Lua value behind it (an error zlua reports for Lua, such as an
// interruption a script caught).
func NewLuaError(msg string) error {
	return pubLuaError(&LuaError{Message: msg})
}

// stepError is "zlua: <step>: <cause>" with the cause's own "zlua: "
// prefix left out, so that a handle's refusal in an argument reads
// "zlua: resume: argument #1: thread handle of another Env", one prefix
// as the other API errors; errors.Is and errors.As reach the cause.
type stepError struct {
	step string
	err  error
}

func (e *stepError) Error() string {
	return "zlua: " + e.step + ": " + strings.TrimPrefix(e.err.Error(), "zlua: ")
}

func (e *stepError) Unwrap() error { return e.err }

// ValueInto converts the value behind a Lua error into v, as a Go
// function argument converts. An error without a Lua value behind it (a
// string or number raised, or an error zlua or Go code made) is its
// message msg, for a string or interface v. The value is read on the
// Env's state: the gate must be open and not reset since the error was
// made, and enterable by the caller (Enter's rules).
func (s *LuaErrorState) ValueInto(msg string, v reflect.Value) error {
	if s.val == nil {
		switch {
		case v.Kind() == reflect.String:
			v.SetString(msg)
		case v.Kind() == reflect.Interface && reflect.TypeFor[string]().AssignableTo(v.Type()):
			v.Set(reflect.ValueOf(msg))
		default:
			return fmt.Errorf("the error is a string, %s cannot hold it", v.Type())
		}
		return nil
	}
	g := s.val.gate
	if err := g.Enter(); err != nil {
		if err == ErrClosed {
			return ErrStale
		}
		return err
	}
	defer g.Exit()
	ref, ok := s.valueRef(g)
	if !ok {
		return ErrStale
	}
	t := g.cur
	top := t.Top()
	defer g.RestoreTop(t, top)
	if !g.S.Reserve(t, ReadStack) {
		return ErrMemory
	}
	t.PushRef(int32(ref))
	return g.ReadInto(t, t.Top(), v)
}

// goErrorAt is the Go error a script raised as an object, error(obj) of
// a Go object (ByObj) whose type implements error and whose view, if it
// was pushed as one, keeps Error, or of a struct copy (ByVal) whose type
// does; else nil. It becomes the LuaError's
// cause, so errors.As reaches it as it reaches an error a Go function
// returned.
func (g *Gate) goErrorAt(t cgo.Thread, idx int) error {
	a := t.Arg(idx)
	if a.Type != int32(cgo.TUserdata) {
		return nil
	}
	s, b, ok, err := g.objAt(t, idx, &a)
	if !ok {
		// not an object: a struct copy (ByVal) whose type implements
		// error with value receivers converts to one
		a := t.Arg(idx)
		if _, v, ok, err := g.valAt(t, idx, &a); ok && err == nil {
			ge, _ := v.Interface().(error) // a copy: the payload is Lua memory
			return ge
		}
		return nil
	}
	if err != nil || b == nil {
		return nil
	}
	ge, isErr := g.objs.Val(s).(error)
	if !isErr || (b.view != nil && !b.view.Implements(errorType)) {
		return nil
	}
	return ge
}

// typeMismatch is typeError for two Go types whose Lua names are the same
// text (a.Player and b.Player both read "Player"): the names are then
// qualified, by package name or, when that is shared too, by import path,
// so the message does not contradict itself.
func typeMismatch(want, got reflect.Type, wantName, gotName string) *argError {
	wantName, gotName = distinctNames(want, got, wantName, gotName)
	return typeError(wantName, gotName)
}

// distinctNames returns wantName and gotName, qualified as typeMismatch
// says when they are equal but the types differ.
func distinctNames(want, got reflect.Type, wantName, gotName string) (string, string) {
	if wantName != gotName || want == got {
		return wantName, gotName
	}
	w, g := namedBase(want), namedBase(got)
	if w == nil || g == nil || w == g {
		return wantName, gotName
	}
	qw, qg := w.String(), g.String() // "a.Player"
	if qw == qg {
		qw, qg = w.PkgPath()+"."+w.Name(), g.PkgPath()+"."+g.Name()
	}
	return strings.Replace(wantName, w.Name(), qw, 1), strings.Replace(gotName, g.Name(), qg, 1)
}

// namedBase is t without its pointers when that is a named type, else nil.
func namedBase(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer && t.Name() == "" {
		t = t.Elem()
	}
	if t.Name() == "" {
		return nil
	}
	return t
}
