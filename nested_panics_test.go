package zlua_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// A typed func without an error result panics with the Lua error; a Go
// function that lets that panic through raises the same Lua error, named
// once. Each level used to wrap it as its own panic, "go function 'down'
// panicked: " again per level: 3,401 bytes of message at 78 levels
// (found by an outside probe).
func TestLuaErrorPanicsThroughNestedGoFunctionsKeepTheirMessage(t *testing.T) {
	e := newEnv(t)
	boom := errors.New("boom")
	var rec func(int) int // no error result: a Lua error panics
	must(t, e.SetGlobal("setrec", func(f func(int) int) { rec = f }))
	must(t, e.SetGlobal("down", func(n int) int {
		if n == 0 {
			panic(boom)
		}
		return rec(n - 1)
	}))
	must(t, e.DoString(`setrec(function(n) local r = down(n) return r end)`))
	var first string
	for _, depth := range []int{1, 10, 60} {
		before := e.Stats().Panics
		var err error
		func() {
			defer func() { err, _ = recover().(error) }()
			rec(depth)
		}()
		if err == nil {
			t.Fatalf("depth %d: rec did not panic", depth)
		}
		msg := err.Error()
		if first == "" {
			first = msg
		}
		if msg != first || strings.Count(msg, "panicked") != 1 {
			t.Errorf("depth %d: %q, want the depth-1 message %q", depth, msg, first)
		}
		var pe *zlua.PanicError
		if !errors.Is(err, boom) || !errors.As(err, &pe) || pe.Func != "down" {
			t.Errorf("depth %d: %v does not reach the panic of 'down' and its value", depth, err)
		}
		if got := e.Stats().Panics - before; got != uint64(depth+1) {
			t.Errorf("depth %d: %d panics counted, want %d (each Go function the panic crossed)", depth, got, depth+1)
		}
	}
	run(t, e, `assert(not pcall(error, "x"))`)
}
