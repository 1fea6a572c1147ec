package zlua_test

import (
	"runtime"
	"testing"

	"github.com/zlua-go/zlua"
)

// TestHandleArgumentsCrossOnce: a Go function's *Table or *Function
// parameter costs one cgo call for its ref (the copy and the ref
// together), not one to push the copy and one to ref it; a *Thread one
// more, for its lua_State. The same table or function passed again within
// one call of the script reuses its handle (argcache.go): no cgo call. A
// struct parameter given a flat table costs one (its pairs), with no
// stack reserve beside it.
func TestHandleArgumentsCrossOnce(t *testing.T) {
	e := newEnv(t)
	type pos struct{ X, Y float64 }
	must(t, e.SetGlobal("tab", func(*zlua.Table) {}))
	must(t, e.SetGlobal("fun", func(*zlua.Function) {}))
	must(t, e.SetGlobal("thr", func(*zlua.Thread) {}))
	must(t, e.SetGlobal("pos", func(pos) {}))
	for _, c := range []struct {
		name, arg, fresh string
		want             float64
	}{
		{"tab", "{}", "", 0}, {"tab", "nil", "{}", 1},
		{"fun", "print", "", 0}, {"fun", "nil", "function() end", 1},
		{"thr", "coroutine.create(print)", "", 2},
		{"pos", "{X = 1, Y = 2}", "", 1},
	} {
		arg := "a"
		if c.fresh != "" {
			arg = c.fresh
		}
		crossings := func(n int) int64 {
			must(t, e.SetGlobal("N", n))
			before := runtime.NumCgoCall()
			run(t, e, "local a = "+c.arg+" for i = 1, N do "+c.name+"("+arg+") end")
			return runtime.NumCgoCall() - before
		}
		crossings(10) // warm: the function's plan, the stack
		per := float64(crossings(1010)-crossings(10)) / 1000
		if per > c.want+0.05 { // a few calls of the scheduler check
			t.Errorf("%s(%s): %.2f cgo calls per call, want %v", c.name, arg, per, c.want)
		}
		must(t, e.Pump())
	}
}
