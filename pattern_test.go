package zlua_test

import (
	"context"
	"os"
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
