package zlua_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// TestNestedCallsReleaseTheirOwnHandles: a Go function whose callback
// reaches another Go function with the same table keeps a usable handle
// after the inner one released its own (defer Release in both; outside
// probe G1-F2).
func TestNestedCallsReleaseTheirOwnHandles(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("inner", func(tb *zlua.Table) (int, error) {
		defer tb.Release()
		var n int
		err := tb.Get("n", &n)
		return n, err
	}))
	must(t, e.SetGlobal("outer", func(tb *zlua.Table, cb func() int) (int, error) {
		defer tb.Release()
		var before, after int
		if err := tb.Get("n", &before); err != nil {
			return 0, err
		}
		r := cb()
		if err := tb.Get("n", &after); err != nil {
			return 0, fmt.Errorf("after the callback: %w", err)
		}
		return before + r + after, nil
	}))
	run(t, e, `local t = {n = 2}
		local s = outer(t, function() return inner(t) end)
		assert(s == 6, s)`)
}

// TestGoSideReadsGetHandlesOfTheirOwn: two reads of one table from Go
// inside a Go function (Global, Table.Get) give handles released
// independently (outside probe G1-F5).
func TestGoSideReadsGetHandlesOfTheirOwn(t *testing.T) {
	e := newEnv(t)
	var errs []error
	must(t, e.SetGlobal("probe", func(arg *zlua.Table) {
		defer arg.Release()
		var a, b, c *zlua.Table
		errs = append(errs, e.Global("T", &a), e.Global("T", &b), arg.Get("self", &c))
		a.Release()
		c.Release()
		var n int
		errs = append(errs, b.Get("n", &n), arg.Get("n", &n))
		b.Release()
	}))
	run(t, e, `T = {n = 1} T.self = T probe(T) probe(T)`)
	for i, err := range errs {
		if err != nil {
			t.Errorf("step %d: %v", i, err)
		}
	}
}

// TestKeptArgumentHandlesOutliveOtherReleases: a Go function keeping the
// table it was given, and a later one releasing its own handle on the
// same table, in one script call, in a posted function and in a Reset
// loader: the kept handle stays usable (outside probe G1-F3).
func TestKeptArgumentHandlesOutliveOtherReleases(t *testing.T) {
	e := newEnv(t)
	var kept []*zlua.Table
	bind := func(e *zlua.Env) error {
		if err := e.SetGlobal("register", func(tb *zlua.Table) { kept = append(kept, tb) }); err != nil {
			return err
		}
		return e.SetGlobal("inspect", func(tb *zlua.Table) { defer tb.Release() })
	}
	must(t, bind(e))
	check := func(when string) {
		t.Helper()
		var n int
		if err := kept[len(kept)-1].Get("n", &n); err != nil || n != 1 {
			t.Errorf("%s: kept handle: %d, %v", when, n, err)
		}
	}
	run(t, e, `local cfg = {n = 1} register(cfg) inspect(cfg) inspect(cfg)`)
	check("one script call")
	e.Post(func(e *zlua.Env) {
		must(t, e.DoString(`CFG = {n = 1} register(CFG)`))
		must(t, e.DoString(`inspect(CFG)`))
	})
	must(t, e.Pump())
	check("a posted function")
	e.Reset(func(e *zlua.Env) error {
		if err := bind(e); err != nil {
			return err
		}
		if err := e.DoString(`CFG = {n = 1} register(CFG)`); err != nil {
			return err
		}
		return e.DoString(`inspect(CFG)`)
	})
	must(t, e.Pump())
	check("a Reset loader")
}

// Callee is an object type with a __call metamethod (a callable userdata).
type Callee struct{ N int }

// TestFuncParamsTakeCallableUserdata: a Go func parameter takes a userdata
// Lua can call, as a *zlua.Function parameter does, and refuses any other
// userdata as a function expected (outside probe G1-F1).
func TestFuncParamsTakeCallableUserdata(t *testing.T) {
	e := newEnv(t)
	must(t, zlua.Metamethods[*Callee](e, map[string]any{"__call": func(c *Callee, a int) int { return c.N + a }}))
	must(t, e.SetGlobal("cal", &Callee{N: 100}))
	must(t, e.SetGlobal("mob", &Mob{I: 1}))
	must(t, e.SetGlobal("apply", func(f func(int) int) int { return f(1) }))
	var n int
	must(t, e.Eval(`return apply(cal)`, &n))
	if n != 101 {
		t.Errorf("apply(cal) = %d, want 101", n)
	}
	for _, c := range []struct{ src, want string }{
		{`apply(mob)`, "bad argument #1 to 'apply' (function expected, got Mob)"},
		{`apply(io.stdout)`, "bad argument #1 to 'apply' (function expected, got FILE*)"},
	} {
		err := e.DoString(c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.src, err, c.want)
		}
	}
}

// TestArgumentRefsEndWithAPostedFunctionsCall: inside a posted function
// (a Hold), each script call's argument cache ends with that call, as at
// top level: releasing the only handle on a table queues its ref at once
// (outside probe G1-F3).
func TestArgumentRefsEndWithAPostedFunctionsCall(t *testing.T) {
	e := newEnv(t)
	var kept []*zlua.Table
	must(t, e.SetGlobal("keep", func(tb *zlua.Table) { kept = append(kept, tb) }))
	run(t, e, `T = {}`)
	ran := false
	must(t, e.Post(func(e *zlua.Env) {
		ran = true
		must(t, e.DoString(`keep(T)`))
		pending := e.Stats().PendingRefs
		kept[0].Release()
		if got := e.Stats().PendingRefs; got != pending+1 {
			t.Errorf("PendingRefs %d after releasing the only handle, want %d: the cache outlived its call", got, pending+1)
		}
	}))
	must(t, e.Pump())
	if !ran {
		t.Fatal("the posted function did not run")
	}
}
