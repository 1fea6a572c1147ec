package zlua_test

import (
	"runtime"
	"testing"
)

type pendShip struct{ Name string }

// Objects a long call hands through Go functions and back are given back
// once Lua collects them, during the call (probe A3-F1: every slot a push
// found stayed Go's, with its object, until the outermost return: 2·10⁶
// ships, 174 MB of Go heap under a 16 MiB limit).
func TestObjectsPassedBackAreReleasedDuringALongCall(t *testing.T) {
	for _, via := range []string{"echo", "field"} {
		e := newEnv(t)
		must(t, e.SetGlobal("newShip", func() *pendShip { return &pendShip{Name: "s"} }))
		must(t, e.SetGlobal("echo", func(v any) any { return v }))
		holder := &struct{ Friend *pendShip }{}
		must(t, e.SetGlobal("holder", holder))
		const n = 200000
		chunk := `for i = 1, 200000 do echo(newShip()) end`
		if via == "field" {
			chunk = `for i = 1, 200000 do holder.Friend = newShip(); local f = holder.Friend end`
		}
		run(t, e, chunk)
		if peak := e.Stats().PeakObjects; peak > n/10 {
			t.Errorf("%s: %d objects alive at once during the call, want far fewer than %d", via, peak, n)
		}
		runtime.KeepAlive(holder)
	}
}
