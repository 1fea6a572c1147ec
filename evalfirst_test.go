package zlua_test

import (
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// Eval of a chunk that begins with a statement keyword compiles it once,
// as statements: the "return " + chunk try would be a syntax error, a raise
// that on LuaJIT costs a search of every state's unwind tables (probe
// A1-F2). A raise is counted by the chunk-load statistics the test hook
// exposes: loads that failed.
func TestEvalOfStatementsCompilesOnce(t *testing.T) {
	e := newEnv(t)
	for chunk, want := range map[string]int{
		"return 1 + 1":                          2,
		"  -- a comment\n local x = 3 return x": 3,
		"--[==[ long\n comment ]==] return 4":   4,
		"::top:: return 5":                      5,
		"do return 6 end":                       6,
		"if true then return 7 end":             7,
		"for i = 8, 8 do return i end":          8,
		"1 + 8":                                 9,
		"localx or 0":                           0, // an expression (the global localx)
	} {
		before := zlua.FailedLoads(e)
		var v int
		must(t, e.Eval(chunk, &v))
		if v != want {
			t.Errorf("Eval(%q) = %d, want %d", chunk, v, want)
		}
		if n := zlua.FailedLoads(e) - before; n != 0 {
			t.Errorf("Eval(%q): %d failed compilations, want 0", chunk, n)
		}
	}
	// New itself compiles nothing that fails (its root table check was a
	// statement chunk given to Eval)
	for _, opts := range []zlua.Options{{}, {Root: "game"}, {Libs: zlua.LibsSafe}} {
		if n := zlua.FailedLoads(newEnvWith(t, opts)); n != 0 {
			t.Errorf("New(%+v): %d failed compilations, want 0", opts, n)
		}
	}
	// assignments and named functions compile once as statements
	for _, chunk := range []string{"y = 10", "t = {} t.a, y = 1, 10", "a.b.c = 1 y = 10", "y\n=\n10",
		"function setY() y = 10 end setY()", "local t = {} function t.f() end y = 10"} {
		run(t, e, `y = 0 a = {b = {}}`)
		before := zlua.FailedLoads(e)
		must(t, e.Eval(chunk))
		if n := zlua.FailedLoads(e) - before; n != 0 {
			t.Errorf("Eval(%q): %d failed compilations, want 0", chunk, n)
		}
		if global[int](t, e, "y") != 10 {
			t.Errorf("Eval(%q) did not run it", chunk)
		}
	}
	// expressions that begin like them are still expressions
	run(t, e, `x, n = 3, 4 f = function(v) return v end`)
	for chunk, want := range map[string]int{"x == 3 and 1 or 0": 1, "x, n": 3, "x <= n and 5 or 6": 5,
		"(function() return 7 end)()": 7, "function() end and 8": 8, "f{a = 9}.a": 9, "f 'xx' == 'xx' and 10": 10} {
		var v int
		must(t, e.Eval(chunk, &v))
		if v != want {
			t.Errorf("Eval(%q) = %d, want %d", chunk, v, want)
		}
	}
	// a chunk that is neither still reports the statement's syntax error
	if err := e.Eval("x = = 1"); err == nil || !strings.Contains(err.Error(), "unexpected symbol near '='") {
		t.Errorf(`Eval("x = = 1") = %v, want the syntax error`, err)
	}
}
