package zlua_test

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// TestTableArgumentsShareARefWithinACall: the same table passed again
// and again within one call of the script costs one ref, shared by handles
// of their own (each released on its own); the next call of the script
// makes a new ref.
func TestTableArgumentsShareARefWithinACall(t *testing.T) {
	e := newEnv(t)
	var got []*zlua.Table
	must(t, e.SetGlobal("keep", func(tb *zlua.Table) { got = append(got, tb) }))
	run(t, e, `T = {}`)
	base := e.Stats().LiveRefs
	run(t, e, `for i = 1, 5 do keep(T) end`)
	if n := e.Stats().LiveRefs - base; n != 1 {
		t.Errorf("%d refs for one table passed 5 times, want 1", n)
	}
	for i, tb := range got[1:] {
		if tb == got[0] {
			t.Fatalf("call %d got the handle of call 1: want a handle of its own", i+2)
		}
		if same, err := tb.Same(got[0]); err != nil || !same {
			t.Fatalf("call %d: Same = %v, %v; want true", i+2, same, err)
		}
	}
	for _, tb := range got[:4] {
		tb.Release()
	}
	must(t, e.Pump())
	if err := got[4].Set("n", 1); err != nil {
		t.Errorf("the fifth handle after the other four were released: %v", err)
	}
	if n := e.Stats().LiveRefs - base; n != 1 {
		t.Errorf("%d refs with one of five handles unreleased, want 1", n)
	}
	got[4].Release()
	must(t, e.Pump())
	if n := e.Stats().LiveRefs - base; n != 0 {
		t.Errorf("%d refs once every handle was released, want 0", n)
	}
	run(t, e, `keep(T)`)
	if same, err := got[5].Same(got[0]); err == nil || same {
		t.Errorf("Same of a new handle and a released one = %v, %v; want the released error", same, err)
	}
	if n := e.Stats().LiveRefs - base; n != 1 {
		t.Errorf("%d refs for the next call's handle, want 1", n)
	}
}

// TestReleasedArgumentHandlesAreNotReused: a handle its Go function
// released (defer Release, the usual idiom) is never given again: the
// next call with the same table gets a new, usable one.
func TestReleasedArgumentHandlesAreNotReused(t *testing.T) {
	e := newEnv(t)
	var fails int
	must(t, e.SetGlobal("use", func(tb *zlua.Table) int {
		defer tb.Release()
		var n int
		if err := tb.Get("n", &n); err != nil {
			fails++
		}
		return n
	}))
	must(t, e.SetGlobal("call", func(f *zlua.Function) int {
		defer f.Release()
		r, err := f.Call()
		if err != nil || len(r) != 1 {
			fails++
			return 0
		}
		return int(r[0].(int64))
	}))
	run(t, e, `local t, f = {n = 7}, function() return 3 end
		local s = 0
		for i = 1, 20 do s = s + use(t) + call(f) end
		assert(s == 200, s)`)
	if fails != 0 {
		t.Errorf("%d calls got a released handle", fails)
	}
}

// TestArgumentHandlesNameTheirOwnObjects: many tables passed in turn,
// more than the cache holds, each given to Go as itself; a table passed
// as a *Table and as a callable *Function gets a handle of each kind.
func TestArgumentHandlesNameTheirOwnObjects(t *testing.T) {
	e := newEnv(t)
	var wrong int
	must(t, e.SetGlobal("check", func(tb *zlua.Table, id int) {
		var got int
		if err := tb.Get("id", &got); err != nil || got != id {
			wrong++
		}
	}))
	must(t, e.SetGlobal("invoke", func(f *zlua.Function, id int) {
		r, err := f.Call()
		if err != nil || len(r) != 1 || r[0] != int64(id) {
			wrong++
		}
	}))
	run(t, e, `local ts = {}
		for i = 1, 13 do
			ts[i] = setmetatable({id = i}, {__call = function(self) return self.id end})
		end
		for r = 1, 50 do
			for i = 1, 13 do
				local k = (i * r) % 13 + 1
				check(ts[k], k)
				invoke(ts[k], k)
				check(ts[k], k)
			end
			collectgarbage()
		end`)
	if wrong != 0 {
		t.Errorf("%d calls got the handle of another object", wrong)
	}
}

// TestArgumentHandlesLeaveWithTheCall: handles only the cache kept are
// collected once the script's call ended, and their refs released.
func TestArgumentHandlesLeaveWithTheCall(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("f", func(*zlua.Table, *zlua.Function) {}))
	base := e.Stats().LiveRefs
	run(t, e, `local t, g = {}, function() end for i = 1, 100 do f(t, g) f({}, function() end) end`)
	deadline := 200
	for e.Stats().LiveRefs != base && deadline > 0 {
		runtime.GC()
		must(t, e.Pump())
		deadline--
	}
	if got := e.Stats().LiveRefs; got != base {
		t.Errorf("LiveRefs = %d after the call, GC and Pump, want %d", got, base)
	}
}

// TestArgumentHandlesOfAResetEnvAreStale: a handle from before a Reset
// stays stale; the same script after it gets a new, usable handle.
func TestArgumentHandlesOfAResetEnvAreStale(t *testing.T) {
	e := newEnv(t)
	var kept []*zlua.Table
	bind := func(e *zlua.Env) error {
		return e.SetGlobal("keep", func(tb *zlua.Table) { kept = append(kept, tb) })
	}
	must(t, bind(e))
	run(t, e, `T = {n = 1} keep(T) keep(T)`)
	e.Reset(bind)
	must(t, e.Pump())
	run(t, e, `T = {n = 2} keep(T)`)
	var n int
	if err := kept[1].Get("n", &n); !errors.Is(err, zlua.ErrStale) {
		t.Errorf("handle from before the Reset: Get = %v, want ErrStale", err)
	}
	if err := kept[2].Get("n", &n); err != nil || n != 2 {
		t.Errorf("handle after the Reset: %d, %v; want 2", n, err)
	}
}

// TestFuncArgumentsShareTheirFuncWithinACall: a Go func parameter given
// the same Lua function again gets the same func (one ref), and a table
// that lost its __call is refused as before even after it was passed as
// a function.
func TestFuncArgumentsShareTheirFuncWithinACall(t *testing.T) {
	e := newEnv(t)
	var sum int
	must(t, e.SetGlobal("apply", func(f func(int) int, x int) { sum += f(x) }))
	run(t, e, `T = {}`)
	base := e.Stats().LiveRefs
	run(t, e, `local double = function(x) return 2 * x end
		for i = 1, 10 do apply(double, i) end
		local c = setmetatable({}, {__call = function(_, x) return x end})
		apply(c, 5)
		setmetatable(c, nil)
		local ok, err = pcall(apply, c, 5)
		assert(not ok and err:find("function expected, got table"), err)`)
	if sum != 115 {
		t.Errorf("sum = %d, want 115", sum)
	}
	if n := e.Stats().LiveRefs - base; n > 2 {
		t.Errorf("%d refs held during the call for two functions, want at most 2", n)
	}
}

// TestHandleFirstParamsCallWithoutReflection: func(*zlua.Table, ...) and
// func(*zlua.Function, ...) of the fast shapes run without
// reflect.Value.Call: a loop passing the same table allocates only its
// handle per call (5 allocations before the handle cache and the shapes), and
// a wrong argument is refused as the reflective path refused it.
func TestHandleFirstParamsCallWithoutReflection(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("size", func(tb *zlua.Table, k int) int { return k }))
	must(t, e.SetGlobal("each", func(f *zlua.Function) error { return nil }))
	must(t, e.SetGlobal("pair", func(int, *zlua.Table) {})) // the reflective path
	must(t, e.SetGlobal("N", 1000))
	run(t, e, `T, F = {}, function() end`)
	allocs := testing.AllocsPerRun(5, func() {
		run(t, e, `local t, f, s = T, F, 0 for i = 1, N do s = s + size(t, 1) each(f) end assert(s == N)`)
	})
	if allocs > 2100 { // the handles' own and the chunk's, not 5 per call
		t.Errorf("%.0f allocations for 2000 calls", allocs)
	}
	for _, c := range []struct{ src, want string }{
		{`size(1, 2)`, "bad argument #1 to 'size' (table expected, got number)"},
		{`size(io.stdout, 2)`, "bad argument #1 to 'size' (table expected, got FILE*)"},
		{`size({}, "x")`, "bad argument #2 to 'size' (number expected, got string)"},
		{`each({})`, "bad argument #1 to 'each' (function expected, got table)"},
		{`each("f")`, "bad argument #1 to 'each' (function expected, got string)"},
		{`each(io.stdout)`, "bad argument #1 to 'each' (function expected, got FILE*)"},
		{`pair(1, io.stdout)`, "bad argument #2 to 'pair' (table expected, got FILE*)"},
	} {
		err := e.DoString(c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.src, err, c.want)
		}
	}
	var got *zlua.Table
	must(t, e.SetGlobal("keep", func(tb *zlua.Table) { got = tb }))
	run(t, e, `keep(nil)`)
	if got != nil {
		t.Errorf("nil gave %p, want a nil *Table", got)
	}
	run(t, e, `keep()`)
	if got != nil {
		t.Errorf("no argument gave %p, want a nil *Table", got)
	}
}
