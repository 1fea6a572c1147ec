package zlua_test

import (
	"os"
	"testing"

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

func TestPatternFunctionsMatchTheStockLibrary(t *testing.T) {
	e := newPatternEnv(t)
	src, err := os.ReadFile("testdata/patterns_cases.lua")
	must(t, err)
	must(t, e.DoString(string(src)))
	bad, n := mismatches(t, e)
	if n < 50000 {
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
