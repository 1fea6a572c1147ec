package zlua_test

import (
	"fmt"
	"testing"

	"github.com/zlua-go/zlua"
)

// BenchmarkLeafCall is one call of a leaf method (w:Move(dx, dy)) per op:
// in a loop LuaJIT compiles, in the same loop with the compiler off
// (jit.off: LuaJIT's interpreter runs the leaf closure and its FFI call),
// under a deadline (a limited call: the C closure serves it), and, for
// comparison, the same method of a type that does not declare it leaf
// (noleaf: the trampoline). On Lua 5.4 every variant is the trampoline.
//
//	go test -tags luajit -run '^$' -bench LeafCall -benchtime 2000000x .
func BenchmarkLeafCall(b *testing.B) {
	const loop = `local w = w; for i = 1, %d do w:Move(1, 0.5) end`
	for _, c := range []struct{ name, prep string }{{"compiled", ""}, {"interpreted", "jit.off()"},
		{"limited", ""}, {"noleaf", ""}} {
		b.Run(c.name, func(b *testing.B) {
			e, err := zlua.New(zlua.Options{})
			must(b, err)
			defer e.Close()
			w := &Leafer{}
			if c.name == "noleaf" {
				must(b, e.SetGlobal("w", &Strider{}))
				w = nil
			} else {
				must(b, e.SetGlobal("w", w))
			}
			timedVariant(b, e, c.name, c.prep, fmt.Sprintf(loop, b.N))
			if w != nil && w.X != float64(b.N) {
				b.Fatalf("X = %v, want %d", w.X, b.N)
			}
		})
	}
}
