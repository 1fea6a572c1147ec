package zlua_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

// The callbacks a Go function calls after its limited call's deadline are
// interrupted at their first instruction; their traceback shows the top
// levels only, so each costs the same however deep the script's stack
// (luaL_traceback's search for the last levels walked all of it, per
// refused callback: seconds for a host looping over entities).
func TestCallbacksAfterTheDeadlineHaveAShortTraceback(t *testing.T) {
	e := newEnv(t)
	var last error
	refused := 0
	must(t, e.SetGlobal("callN", func(f *zlua.Function, n int) int {
		time.Sleep(80 * time.Millisecond) // the deadline passes while Go runs
		for i := 0; i < n; i++ {
			if _, err := f.Call(); err != nil {
				refused++
				last = err
			}
		}
		return refused
	}))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err := e.DoStringContext(ctx, `
		local function deep(n)
			if n == 0 then return callN(function() return 1 end, 20) end
			return (deep(n - 1))
		end
		deep(300)`)
	if !errors.Is(err, context.DeadlineExceeded) && (err == nil || !strings.Contains(err.Error(), "interrupted")) {
		t.Fatalf("limited call: %v", err)
	}
	if refused != 20 {
		t.Fatalf("%d of 20 callbacks refused after the deadline", refused)
	}
	var le *zlua.LuaError
	if !errors.As(last, &le) || !strings.Contains(le.Message, "interrupted: context deadline exceeded") {
		t.Fatalf("a refused callback's error: %v", last)
	}
	tb := le.Traceback
	if !strings.HasSuffix(tb, "(the rest skipped: the call was interrupted)") || strings.Count(tb, "\n\t") != 13 {
		t.Errorf("traceback of a refused callback, 300 levels deep:\n%s", tb)
	}
	if !strings.Contains(tb, "in function 'deep'") && !strings.Contains(tb, "in function <") {
		t.Errorf("traceback names no script function:\n%s", tb)
	}
	// an error that is not an interruption keeps Lua's traceback
	err = e.DoString(`local function deep(n) if n == 0 then error("x") end return (deep(n - 1)) end deep(300)`)
	if !errors.As(err, &le) || strings.Contains(le.Traceback, "the rest skipped") || !strings.Contains(le.Traceback, "main chunk") {
		t.Errorf("an ordinary error's traceback: %v\n%s", err, le.Traceback)
	}
}
