package zlua

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestThreadResumeWithScalarArgumentsInOneCrossing covers Resume's
// one-crossing path (cgo/resume.c, zlua_resume_scalars): scalar arguments
// of every kind reach the thread, scalar values come back read in C and
// popped from the thread, strings, tables and more than four values move
// to the caller's stack, the thread's error keeps its message and
// traceback, a dead or running thread is refused in Lua's words (the
// full path), and the stack is left as found, at top level and inside a
// Go function Lua called.
func TestThreadResumeWithScalarArgumentsInOneCrossing(t *testing.T) {
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.DoString(`
		local unpack = table.unpack or unpack
		local function pack(...) return {n = select("#", ...), ...} end
		function echo(...)
			local args = pack(...)
			while true do
				local a1 = args[1]
				if a1 == "str" then args = pack(coroutine.yield("s" .. args.n, {args.n}))
				elseif a1 == "many" then args = pack(coroutine.yield(1, 2, 3, 4, 5))
				elseif a1 == "fail" then error("failed with " .. tostring(args[2]))
				elseif a1 == "self" then args = pack(coroutine.yield(pcall(resumeself)))
				elseif a1 == "done" then return "finished", args.n
				else args = pack(coroutine.yield(unpack(args, 1, args.n))) end
			end
		end`); err != nil {
		t.Fatal(err)
	}
	var echo *Function
	if err := e.GetFunction("echo", &echo); err != nil {
		t.Fatal(err)
	}
	defer echo.Release()
	check := func(where string) {
		t.Helper()
		before := e.stackTop()
		th, err := e.NewThread(echo)
		if err != nil {
			t.Fatal(err)
		}
		defer th.Release()
		if err := e.SetGlobal("resumeself", func() error { _, err := th.Resume(); return err }); err != nil {
			t.Fatal(err)
		}
		want := []any{nil, true, false, int64(-7), 2.5}
		if out, err := th.Resume(nil, true, false, int32(-7)); err != nil || !reflect.DeepEqual(out, want[:4]) {
			t.Errorf("%s: first resume = %#v, %v; want %#v", where, out, err, want[:4])
		}
		if out, err := th.Resume(2.5, float32(0.5)); err != nil || !reflect.DeepEqual(out, []any{2.5, 0.5}) {
			t.Errorf("%s: float resume = %#v, %v", where, out, err)
		}
		if out, err := th.Resume(); err != nil || len(out) != 0 {
			t.Errorf("%s: empty resume = %#v, %v", where, out, err)
		}
		if out, err := th.Resume("str", 1); err != nil || !reflect.DeepEqual(out, []any{"s2", []any{int64(2)}}) {
			t.Errorf("%s: string and table values = %#v, %v", where, out, err)
		}
		if out, err := th.Resume("many"); err != nil || !reflect.DeepEqual(out, []any{int64(1), int64(2), int64(3), int64(4), int64(5)}) {
			t.Errorf("%s: five values = %#v, %v", where, out, err)
		}
		out, err := th.Resume("self")
		if err != nil || len(out) != 2 || out[0] != false || !strings.Contains(out[1].(string), "cannot resume non-suspended coroutine") {
			t.Errorf("%s: the thread resuming itself = %#v, %v", where, out, err)
		}
		if out, err := th.Resume("done"); err != nil || !reflect.DeepEqual(out, []any{"finished", int64(1)}) || !th.Done() {
			t.Errorf("%s: return = %#v, %v, done %v", where, out, err, th.Done())
		}
		if _, err := th.Resume(1); err == nil || !strings.HasSuffix(err.Error(), "cannot resume dead coroutine") {
			t.Errorf("%s: dead thread resumed: %v", where, err)
		}
		th2, err := e.NewThread(echo)
		if err != nil {
			t.Fatal(err)
		}
		defer th2.Release()
		_, err = th2.Resume("fail", 3)
		var le *LuaError
		if !errors.As(err, &le) || !strings.Contains(le.Message, "failed with 3") || !strings.Contains(le.Traceback, "in function") || !th2.Done() {
			t.Errorf("%s: failing thread = %v (traceback %q), done %v", where, err, tracebackOf(le), th2.Done())
		}
		if after := e.stackTop(); after != before {
			t.Errorf("%s: stack top %d -> %d", where, before, after)
		}
	}
	check("top level")
	if err := e.SetGlobal("inside", func() { check("inside a Go function") }); err != nil {
		t.Fatal(err)
	}
	if err := e.DoString(`inside()`); err != nil {
		t.Fatal(err)
	}
}

func tracebackOf(le *LuaError) string {
	if le == nil {
		return ""
	}
	return le.Traceback
}

// TestScalarResumeUnderFailingAllocations: a resume with scalar
// arguments whose thread yields a new string and table, for allocations
// failing from each k on, reports the memory error or succeeds; the
// thread is then either dead or resumes correctly, and the stack is
// balanced.
func TestScalarResumeUnderFailingAllocations(t *testing.T) {
	for k := uint64(1); ; k++ {
		e, err := New(Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.DoString(`function body(n)
				while true do n = coroutine.yield(("x"):rep(n % 50 + 40) .. n, {n, n}) end
			end`); err != nil {
			t.Fatal(err)
		}
		var body *Function
		if err := e.GetFunction("body", &body); err != nil {
			t.Fatal(err)
		}
		th, err := e.NewThread(body)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := th.Resume(1); err != nil {
			t.Fatal(err)
		}
		before := e.stackTop()
		s := e.g.S
		start := s.AllocCount()
		s.FailAllocAt(k)
		out, err := th.Resume(2)
		s.FailAllocAt(0)
		reached := s.AllocCount()-start >= k
		if after := e.stackTop(); after != before {
			t.Fatalf("k=%d: stack top %d -> %d", k, before, after)
		}
		switch {
		case err == nil:
			if len(out) != 2 || out[0] != strings.Repeat("x", 42)+"2" {
				t.Fatalf("k=%d: Resume = %#v", k, out)
			}
		case !strings.Contains(err.Error(), "not enough memory"):
			t.Fatalf("k=%d: Resume under failing allocations = %v", k, err)
		}
		if th.Done() {
			if _, err := th.Resume(3); err == nil || !strings.HasSuffix(err.Error(), "cannot resume dead coroutine") {
				t.Fatalf("k=%d: dead thread resumed: %v", k, err)
			}
		} else if out, err := th.Resume(3); err != nil || len(out) != 2 || out[0] != strings.Repeat("x", 43)+"3" {
			t.Fatalf("k=%d: resume after the failure = %#v, %v", k, out, err)
		}
		th.Release()
		body.Release()
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		if !reached {
			t.Logf("%d allocation points", k-1)
			break
		}
	}
}

// TestBindResumeDrivesACoroutine covers typed resume funcs: the
// allocation-free signatures and a reflect-made one resume the thread,
// convert what it yields, report its error and then that it is dead;
// a func without an error result panics with it; the stack is balanced.
func TestBindResumeDrivesACoroutine(t *testing.T) {
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.DoString(`
		function ticker(dt)
			local total = 0
			while true do
				total = total + dt
				if total > 10 then error("too late: " .. total) end
				dt = coroutine.yield(total)
			end
		end
		function named(n) while true do n = coroutine.yield("n" .. tostring(n), n + 1) end end`); err != nil {
		t.Fatal(err)
	}
	var ticker, named *Function
	if err := e.GetFunction("ticker", &ticker); err != nil {
		t.Fatal(err)
	}
	if err := e.GetFunction("named", &named); err != nil {
		t.Fatal(err)
	}
	defer ticker.Release()
	defer named.Release()
	th, err := e.NewThread(ticker)
	if err != nil {
		t.Fatal(err)
	}
	defer th.Release()
	var step func(float64) (float64, error)
	if err := th.BindResume(&step); err != nil {
		t.Fatal(err)
	}
	before := e.stackTop()
	for i, want := range []float64{1.5, 4, 4.25} {
		dt := []float64{1.5, 2.5, 0.25}[i]
		if got, err := step(dt); err != nil || got != want {
			t.Errorf("step(%v) = %v, %v; want %v", dt, got, err, want)
		}
	}
	var stepInt func(int) int
	if err := th.BindResume(&stepInt); err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "number has no integer representation") {
				t.Errorf("stepInt on a float: recovered %v", r)
			}
		}()
		stepInt(1) // yields 5.25
	}()
	if _, err := step(6); err == nil || !strings.Contains(err.Error(), "too late: 11.25") || !th.Done() {
		t.Errorf("step past the limit = %v, done %v", err, th.Done())
	}
	if _, err := step(1); err == nil || !strings.HasSuffix(err.Error(), "cannot resume dead coroutine") {
		t.Errorf("step of a dead thread = %v", err)
	}
	th2, err := e.NewThread(named)
	if err != nil {
		t.Fatal(err)
	}
	defer th2.Release()
	var first func(int) (string, error)
	var both func(int) (string, int, error) // reflect-made
	if err := th2.BindResume(&first); err != nil {
		t.Fatal(err)
	}
	if err := th2.BindResume(&both); err != nil {
		t.Fatal(err)
	}
	if s, err := first(7); err != nil || s != "n7" {
		t.Errorf("first(7) = %q, %v", s, err)
	}
	if s, n, err := both(41); err != nil || s != "n41" || n != 42 {
		t.Errorf("both(41) = %q, %d, %v", s, n, err)
	}
	if after := e.stackTop(); after != before {
		t.Errorf("stack top %d -> %d", before, after)
	}
	var notFunc int
	if err := th2.BindResume(&notFunc); err == nil {
		t.Error("BindResume(&int) succeeded")
	}
	if err := e.DoString(`function inc(x) while true do x = coroutine.yield(x + 1) end end`); err != nil {
		t.Fatal(err)
	}
	var inc *Function
	if err := e.GetFunction("inc", &inc); err != nil {
		t.Fatal(err)
	}
	defer inc.Release()
	th3, err := e.NewThread(inc)
	if err != nil {
		t.Fatal(err)
	}
	defer th3.Release()
	var next func(int) (int, error)
	if err := th3.BindResume(&next); err != nil {
		t.Fatal(err)
	}
	i := 1000
	if n := testing.AllocsPerRun(100, func() {
		if v, err := next(i); err != nil || v != i+1 {
			t.Fatalf("next(%d) = %d, %v", i, v, err)
		}
		i += 1000
	}); n != 0 {
		t.Errorf("func(int) (int, error) resumer: %v allocations per resume, want 0", n)
	}
}

// A typed func given fewer values than it declares reads the missing ones
// as nil, as a Lua multiple assignment does, whether they come from a call
// (GetFunction) or a resume (BindResume): the two say the same thing.
func TestTypedFuncsReadMissingResultsAsNil(t *testing.T) {
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.DoString(`
		function one() return 1 end
		function step() coroutine.yield(1) end`); err != nil {
		t.Fatal(err)
	}
	var call func() (int, int, error)
	if err := e.GetFunction("one", &call); err != nil {
		t.Fatal(err)
	}
	var step *Function
	if err := e.GetFunction("step", &step); err != nil {
		t.Fatal(err)
	}
	defer step.Release()
	th, err := e.NewThread(step)
	if err != nil {
		t.Fatal(err)
	}
	defer th.Release()
	var resume func() (int, float64, error)
	if err := th.BindResume(&resume); err != nil {
		t.Fatal(err)
	}
	_, _, cerr := call()
	_, _, rerr := resume()
	for _, c := range []struct {
		what string
		err  error
	}{{"call", cerr}, {"resume", rerr}} {
		if c.err == nil || !strings.Contains(c.err.Error(), "result #2: number expected, got nil") {
			t.Errorf("%s: err = %v, want result #2 ... got nil", c.what, c.err)
		}
	}
}
