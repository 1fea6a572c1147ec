package zlua_test

import (
	"strings"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

// A Go function's result too big for the Lua heap under a MemoryLimit
// fails with "not enough memory" before its push program outgrows a few
// times the limit, and a big program's buffer is not kept after the call.
// Before, make([]int, 1e7) under a 16 MiB limit wrote a program of
// hundreds of MB (seconds, no deadline check) that the Env kept until
// Close.
func TestBigResultsStopAtTheLimitAndLeaveNoBuffer(t *testing.T) {
	e := newEnvWith(t, zlua.Options{MemoryLimit: 16 << 20})
	must(t, e.SetGlobal("grid", func(n int) []int { return make([]int, n) }))
	must(t, e.SetGlobal("split", func(s, sep string) []string { return strings.Split(s, sep) }))
	start := time.Now()
	err := e.DoString(`assert(not pcall(grid, 1e7))`)
	t.Logf("grid(1e7) refused in %v (%v)", time.Since(start), err)
	start = time.Now()
	run(t, e, `
		local ok, err = pcall(grid, 1e7)
		assert(not ok and err:find("not enough memory", 1, true), tostring(err))
		local s = (","):rep(4 * 1024 * 1024)
		ok, err = pcall(split, s, ",")
		assert(not ok and err:find("not enough memory", 1, true), tostring(err))
		s = nil
		-- what fits still comes back whole
		local t = grid(100000)
		assert(#t == 100000 and t[1] == 0 and t[100000] == 0)`)
	if d := time.Since(start); d > 20*time.Second {
		t.Logf("the refused results took %v", d) // not an assertion: the machine is noisy
	}
	if c := zlua.ProgCap(e); c > 1<<20 {
		t.Errorf("push program buffer kept at %d bytes after the calls", c)
	}
	// without a limit a big result is pushed, and its buffer freed after
	u := newEnv(t)
	must(t, u.SetGlobal("grid", func(n int) []int { return make([]int, n) }))
	run(t, u, `local t = grid(300000); assert(#t == 300000)`)
	if c := zlua.ProgCap(u); c > 1<<20 {
		t.Errorf("push program buffer kept at %d bytes after a big result", c)
	}
}
