//go:build luajit

package zlua_test

import (
	"context"
	"testing"
	"time"
)

// TestLimitedCallsGiveTheCompilerBackAsTheyFoundIt (outside probe E1-F4):
// a limited call runs with LuaJIT's compiler off (compiled code never runs
// hooks), and its end used to switch the compiler on whatever it was
// before: a host or script that had turned it off found it on again. Now
// the end gives back the state before the outermost limited call, unless
// the script called jit.on() or jit.off() during it (the last one wins).
func TestLimitedCallsGiveTheCompilerBackAsTheyFoundIt(t *testing.T) {
	e := newEnv(t)
	limited := func(chunk string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		must(t, e.DoStringContext(ctx, chunk))
	}
	status := func() bool {
		t.Helper()
		var on bool
		must(t, e.Eval(`(jit.status())`, &on))
		return on
	}
	for _, c := range []struct {
		name, before, during string
		want                 bool
	}{
		{"on before", "jit.on()", "assert(not jit.status())", true},
		{"off before", "jit.off()", "assert(not jit.status())", false},
		{"off before, on during", "jit.off()", "jit.on() assert(not jit.status())", true},
		{"on before, off during", "jit.on()", "jit.off()", false},
		{"on before, off then on during", "jit.on()", "jit.off() jit.on()", true},
		{"off before, a function's mode during", "jit.off()", "jit.on(function() end)", false},
		{"off before, nested", "jit.off()", "assert(pcall(function() end))", false},
	} {
		run(t, e, c.before)
		limited(c.during)
		if got := status(); got != c.want {
			t.Errorf("%s: the compiler is on=%v after the limited call, want %v", c.name, got, c.want)
		}
	}
	run(t, e, `jit.on()`)
}
