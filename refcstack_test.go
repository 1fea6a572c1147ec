package zlua_test

import (
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// Coroutines nested through a Go function that takes a *zlua.Function
// reach the C stack's bound; the error says so, not "not enough memory"
// with a few KB in use (probe A3-F5).
func TestNestedResumesThroughGoSayTheStackNotMemory(t *testing.T) {
	for _, limit := range []int64{0, 16 << 20} {
		e := newEnvWith(t, zlua.Options{MemoryLimit: limit})
		must(t, e.SetGlobal("callf", func(f *zlua.Function, args ...any) ([]any, error) { return f.Call(args...) }))
		var msg string
		must(t, e.Eval(`select(2, pcall(function()
			local function g(n)
				local co = coroutine.create(function()
					return callf(function()
						local ok, e = coroutine.resume(coroutine.create(g), n + 1)
						if not ok then error(e, 0) end
						return e
					end)
				end)
				local ok, e = coroutine.resume(co)
				if not ok then error(e, 0) end
				return e
			end
			return g(1)
		end))`, &msg))
		t.Logf("limit %d: %s", limit, msg)
		if strings.Contains(msg, "not enough memory") || !strings.Contains(msg, "stack overflow") {
			t.Errorf("limit %d: %q, want a stack overflow", limit, msg)
		}
	}
}
