package zlua_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

// newPatternEnv returns a LibsAll Env with the differential harness of
// testdata/patterns_harness.lua loaded and STOCK set.
func newPatternEnv(t testing.TB) *zlua.Env {
	t.Helper()
	e := newEnv(t)
	must(t, zlua.StockPatterns(e, "STOCK"))
	src, err := os.ReadFile("testdata/patterns_harness.lua")
	must(t, err)
	must(t, e.DoString(string(src)))
	return e
}

// mismatches returns the differences the harness recorded and the number
// of comparisons.
func mismatches(t testing.TB, e *zlua.Env) ([]string, int) {
	t.Helper()
	return global[[]string](t, e, "mismatches"), global[int](t, e, "ncases")
}

// reportMismatches fails t with the first differences the harness found.
func reportMismatches(t *testing.T, e *zlua.Env, min int) {
	t.Helper()
	bad, n := mismatches(t, e)
	if n < min {
		t.Errorf("only %d comparisons ran", n)
	}
	for i, m := range bad {
		if i == 40 {
			t.Errorf("... and %d more", len(bad)-i)
			break
		}
		t.Error(m)
	}
	t.Logf("%d comparisons, %d mismatches", n, len(bad))
}

// TestPatternFunctionsMatchTheStockLibrary runs the case table of
// testdata/patterns_cases.lua (every pattern construct, malformed
// patterns, start positions, replacements, argument errors, limits) with
// the stock and zlua's functions, in a plain call and in a limited one
// (LuaJIT: interpreted, as limited calls always are).
func TestPatternFunctionsMatchTheStockLibrary(t *testing.T) {
	src, err := os.ReadFile("testdata/patterns_cases.lua")
	must(t, err)
	for _, limited := range []bool{false, true} {
		e := newPatternEnv(t)
		if limited {
			ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
			must(t, e.DoStringContext(ctx, string(src)))
			cancel()
		} else {
			must(t, e.DoString(string(src)))
		}
		reportMismatches(t, e, 90000)
	}
}

// TestPatternErrorsUseLuasMessages checks every error the pattern
// functions raise, with the backend's own wording and the position of the
// calling line.
func TestPatternErrorsUseLuasMessages(t *testing.T) {
	jit := strings.HasPrefix(zlua.Backend, "LuaJIT")
	pick := func(lua54, luajit string) string {
		if jit {
			return luajit
		}
		return lua54
	}
	e := newEnv(t)
	for _, c := range []struct{ call, want string }{
		{`("x"):match("%")`, "malformed pattern (ends with '%')"},
		{`("x"):match("[a")`, "malformed pattern (missing ']')"},
		{`("x"):match("[^")`, "malformed pattern (missing ']')"},
		{`("x"):match("[%")`, "malformed pattern (missing ']')"},
		{`("x"):match("x)")`, "invalid pattern capture"},
		{`("x"):match("(x")`, "unfinished capture"},
		{`("x"):find("(x")`, "unfinished capture"},
		{`("x"):match("%b")`, pick("malformed pattern (missing arguments to '%b')", "unbalanced pattern")},
		{`("x"):match("%bx")`, pick("malformed pattern (missing arguments to '%b')", "unbalanced pattern")},
		{`("x"):match("%f")`, "missing '[' after '%f' in pattern"},
		{`("x"):match("%fx")`, "missing '[' after '%f' in pattern"},
		{`("x"):match("%f[x")`, "malformed pattern (missing ']')"},
		{`("x"):match("(x)%2")`, pick("invalid capture index %2", "invalid capture index")},
		{`("x"):match("%0")`, pick("invalid capture index %0", "invalid capture index")},
		{`("x"):match("(x%1)")`, pick("invalid capture index %1", "invalid capture index")},
		{`("a"):match(("()"):rep(33))`, "too many captures"},
		{`("a"):rep(201):match(("a?"):rep(200))`, "pattern too complex"},
		{`("ab"):rep(201):find(("a+b"):rep(200))`, "pattern too complex"},
		{`for w in ("x"):gmatch("(x") do end`, "unfinished capture"},
		{`("x"):gsub("x", "%2")`, pick("invalid capture index %2", "invalid capture index")},
		{`("x"):gsub("(x)", "%2")`, pick("invalid capture index %2", "invalid capture index")},
		{`("x"):gsub("x", {x = true})`, "invalid replacement value (a boolean)"},
		{`("x"):gsub("x", function() return {} end)`, "invalid replacement value (a table)"},
		{`("x"):gsub("x")`, pick("bad argument #2 to 'gsub' (string/function/table expected, got no value)",
			"bad argument #2 to 'gsub' (string/function/table expected)")},
		{`string.gsub("x", "x", true)`, pick("bad argument #3 to 'gsub' (string/function/table expected, got boolean)",
			"bad argument #3 to 'gsub' (string/function/table expected)")},
		{`string.gsub("x", "x", "y", "n")`, "bad argument #4 to 'gsub' (number expected, got string)"},
		{`string.find()`, "bad argument #1 to 'find' (string expected, got no value)"},
		{`string.match("x", {})`, "bad argument #2 to 'match' (string expected, got table)"},
		{`string.find("x", "x", {})`, "bad argument #3 to 'find' (number expected, got table)"},
		{`string.gmatch(nil, "x")`, "bad argument #1 to 'gmatch' (string expected, got nil)"},
		{`("x"):find(nil)`, "bad argument #1 to 'find' (string expected, got nil)"},
	} {
		chunk := "local ok, err = pcall(function()\n" + c.call + "\nend) msg = err"
		run(t, e, chunk)
		got := global[string](t, e, "msg")
		if !strings.HasSuffix(got, ":2: "+c.want) {
			t.Errorf("%s: error %q, want %q at line 2", c.call, got, c.want)
		}
	}
	if !jit {
		run(t, e, `local ok, err = pcall(string.gsub, "x", "x", "%") msg = err`)
		if got := global[string](t, e, "msg"); got != "invalid use of '%' in replacement string" {
			t.Errorf("gsub %%: %q", got)
		}
	} else { // Lua 5.1: a '%' before anything but a digit stands for that byte
		run(t, e, `msg = ("x"):gsub("x", "a%b%")`)
		if got := global[string](t, e, "msg"); got != "ab\x00" {
			t.Errorf("gsub %%: %q", got)
		}
	}
}

// A script with the debug library can replace the upvalues of a gmatch
// iterator (as it can those of the stock one, which then crashes): zlua's
// keeps offsets, not pointers, and checks every value it reads.
func TestGmatchIteratorSurvivesReplacedUpvalues(t *testing.T) {
	e := newEnv(t)
	run(t, e, `
		local foreign = { false, 1, "zz", {}, io.stdout, print, ("a"):gmatch("a"), 1e300, -1 }
		local states = 0
		for i = 1, 4 do
			for _, v in ipairs(foreign) do
				local it = ("abc abc"):gmatch("%a+")
				-- (LuaJIT: upvalue 1 is the C step every iterator shares)
				local name, old = debug.getupvalue(it, i)
				if name and type(old) ~= "function" then
					debug.setupvalue(it, i, v)
					for _ = 1, 3 do pcall(it) end
					states = states + 1
				end
			end
		end
		-- a state from another iterator: offsets past this subject's end
		local long = ("word "):rep(100):gmatch("%a+")
		for _ = 1, 90 do long() end
		local short = ("ab"):gmatch("%a+")
		local n = 0
		while debug.getupvalue(short, n + 1) do n = n + 1 end
		local _, st = debug.getupvalue(long, n)
		debug.setupvalue(short, n, st)
		assert(short() == nil)
		assert(states == 27, states)
		survived = true`)
	if !global[bool](t, e, "survived") {
		t.Fatal("the iterator did not survive")
	}
}

// TestPatternSampleMatchesTheStockInterpreters runs a sample of calls
// whose results were recorded from the stock lua5.4 and luajit binaries
// (see testdata/patterns_sample.lua).
func TestPatternSampleMatchesTheStockInterpreters(t *testing.T) {
	golden := "testdata/patterns_sample.golden"
	if strings.HasPrefix(zlua.Backend, "LuaJIT") {
		golden = "testdata/patterns_sample_luajit.golden"
	}
	want, err := os.ReadFile(golden)
	must(t, err)
	e := newEnv(t)
	must(t, e.DoFile("testdata/patterns_sample.lua"))
	got := global[string](t, e, "sample_output")
	if got != string(want) {
		t.Errorf("zlua:\n%s\nstock (%s):\n%s", got, golden, want)
	}
}
