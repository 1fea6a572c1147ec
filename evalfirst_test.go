package zlua_test

import (
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
	// an assignment still takes the two tries, and works
	before := zlua.FailedLoads(e)
	must(t, e.Eval("y = 10"))
	if n := zlua.FailedLoads(e) - before; n != 1 {
		t.Errorf(`Eval("y = 10"): %d failed compilations, want 1`, n)
	}
}
