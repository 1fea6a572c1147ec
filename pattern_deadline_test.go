package zlua_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

// The probe: exponential backtracking inside one C call, where no
// Lua instruction runs and the count hook never fires. Stock Lua takes
// more than 10 s on it.
const evilSetup = `local n = 26 local s = ("a"):rep(n) local pat = ("a?"):rep(n) .. ("a"):rep(n) .. "b" `

// patternProbes are chunks that spend all their time inside one pattern
// function call (or, for plain find, in calls each far longer than the
// deadline with the stock algorithm).
var patternProbes = []struct{ name, chunk string }{
	// the count hook alone, for comparison
	{"baseline: while true", `while true do end`},
	{"match (issue 11)", `local n=26 local s=("a"):rep(n) return s:match(("a?"):rep(n)..("a"):rep(n).."b")`},
	{"find", evilSetup + `return s:find(pat)`},
	{"gmatch", evilSetup + `for m in s:gmatch(pat) do end`},
	{"gsub string", evilSetup + `return s:gsub(pat, "x")`},
	{"gsub function", evilSetup + `return s:gsub(pat, function() end)`},
	{"gsub table", evilSetup + `return s:gsub(pat, {})`},
	{"captured local", evilSetup + `local match = string.match return match(s, pat)`},
	{"pcall loop", evilSetup + `while true do pcall(string.match, s, pat) end`},
	{"lazy dots", `return ("a"):rep(60):match((".-"):rep(30) .. "b")`},
	{"long literal", `return ("a"):rep(1e5):find(("a"):rep(1e4) .. "b$")`},
	{"balance", `return ("("):rep(1e6):find("%b()")`},
	{"large set", `return ("b"):rep(1e5):find("[" .. ("a"):rep(1e4) .. "]")`},
	{"back reference", `local s = ("a"):rep(1e5) return s:find("(" .. ("a"):rep(5e4) .. ")%1b")`},
	// O(n·m) with the stock algorithm: ~10^11 byte comparisons per call
	{"plain find", `local s, p = ("a"):rep(4e6), ("a"):rep(4e4) .. "b"
		while true do s:find(p, 1, true) end`},
	{"plain find, no specials", `local s, p = ("a"):rep(4e6), ("a"):rep(4e4) .. "b"
		while true do s:find(p) end`},
}

// stopsWithin runs chunk under a 50 ms deadline and returns the error and
// the time from the deadline to the call's return (its overrun). A call
// still running after 20 s escaped the deadline: that is reported (the call
// is still awaited, so the Env is never used by two goroutines). On a
// loaded machine the deadline can pass before the call even starts (it then
// returns the context's error without running Lua): such a run is repeated.
func stopsWithin(t *testing.T, e *zlua.Env, chunk string) (error, time.Duration) {
	t.Helper()
	type result struct {
		err      error
		deadline time.Time
	}
	for attempt := 0; ; attempt++ {
		done := make(chan result, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			deadline, _ := ctx.Deadline()
			done <- result{e.DoStringContext(ctx, chunk), deadline}
		}()
		var r result
		select {
		case r = <-done:
		case <-time.After(20 * time.Second):
			t.Errorf("%s: still running 20 s after a 50 ms deadline", chunk)
			r = <-done
		}
		var le *zlua.LuaError
		if attempt < 3 && errors.Is(r.err, context.DeadlineExceeded) && !errors.As(r.err, &le) {
			continue // the deadline passed before Lua ran
		}
		return r.err, time.Since(r.deadline)
	}
}

func TestDeadlineStopsPatternMatching(t *testing.T) {
	for _, libs := range []zlua.Libs{zlua.LibsSafe, zlua.LibsAll} {
		e, err := zlua.New(zlua.Options{Libs: libs})
		must(t, err)
		t.Cleanup(func() { must(t, e.Close()) })
		for _, p := range patternProbes {
			err, over := stopsWithin(t, e, p.chunk)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%v %s: err = %v, want DeadlineExceeded", libs, p.name, err)
				continue
			}
			var le *zlua.LuaError
			if !errors.As(err, &le) || !strings.Contains(le.Message, "interrupted: context deadline exceeded") {
				t.Errorf("%v %s: %v is not the Lua interruption", libs, p.name, err)
			}
			t.Logf("%v %-24s overrun %v", libs, p.name, over.Round(10*time.Microsecond))
			run(t, e, `collectgarbage()`) // no probe's garbage in the next one
		}
		run(t, e, `after = ("abc"):gsub("b", "x")`)
		if global[string](t, e, "after") != "axc" {
			t.Fatal("Env unusable after the probes")
		}
	}
}

// The interruption raised inside a pattern function is the hook's error,
// with the caller's position, raised from the C function (its traceback
// shows it); a protected call catches it, and the call still ends with the
// context's error at the next instruction. (A script's pcall catches it
// too, but no instruction of the script runs after that: the error
// message allocated, which makes the hook fire at the next one. So a Go
// function makes the protected call here and keeps the message.)
func TestPatternInterruptionIsTheHooksError(t *testing.T) {
	e := newEnv(t)
	var caught []string
	must(t, e.SetGlobal("catch", func(f *zlua.Function, args ...any) {
		if _, err := f.Call(args...); err != nil {
			var le *zlua.LuaError
			if errors.As(err, &le) {
				caught = append(caught, le.Message)
			}
		}
	}))
	for _, c := range []struct{ call, want string }{
		// the C function called from Go: no Lua caller, no position
		{`catch(string.match, s, pat)`, "interrupted: context deadline exceeded"},
		{`catch(function() local r = s:match(pat) return r end)`, ":2: interrupted: context deadline exceeded"},
	} {
		caught = nil
		err, _ := stopsWithin(t, e, evilSetup+"\n"+c.call+"\nwhile true do end")
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("%s: err = %v, want DeadlineExceeded", c.call, err)
		}
		if len(caught) != 1 || !strings.HasSuffix(caught[0], c.want) || (c.want[0] != ':') != (caught[0] == c.want) {
			t.Errorf("%s: caught %q, want %q", c.call, caught, c.want)
		}
	}

	// Line 3 is the gsub call, line 4 a loop the hook would interrupt.
	// (LuaJIT reports no traceback for errors of limited calls.)
	err, _ := stopsWithin(t, e, evilSetup+"\n\nlocal r = s:gsub(pat, 'x')\nwhile true do end")
	var le *zlua.LuaError
	if !errors.As(err, &le) || !strings.HasSuffix(le.Message, ":3: interrupted: context deadline exceeded") ||
		(le.Traceback != "" && !strings.Contains(le.Traceback, "gsub")) {
		t.Errorf("err = %v, traceback %q: want the interruption raised inside gsub at line 3", err, tracebackOf(err))
	}
}

// An interruption landing while a library function builds a string in a
// buffer (gsub over many fast matches, table.concat, string.format, rep)
// keeps its position and traceback: on Lua 5.4 the buffer's box is a
// to-be-closed value whose __close runs at the bottom of the stack while
// the error unwinds, and the hurried hook raised the interruption again
// there, without either (probe Z3-F6).
func TestInterruptionsInsideStringBuffersKeepTheirPosition(t *testing.T) {
	e := newEnv(t)
	for _, loop := range []string{
		`s:gsub("%w+", "%0")`,
		`s:gsub("%w+", function(x) return x end)`,
		`s:gsub("%w+", {abc = "x"})`,
		`table.concat(parts)`,
		`string.format("%s%s", s, s)`,
		`("ab"):rep(200000, ",")`,
	} {
		chunk := "local s = ('abc '):rep(100000)\nlocal parts = {} for i = 1, 1000 do parts[i] = 'ab' end\n" +
			"while true do\n\t" + loop + "\nend"
		for range 3 {
			err, _ := stopsWithin(t, e, chunk)
			var le *zlua.LuaError
			if !errors.As(err, &le) || !strings.HasSuffix(le.Message, ":4: interrupted: context deadline exceeded") ||
				(le.Traceback != "" && !strings.Contains(le.Traceback, "main chunk")) {
				t.Errorf("%s: err = %v, traceback %q: want line 4's position and the script's frames", loop, err, tracebackOf(err))
				break
			}
		}
	}
}

func tracebackOf(err error) string {
	var le *zlua.LuaError
	if errors.As(err, &le) {
		return le.Traceback
	}
	return ""
}

func TestCancelStopsPatternMatching(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// canceled 20 ms after the chunk started (not before it could start)
	must(t, e.SetGlobal("arm", func() { time.AfterFunc(20*time.Millisecond, cancel) }))
	err := e.DoStringContext(ctx, "arm() "+patternProbes[1].chunk)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "interrupted: context canceled") {
		t.Fatalf("err = %v, want the cancellation", err)
	}
}

// A gmatch iterator made before the limited call (and so before any
// deadline existed) is still bounded when called inside it, and an
// unlimited call is never interrupted by a deadline that has passed.
func TestPatternFunctionsMadeBeforeTheLimitedCall(t *testing.T) {
	e := newEnv(t)
	run(t, e, evilSetup+`it = s:gmatch(pat) find = string.find S, P = s, pat`)
	for _, chunk := range []string{`it()`, `find(S, P)`} {
		err, _ := stopsWithin(t, e, chunk)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: err = %v, want DeadlineExceeded", chunk, err)
		}
	}
	run(t, e, `r = select("#", ("aaa"):find("(a?)(a?)b"))`)
	if global[int](t, e, "r") != 1 {
		t.Error("unlimited find after the limited calls")
	}
}
