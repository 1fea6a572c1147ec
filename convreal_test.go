package zlua_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// One conversion of a script's value into Go may not build more Go memory
// than the MemoryLimit (within a small factor): small maps cost Go their
// header and a group of eight slots, and numbers a box, which the budget
// did not count, so a table graph sharing its subtables built 5× the limit
// before it was refused (probe A3-F7). Measured with the Go heap's
// cumulative allocation around each call.
func TestConversionsBuildNoMoreThanTheLimit(t *testing.T) {
	const limit = 1 << 20
	e := newEnvWith(t, zlua.Options{MemoryLimit: limit})
	must(t, e.SetGlobal("sink", func(v any) {}))
	must(t, e.SetGlobal("sinkMap", func(v map[string]map[string]int) {}))
	accepted := 0
	for _, shape := range []string{
		`{a = t, b = t, x = t}`,
		`{t, t, t}`,
		`{a = t, b = t, n = 1.5, m = 7}`,
	} {
		for k := 1; k <= 14; k++ {
			chunk := fmt.Sprintf(`local t = {} for i = 1, %d do t = %s end
				local ok, err = pcall(sink, t)
				assert(ok or err:find("more than the memory limit", 1, true), err)
				return ok`, k, shape)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			var ok bool
			must(t, e.Eval(chunk, &ok))
			runtime.ReadMemStats(&after)
			built := after.TotalAlloc - before.TotalAlloc
			if ok {
				accepted++
			}
			if ok && built > limit*5/4 {
				t.Errorf("%s, %d levels: accepted, and built %d bytes of Go memory (limit %d)", shape, k, built, limit)
			}
		}
	}
	if accepted == 0 {
		t.Errorf("no conversion was accepted: the test measures nothing")
	}
	// typed maps count their groups too
	for n := 500; n <= 16000; n *= 2 {
		var before, after runtime.MemStats
		var msg string
		chunk := fmt.Sprintf(`local m = {}
			for i = 1, %d do m["k" .. i] = {a = 1} end
			collectgarbage()
			local ok, err = pcall(sinkMap, m)
			return ok and "" or err`, n)
		runtime.ReadMemStats(&before)
		if err := e.Eval(chunk, &msg); err != nil {
			break // the Lua heap cannot hold the table itself
		}
		runtime.ReadMemStats(&after)
		if built := after.TotalAlloc - before.TotalAlloc; msg == "" && built > limit*5/4 {
			t.Errorf("typed map of %d: accepted, and built %d bytes of Go memory", n, built)
		} else if msg != "" && !strings.Contains(msg, "memory") {
			t.Errorf("typed map of %d: %q", n, msg)
		}
	}
}
