package zlua_test

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

var errSmall = errors.New("small failure")

// Go errors a script catches are kept (with their causes) until the
// outermost call returns, so that one re-raised later still unwraps to its
// Go cause. Under a MemoryLimit those kept besides the newest are bounded
// by an eighth of the limit (2 MiB here): before, eight panics with tables caught with
// pcall in one call kept eight converted tables (probe Y2 F1: 217 MB under
// 16 MiB). The newest is always kept, and small causes are kept as before.
func TestCaughtGoErrorsKeepBoundedMemoryUnderALimit(t *testing.T) {
	e, err := zlua.New(zlua.Options{Libs: zlua.LibsSafe, MemoryLimit: 16 << 20})
	must(t, err)
	defer func() { must(t, e.Close()) }()
	must(t, e.SetGlobal("boom", func(v any) { panic(v) }))
	must(t, e.SetGlobal("small", func() error { return errSmall }))
	must(t, e.SetGlobal("goheap", func() float64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return float64(ms.HeapAlloc)
	}))
	var base, one, eight float64
	must(t, e.Eval(`(function()
		local function caught()
			local t = {}
			for j = 1, 20000 do t[j] = {j, "s" .. j, x = j} end
			local ok = pcall(boom, t)
			assert(not ok)
		end
		local base = goheap()
		caught()
		local one = goheap()
		for i = 2, 8 do caught() end
		return base, one, goheap()
	end)()`, &base, &one, &eight))
	per := one - base
	if per < 1<<20 {
		t.Fatalf("one caught panic kept %.0f bytes: the table is too small to tell", per)
	}
	if eight-base > 2.5*per {
		t.Errorf("eight caught panics kept %.1f MB, one %.1f MB", (eight-base)/(1<<20), per/(1<<20))
	}
	// the newest, uncaught, keeps its Go cause
	err = e.DoString(`local t = {} for j = 1, 20000 do t[j] = {j} end boom(t)`)
	var pe *zlua.PanicError
	if !errors.As(err, &pe) {
		t.Errorf("the uncaught panic: %v, want a *PanicError", err)
	}
	// small causes caught and re-raised later still unwrap
	err = e.DoString(`local ok, a = pcall(small)
		for i = 1, 5 do pcall(small) end
		error(a, 0)`)
	if !errors.Is(err, errSmall) {
		t.Errorf("a small error caught and re-raised: %v, want errSmall", err)
	}
	// a big one caught before another is let go: re-raised, it is the
	// same text without its Go cause (kept without a limit)
	free := newEnv(t)
	lim, err := zlua.New(zlua.Options{Libs: zlua.LibsSafe, MemoryLimit: 16 << 20})
	must(t, err)
	defer func() { must(t, lim.Close()) }()
	const reraise = `local s = string.rep("b", 1572864)
		local ok, a = pcall(bigerr, s)
		pcall(bigerr, s .. "2")
		error(a, 0)`
	for _, c := range []struct {
		name  string
		env   *zlua.Env
		cause bool
	}{{"limited", lim, false}, {"unlimited", free, true}} {
		must(t, c.env.SetGlobal("bigerr", func(s string) error { return fmt.Errorf("big: %s", s) }))
		err := c.env.DoString(reraise)
		if err == nil || !strings.Contains(err.Error(), "big: bbb") {
			t.Errorf("%s: the re-raised error: %.40v", c.name, err)
		} else if got := errors.Unwrap(err) != nil; got != c.cause {
			t.Errorf("%s: the re-raised error has a Go cause: %v, want %v", c.name, got, c.cause)
		}
	}
}
