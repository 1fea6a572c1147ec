package zlua_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

// newThread makes a thread running the global function name, released at
// the end of the test.
func newThread(t *testing.T, e *zlua.Env, name string) *zlua.Thread {
	t.Helper()
	var fn *zlua.Function
	must(t, e.GetFunction(name, &fn))
	th, err := e.NewThread(fn)
	must(t, err)
	fn.Release()
	t.Cleanup(th.Release)
	return th
}

// resumeWant resumes th with args and checks the values it yields or
// returns.
func resumeWant(t *testing.T, th *zlua.Thread, args []any, want ...any) {
	t.Helper()
	out, err := th.Resume(args...)
	if err != nil {
		t.Fatalf("Resume(%v): %v", args, err)
	}
	if want == nil {
		want = []any{}
	}
	if !reflect.DeepEqual(out, want) {
		t.Fatalf("Resume(%v) = %#v, want %#v", args, out, want)
	}
}

// errorWant checks that err is a *LuaError whose text ends with suffix.
func errorWant(t *testing.T, what string, err error, suffix string) *zlua.LuaError {
	t.Helper()
	var le *zlua.LuaError
	if !errors.As(err, &le) || !strings.HasSuffix(err.Error(), suffix) {
		t.Fatalf("%s: err = %v, want a *LuaError ending %q", what, err, suffix)
	}
	return le
}

func TestThreadResumeReturnsYieldedValuesThenResults(t *testing.T) {
	e := newEnv(t)
	run(t, e, `function body(a, b)
		local x, y = coroutine.yield(a + b, "first")
		local z = coroutine.yield(x .. y)
		return "done", z, nil
	end`)
	th := newThread(t, e, "body")
	if th.Done() {
		t.Fatal("a thread never resumed is done")
	}
	resumeWant(t, th, []any{1, 2}, int64(3), "first")
	if th.Done() {
		t.Fatal("a suspended thread is done")
	}
	resumeWant(t, th, []any{"a", "b"}, "ab")
	resumeWant(t, th, []any{true}, "done", true, nil)
	if !th.Done() {
		t.Fatal("a finished thread is not done")
	}
	_, err := th.Resume()
	errorWant(t, "resume of a finished thread", err, "cannot resume dead coroutine")
	if !th.Done() {
		t.Fatal("Done changed after a refused resume")
	}
	// The stack is balanced after each resume.
	run(t, e, `assert(select("#", 1) == 1)`)
}

func TestGoFunctionYieldsAGoResumedThreadToGo(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("wait", func(seconds float64) error { return zlua.Yield(seconds) }))
	must(t, e.SetGlobal("ask", func(q string) (string, error) { return "", zlua.Yield("ask", q) }))
	run(t, e, `function script(name)
		local woke = wait(2.5)
		local answer = ask("name?")
		-- a yield across a Lua pcall reaches Go too
		local ok, r = pcall(wait, 0.25)
		local xok, xr = xpcall(wait, debug.traceback, 0.125)
		assert(xok and xr == "x", "across xpcall: " .. tostring(xr))
		log = {woke, answer, ok, r}
		return name .. " done"
	end`)
	th := newThread(t, e, "script")
	resumeWant(t, th, []any{"guard"}, 2.5)
	resumeWant(t, th, []any{"morning"}, "ask", "name?")
	resumeWant(t, th, []any{"bob", "ignored"}, 0.25)
	resumeWant(t, th, []any{"late"}, 0.125)
	resumeWant(t, th, []any{"x"}, "guard done")
	run(t, e, `assert(log[1] == "morning" and log[2] == "bob" and log[3] == true and log[4] == "late",
		table.concat({tostring(log[1]), tostring(log[2]), tostring(log[3]), tostring(log[4])}, " "))`)
}

// TestYieldToGoGoesToTheNearestResumer: inside a Go-resumed thread, a
// coroutine the script resumes itself gets its own yields (wait yields it,
// not the thread), and the thread's own yields still reach Go.
func TestYieldToGoGoesToTheNearestResumer(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("wait", func(n int) error { return zlua.Yield(n) }))
	run(t, e, `function script()
		local inner = coroutine.wrap(function() wait(1) wait(2) return "inner done" end)
		local a, b, c = inner(), inner(), inner()
		wait(a + b)
		return c
	end`)
	th := newThread(t, e, "script")
	resumeWant(t, th, nil, int64(3))
	resumeWant(t, th, nil, "inner done")
}

// TestYieldsThatCannotReachGoAreErrors: a yield from the main thread, or
// from inside a nested Env call (a C call boundary: zlua's protected
// call), is the Lua error of the stock backend, raised in the script,
// never a crash.
func TestYieldsThatCannotReachGoAreErrors(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("wait", func() error { return zlua.Yield(1) }))
	must(t, e.SetGlobal("nested", func(chunk string) error { return e.DoString(chunk) }))
	err := e.DoString(`wait()`)
	errorWant(t, "yield from the main thread", err, "attempt to yield from outside a coroutine")

	run(t, e, `function across() nested("wait()") end
		function caught() local ok, err = pcall(nested, "coroutine.yield(1)") return ok, err end`)
	th := newThread(t, e, "across")
	_, err = th.Resume()
	errorWant(t, "Go yield across a nested call", err, "C-call boundary") // 5.4 adds "a"
	if !th.Done() {
		t.Error("the failed thread is not done")
	}
	th2 := newThread(t, e, "caught")
	out, err := th2.Resume()
	must(t, err)
	if len(out) != 2 || out[0] != false || !strings.HasSuffix(out[1].(string), "C-call boundary") {
		t.Errorf("caught yield across a nested call: %v", out)
	}
	// A C function without a continuation (the comparator of table.sort)
	// is a C-call boundary too.
	run(t, e, `function sorted() table.sort({3, 1, 2}, function(a, b) wait() return a < b end) end`)
	_, err = newThread(t, e, "sorted").Resume()
	errorWant(t, "Go yield inside table.sort", err, "C-call boundary")
	// The Go function's error does not yield: wrapped, it is an error.
	must(t, e.SetGlobal("wrapped", func() error { return errors.Join(zlua.Yield(1)) }))
	run(t, e, `function wrappedyield() wrapped() end`)
	_, err = newThread(t, e, "wrappedyield").Resume()
	errorWant(t, "wrapped Yield", err, "zlua: Yield did not yield: return it, unwrapped, as the last result of a Go function called from Lua")
	// Returned as a value (an any result, a table element, SetGlobal) it
	// is refused, not pushed as a userdata nobody can use.
	must(t, e.SetGlobal("asvalue", func() any { return zlua.Yield(1) }))
	must(t, e.SetGlobal("inlist", func() []any { return []any{1, zlua.Yield(2)} }))
	for _, chunk := range []string{"local x = asvalue()", "local t = inlist()"} {
		errorWant(t, chunk, e.DoString(chunk), "zlua.Yield must be returned as a Go function's error result, not as a value")
	}
	if err := e.SetGlobal("y", zlua.Yield(3)); !errors.Is(err, zlua.ErrCannotPush) {
		t.Errorf("SetGlobal of a Yield: %v, want ErrCannotPush", err)
	}
}

func TestThreadErrorCarriesTheThreadsTraceback(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("wait", func() error { return zlua.Yield() }))
	run(t, e, `function deeper(x) error("boom " .. x) end
		function body() wait() deeper(7) end`)
	th := newThread(t, e, "body")
	resumeWant(t, th, nil)
	_, err := th.Resume()
	le := errorWant(t, "failing thread", err, ":1: boom 7")
	if !strings.Contains(le.Traceback, "in function 'deeper'") || !strings.Contains(le.Traceback, "(dostring):2: in function") {
		t.Errorf("traceback does not show the thread's frames:\n%s", le.Traceback)
	}
	if !th.Done() {
		t.Error("a failed thread is not done")
	}
	_, err = th.Resume()
	errorWant(t, "resume of a failed thread", err, "cannot resume dead coroutine")

	// The same under a context (LuaJIT: switching the compiler back on
	// after the limited resume keeps the record).
	th = newThread(t, e, "body")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resumeWant(t, th, nil)
	_, err = th.ResumeContext(ctx)
	le = errorWant(t, "failing thread under a context", err, ":1: boom 7")
	if !strings.Contains(le.Traceback, "in function 'deeper'") || !strings.Contains(le.Traceback, "(dostring):2: in function") {
		t.Errorf("traceback of a thread failing under a context:\n%s", le.Traceback)
	}

	// A non-string error value keeps its identity.
	run(t, e, `errv = {code = 7}; function throw() error(errv) end`)
	_, err = newThread(t, e, "throw").Resume()
	errorWant(t, "table error value", err, "(error object is a table value)")
}

// TestFailedThreadIsClosed (Lua 5.4): a thread that fails runs its
// pending to-be-closed variables with the error, as coroutine.close would.
func TestFailedThreadIsClosed(t *testing.T) {
	if !strings.HasPrefix(zlua.Backend, "Lua 5.4") {
		t.Skip("to-be-closed variables are Lua 5.4")
	}
	e := newEnv(t)
	must(t, e.SetGlobal("wait", func() error { return zlua.Yield() }))
	run(t, e, `function body()
		local guard <close> = setmetatable({}, {__close = function(_, err) closedwith = err end})
		wait()
		error("boom", 0)
	end`)
	th := newThread(t, e, "body")
	resumeWant(t, th, nil)
	_, err := th.Resume()
	errorWant(t, "failing thread", err, "boom")
	if got := global[string](t, e, "closedwith"); got != "boom" {
		t.Errorf("__close saw %q, want the error", got)
	}
	run(t, e, `function body2()
		local guard <close> = setmetatable({}, {__close = function() error("in close", 0) end})
		error("boom", 0)
	end`)
	_, err = newThread(t, e, "body2").Resume()
	errorWant(t, "error replaced by __close", err, "in close")
}

func TestThreadResumedWhileRunningIsRefused(t *testing.T) {
	e := newEnv(t)
	var self *zlua.Thread
	must(t, e.SetGlobal("resumeself", func() error {
		_, err := self.Resume()
		return err
	}))
	run(t, e, `function body() local ok, err = pcall(resumeself) return ok, err end
		function outer() local co = coroutine.create(function() return pcall(resumeself) end)
			return coroutine.resume(co) end`)
	self = newThread(t, e, "body")
	out, err := self.Resume()
	must(t, err)
	if len(out) != 2 || out[0] != false || !strings.HasSuffix(out[1].(string), "cannot resume non-suspended coroutine") {
		t.Errorf("running thread resumed from inside: %v", out)
	}
	if !self.Done() {
		t.Error("finished thread not done")
	}
	// A thread that resumed another one (status normal) is refused too.
	self = newThread(t, e, "outer")
	out, err = self.Resume()
	must(t, err)
	if len(out) != 3 || out[0] != true || out[1] != false || !strings.HasSuffix(out[2].(string), "cannot resume non-suspended coroutine") {
		t.Errorf("normal thread resumed: %v", out)
	}
}

func TestLuaThreadsBecomeThreadHandles(t *testing.T) {
	e := newEnv(t)
	var got []any
	must(t, e.SetGlobal("keep", func(v any) { got = append(got, v) }))
	var typed *zlua.Thread
	must(t, e.SetGlobal("keepThread", func(th *zlua.Thread) { typed = th }))
	must(t, e.SetGlobal("give", func() *zlua.Thread { return typed }))
	run(t, e, `co = coroutine.create(function(a) local b = coroutine.yield(a * 2) return b + 1 end)
		keep(co) keepThread(co) keep({co})
		assert(rawequal(give(), co), "handle pushed back is not the coroutine")
		assert(coroutine.resume(co, 1))`)
	defer typed.Release()
	th, ok := got[0].(*zlua.Thread)
	if !ok {
		t.Fatalf("any got %T, want *zlua.Thread", got[0])
	}
	defer th.Release()
	// Resumed by Lua first, then by Go.
	resumeWant(t, th, []any{41}, int64(42))
	if !typed.Done() || !th.Done() {
		t.Error("finished coroutine not done through its handles")
	}
	if s, ok := got[1].([]any); !ok || len(s) != 1 || reflect.TypeOf(s[0]) != reflect.TypeFor[*zlua.Thread]() {
		t.Errorf("nested thread = %#v, want a *zlua.Thread", got[1])
	} else {
		s[0].(*zlua.Thread).Release()
	}
	var fromGlobal *zlua.Thread
	must(t, e.Global("co", &fromGlobal))
	defer fromGlobal.Release()
	if !fromGlobal.Done() {
		t.Error("Global's *Thread of a dead coroutine not done")
	}
	err := e.DoString(`keepThread(5)`)
	errorWant(t, "number for *Thread", err, "bad argument #1 to 'keepThread' (thread expected, got number)")
	err = e.Global("co", new(*zlua.Function))
	if err == nil || !strings.Contains(err.Error(), "function expected, got thread") {
		t.Errorf("thread read as a *Function: %v", err)
	}
	// The main thread can be held too, but never resumed: it is running
	// (LuaJIT's coroutine.running returns nil there).
	typed.Release()
	typed = nil
	run(t, e, `local main = coroutine.running() if main then keepThread(main) end`)
	if typed != nil {
		_, err = typed.Resume()
		errorWant(t, "resume of the main thread", err, "cannot resume non-suspended coroutine")
		typed.Release()
	}
}

func TestThreadHandleBadInputs(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("wait", func() error { return zlua.Yield() }))
	run(t, e, `function body(...) wait() return ... end`)

	var nilThread *zlua.Thread
	if _, err := nilThread.Resume(); err == nil {
		t.Error("nil *Thread resumed")
	}
	if !nilThread.Done() {
		t.Error("nil *Thread not done")
	}
	nilThread.Release()
	if _, err := new(zlua.Thread).Resume(); err == nil || !strings.Contains(err.Error(), "not made by an Env") {
		t.Errorf("zero Thread: %v", err)
	}
	if _, err := e.NewThread(nil); err == nil || !strings.Contains(err.Error(), "zlua: new thread") {
		t.Errorf("NewThread(nil): %v", err)
	}
	var fn *zlua.Function
	must(t, e.GetFunction("body", &fn))
	fn.Release()
	if _, err := e.NewThread(fn); !errors.Is(err, zlua.ErrReleased) {
		t.Errorf("NewThread(released): %v", err)
	}

	// Arguments that cannot be pushed leave the thread untouched.
	th := newThread(t, e, "body")
	if _, err := th.Resume(complex(1, 2)); !errors.Is(err, zlua.ErrCannotPush) || !strings.Contains(err.Error(), "zlua: resume: argument #1") {
		t.Errorf("Resume(complex128): %v", err)
	}
	resumeWant(t, th, []any{1})
	must(t, e.SetGlobal("badyield", func() error { return zlua.Yield(complex(1, 2)) }))
	run(t, e, `function yieldsbad() badyield() end`)
	_, err := newThread(t, e, "yieldsbad").Resume()
	errorWant(t, "Yield of a complex128", err, "value #1 yielded by 'badyield': cannot push Go value of type complex128")
	// a released handle, second value, named once (probe B1-F2)
	gone, err := e.NewTable()
	must(t, err)
	gone.Release()
	must(t, e.SetGlobal("yieldgone", func() error { return zlua.Yield(1, gone) }))
	run(t, e, `function yieldsgone() local f = yieldgone f() end`)
	_, err = newThread(t, e, "yieldsgone").Resume()
	errorWant(t, "Yield of a released handle", err, "value #2 yielded by 'f': zlua: handle released")
	if strings.Count(err.Error(), "zlua: ") > 1 {
		t.Errorf("Yield of a released handle: %q repeats the prefix", err)
	}

	// Another Env's handles.
	other := newEnv(t)
	run(t, other, `function f() end`)
	var ofn *zlua.Function
	must(t, other.GetFunction("f", &ofn))
	defer ofn.Release()
	if _, err := e.NewThread(ofn); err == nil || !strings.Contains(err.Error(), "function handle of another Env") {
		t.Errorf("NewThread(another Env's function): %v", err)
	}
	if err := other.SetGlobal("th", th); err == nil || !strings.Contains(err.Error(), "thread handle of another Env") {
		t.Errorf("thread pushed into another Env: %v", err)
	}
	// One "zlua: " prefix, the step named (before: "argument #1: zlua: ...").
	if _, err := th.Resume(ofn); err == nil || err.Error() != "zlua: resume: argument #1: function handle of another Env" {
		t.Errorf("Resume with another Env's function: %v", err)
	}
	var ofnCall *zlua.Function
	must(t, e.Eval(`return function(x) return x end`, &ofnCall))
	defer ofnCall.Release()
	if _, err := ofnCall.Call(1, ofn); err == nil || err.Error() != `zlua: call "function": argument #2: function handle of another Env` {
		t.Errorf("Call with another Env's function: %v", err)
	}
	resumeWant(t, th, []any{"still"}, int64(1)) // the refused resumes left it suspended
	if !th.Done() {
		t.Error("finished thread not done")
	}

	// Released, then stale after Reset and Close.
	th2 := newThread(t, e, "body")
	th2.Release()
	th2.Release()
	if _, err := th2.Resume(); !errors.Is(err, zlua.ErrReleased) || !th2.Done() {
		t.Errorf("released thread: %v, done %v", err, th2.Done())
	}
	th3 := newThread(t, e, "body")
	resumeWant(t, th3, nil)
	e.Reset(nil)
	must(t, e.Pump())
	if _, err := th3.Resume(); !errors.Is(err, zlua.ErrStale) || !th3.Done() {
		t.Errorf("thread after Reset: %v, done %v", err, th3.Done())
	}
	if _, err := th3.ResumeContext(nil); !errors.Is(err, zlua.ErrStale) {
		t.Errorf("ResumeContext after Reset: %v", err)
	}
	c, err := zlua.New(zlua.Options{})
	must(t, err)
	run(t, c, `function body() end`)
	th4 := newThread(t, c, "body")
	must(t, c.Close())
	if _, err := th4.Resume(); !errors.Is(err, zlua.ErrStale) || !th4.Done() {
		t.Errorf("thread after Close: %v, done %v", err, th4.Done())
	}
}

// TestThreadResumedFromAGoFunction: Resume is an Env call, usable from a
// Go function Lua called (here the scheduler itself is a Go function).
func TestThreadResumedFromAGoFunction(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("wait", func() error { return zlua.Yield("tick") }))
	run(t, e, `function worker() for i = 1, 3 do wait() end return "worker done" end`)
	th := newThread(t, e, "worker")
	var seen []any
	must(t, e.SetGlobal("step", func() (bool, error) {
		out, err := th.Resume()
		seen = append(seen, out...)
		return th.Done(), err
	}))
	run(t, e, `local n = 0 repeat n = n + 1 until step() assert(n == 4, n)`)
	if want := []any{"tick", "tick", "tick", "worker done"}; !reflect.DeepEqual(seen, want) {
		t.Errorf("values seen %v, want %v", seen, want)
	}
}
