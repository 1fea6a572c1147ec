package zlua_test

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestScriptCountHooksStayExactWhenTheLimitsCountShrinks: a limited call
// checks its deadline at count events whose spacing adapts to how long
// instructions take (hook.c adapt_count); a slow Go call shrinks it below
// a script's small count. The script's count and line events must still
// be the ones the plain call (and the stock interpreter) gives: a count
// event due while the script's hook function runs is lost, in stock Lua
// too, and where the composed count differed from the script's the two
// lost different events (seen once under load as 354/353 line/count
// events where stock gives 353/352).
func TestScriptCountHooksStayExactWhenTheLimitsCountShrinks(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("nap", func() { time.Sleep(3 * time.Millisecond) }))
	const script = `
		if jit then jit.off() jit.flush() end
		local ev = {}
		local function f() local a = 1 local b = 2 return a + b end
		debug.sethook(function(e, line) local x = 1 local y = x + 1 ev[e] = (ev[e] or 0) + y - 1 end, "l", %d)
		for i = 1, 40 do
			if i %% 8 == 0 then nap() end
			f()
		end
		debug.sethook()
		result = string.format("line %%d count %%d", ev.line or 0, ev.count or 0)`
	for _, count := range []int{2, 3, 5, 7} {
		src := fmt.Sprintf(script, count)
		run(t, e, src)
		plain := global[string](t, e, "result")
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		must(t, e.DoStringContext(ctx, src))
		cancel()
		if limited := global[string](t, e, "result"); limited != plain {
			t.Errorf("count %d: %s inside a limited call, %s outside", count, limited, plain)
		}
	}
}
