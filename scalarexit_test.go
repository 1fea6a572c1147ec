package zlua_test

import (
	"errors"
	"testing"

	"github.com/zlua-go/zlua"
)

// scalarExitScript defines drop(...): it lets go of the Go function in the
// global f and collects it (its __gc queues the function's id for Go), then
// returns its arguments; dropb does the same and returns true.
const scalarExitScript = `
function drop(...)
	f = nil
	collectgarbage() collectgarbage()
	return ...
end
function dropb(...) drop() return true end`

// TestScalarCallsSettleWhatTheirScriptDropped: a typed func call of each
// scalar shape (the calls that end without a push program, endScalar)
// whose script drops a Go function leaves nothing unsettled: the function's
// id is released by the call's own return, not by a later call's.
func TestScalarCallsSettleWhatTheirScriptDropped(t *testing.T) {
	calls := []struct {
		name, lua string
		fn        any
		call      func(fn any)
	}{
		{"func()", "drop", new(func()), func(fn any) { (*fn.(*func()))() }},
		{"func(int)", "drop", new(func(int)), func(fn any) { (*fn.(*func(int)))(1) }},
		{"func(int, int)", "drop", new(func(int, int)), func(fn any) { (*fn.(*func(int, int)))(1, 2) }},
		{"func(int) int", "drop", new(func(int) int), func(fn any) { (*fn.(*func(int) int))(1) }},
		{"func(int, int) (int, error)", "drop", new(func(int, int) (int, error)), func(fn any) {
			if _, err := (*fn.(*func(int, int) (int, error)))(1, 2); err != nil {
				t.Error(err)
			}
		}},
		{"func(float64) float64", "drop", new(func(float64) float64), func(fn any) { (*fn.(*func(float64) float64))(0.5) }},
		{"func(int) bool", "dropb", new(func(int) bool), func(fn any) { (*fn.(*func(int) bool))(1) }},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			run(t, e, scalarExitScript)
			must(t, e.GetFunction(c.lua, c.fn))
			must(t, e.SetGlobal("f", func() {}))
			if u := zlua.Unsettled(e); u != "" {
				t.Fatalf("before the call: %s left", u)
			}
			live := e.Stats().LiveFuncs
			c.call(c.fn)
			if u := zlua.Unsettled(e); u != "" {
				t.Errorf("the call's return left %s", u)
			}
			if got := e.Stats().LiveFuncs; got != live-1 {
				t.Errorf("LiveFuncs = %d after the call, want %d", got, live-1)
			}
		})
	}
}

// TestScalarCallsForgetTheirArgumentHandles: a typed func call whose
// script passes a table to a Go function ends with that call's handle
// cache: nothing of it is left for a later return to settle, and its ref
// goes once the handles are released.
func TestScalarCallsForgetTheirArgumentHandles(t *testing.T) {
	e := newEnv(t)
	var kept []*zlua.Table
	must(t, e.SetGlobal("keep", func(tb *zlua.Table) { kept = append(kept, tb) }))
	run(t, e, `T = {} function pass(n) keep(T) keep(T) return n end`)
	var pass func(int) int
	must(t, e.GetFunction("pass", &pass))
	base := e.Stats().LiveRefs
	pass(1)
	if u := zlua.Unsettled(e); u != "" {
		t.Errorf("the call's return left %s", u)
	}
	for _, tb := range kept {
		tb.Release()
	}
	must(t, e.Pump())
	if n := e.Stats().LiveRefs - base; n != 0 {
		t.Errorf("%d refs left once the call's handles were released, want 0: the cache outlived its call", n)
	}
}

// TestScalarCallsInsideGoSettleAtTheOutermostReturn: a scalar call made by
// a Go function that Lua called is nested: the outermost return settles
// what its script dropped.
func TestScalarCallsInsideGoSettleAtTheOutermostReturn(t *testing.T) {
	e := newEnv(t)
	run(t, e, scalarExitScript)
	var drop func(int) int
	must(t, e.GetFunction("drop", &drop))
	must(t, e.SetGlobal("viaGo", func() int { return drop(1) }))
	must(t, e.SetGlobal("f", func() {}))
	var viaGo func() int
	must(t, e.GetFunction("viaGo", &viaGo))
	live := e.Stats().LiveFuncs
	if got := viaGo(); got != 1 {
		t.Fatalf("viaGo() = %d", got)
	}
	if u := zlua.Unsettled(e); u != "" {
		t.Errorf("the outermost return left %s", u)
	}
	if got := e.Stats().LiveFuncs; got != live-1 {
		t.Errorf("LiveFuncs = %d after the call, want %d", got, live-1)
	}
}

// TestScalarCallErrorsAreForgottenAtTheirReturn: a scalar call that
// raised leaves no remembered error behind.
func TestScalarCallErrorsAreForgottenAtTheirReturn(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("fail", func() error { return errors.New("boom") }))
	run(t, e, `function bad(n) fail() return n end`)
	var bad func(int) (int, error)
	must(t, e.GetFunction("bad", &bad))
	if _, err := bad(1); err == nil {
		t.Fatal("bad(1) did not fail")
	}
	if u := zlua.Unsettled(e); u != "" {
		t.Errorf("the failed call's return left %s", u)
	}
}

// TestScalarCallsRestoreTheStackAfterConvertedResults: a result the call
// could not pop as a scalar (a numeric string for an int) is converted
// from the stack, and the call's return restores the stack.
func TestScalarCallsRestoreTheStackAfterConvertedResults(t *testing.T) {
	e := newEnv(t)
	run(t, e, `function str(a, b) return tostring(a + b) end`)
	var str func(int, int) (int, error)
	must(t, e.GetFunction("str", &str))
	top := zlua.StackTop(e)
	for i := 0; i < 50; i++ {
		if v, err := str(i, 1); err != nil || v != i+1 {
			t.Fatalf("str(%d, 1) = %d, %v", i, v, err)
		}
	}
	if got := zlua.StackTop(e); got != top {
		t.Errorf("stack top %d after 50 calls, want %d", got, top)
	}
	if u := zlua.Unsettled(e); u != "" {
		t.Errorf("the calls' return left %s", u)
	}
}
