package zlua_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// nestedOps are API calls that reach Lua code (a metamethod or a chunk)
// which calls the Go function down, which makes the same API call again.
var nestedOps = map[string]struct {
	prefix string
	op     func(e *zlua.Env, tb *zlua.Table) error
}{
	"Table.Get": {`zlua: table get "x": `, func(e *zlua.Env, tb *zlua.Table) error { var v any; return tb.Get("x", &v) }},
	"Table.Set": {`zlua: table set "y": `, func(e *zlua.Env, tb *zlua.Table) error { return tb.Set("y", 1) }},
	"Table.Len": {`zlua: table len: `, func(e *zlua.Env, tb *zlua.Table) error { _, err := tb.Len(); return err }},
	"Table.Method": {`zlua: table method "m": `, func(e *zlua.Env, tb *zlua.Table) error {
		var f *zlua.Function
		err := tb.Method("m", &f)
		f.Release()
		return err
	}},
	"Global":    {`zlua: global "T.x": `, func(e *zlua.Env, tb *zlua.Table) error { var v any; return e.Global("T.x", &v) }},
	"SetGlobal": {`zlua: set global "T.y": `, func(e *zlua.Env, tb *zlua.Table) error { return e.SetGlobal("T.y", 1) }},
	"Eval":      {`zlua: eval: `, func(e *zlua.Env, tb *zlua.Table) error { var v any; return e.Eval("return T.x", &v) }},
}

// nestedEnv makes T, whose __index, __newindex and __len call the Go
// function down; down makes op again until depth reaches bottom, where it
// fails with fail. A pcall at depth 10 keeps the message Lua sees in
// seen.
func nestedEnv(t *testing.T, op func(*zlua.Env, *zlua.Table) error, bottom int, fail func() error) (*zlua.Env, *zlua.Table) {
	e := newEnv(t)
	tb, err := e.NewTable()
	must(t, err)
	t.Cleanup(tb.Release)
	must(t, e.SetGlobal("T", tb))
	depth := 0
	must(t, e.SetGlobal("down", func() error {
		depth++
		if depth == bottom {
			return fail()
		}
		return op(e, tb)
	}))
	must(t, e.SetGlobal("depth", func() int { return depth }))
	must(t, e.DoString(`
		local function mm()
			if depth() == 9 then
				local ok, err = pcall(down)
				seen = err
				error(err, 0)
			end
			down()
		end
		setmetatable(T, {__index = mm, __newindex = mm, __len = mm})`))
	return e, tb
}

// TestNestedAPIErrorsNameTheFailureOnce: an API call nested through Lua
// and Go N times fails with one prefix and the innermost cause, at any
// depth up to the gate's bound, on every API call that wraps Lua errors;
// errors.Is and errors.As still reach the Go error, the *PanicError and
// the *LuaError. Before, each level added `zlua: table get "x":
// (dostring):1: ` (about 3 KiB at the bound).
func TestNestedAPIErrorsNameTheFailureOnce(t *testing.T) {
	boom := errors.New("boom")
	for name, nop := range nestedOps {
		t.Run(name, func(t *testing.T) {
			quoted := regexp.QuoteMeta(nop.prefix)
			t.Run("Go error at depth 40", func(t *testing.T) {
				e, tb := nestedEnv(t, nop.op, 40, func() error { return boom })
				err := nop.op(e, tb)
				if !regexp.MustCompile(`^` + quoted + `\(dostring\):\d+: boom$`).MatchString(err.Error()) {
					t.Errorf("error = %q (%d bytes), want %q + position + boom", err, len(err.Error()), nop.prefix)
				}
				var le *zlua.LuaError
				if !errors.Is(err, boom) || !errors.As(err, &le) {
					t.Errorf("errors.Is(boom) %v, errors.As(*LuaError) %v: the chain is broken",
						errors.Is(err, boom), errors.As(err, &le))
				}
				// Lua catching it at depth 9 sees one prefix as well
				seen := global[string](t, e, "seen")
				if strings.Count(seen, "zlua:") != 1 || !strings.HasSuffix(seen, ": boom") {
					t.Errorf("message seen by Lua at depth 9 = %q, want one prefix", seen)
				}
			})
			t.Run("panic at depth 40", func(t *testing.T) {
				e, tb := nestedEnv(t, nop.op, 40, func() error { panic("kaboom") })
				err := nop.op(e, tb)
				want := `^` + quoted + `\(dostring\):\d+: go function 'down' panicked: kaboom$`
				if !regexp.MustCompile(want).MatchString(err.Error()) {
					t.Errorf("error = %q, want %s", err, want)
				}
				var pe *zlua.PanicError
				if !errors.As(err, &pe) || pe.Value != "kaboom" {
					t.Errorf("errors.As(*PanicError) = %v: the chain is broken", pe)
				}
			})
			// unbounded: the gate's bound (80 nested Go calls) or, first,
			// Lua 5.4's C stack limit ("C stack overflow", for Eval)
			t.Run("the nesting bound", func(t *testing.T) {
				e, tb := nestedEnv(t, nop.op, 1<<30, nil)
				err := nop.op(e, tb)
				msg := err.Error()
				if !strings.HasPrefix(msg, nop.prefix) || strings.Count(msg, "zlua:") != 1 ||
					!strings.Contains(msg, "stack overflow") || len(msg) > 200 {
					t.Errorf("error at the bound = %q (%d bytes), want %q + the overflow, once", msg, len(msg), nop.prefix)
				}
				var le *zlua.LuaError
				if !errors.As(err, &le) {
					t.Errorf("errors.As(*LuaError) failed on %v", err)
				}
			})
		})
	}
}

// TestWrappedNestedErrorsKeepTheirContext: a Go function that adds its
// own context to a nested API error keeps it in the text: only zlua's own
// prefixes collapse.
func TestWrappedNestedErrorsKeepTheirContext(t *testing.T) {
	e := newEnv(t)
	tb, err := e.NewTable()
	must(t, err)
	defer tb.Release()
	must(t, e.SetGlobal("T", tb))
	must(t, e.SetGlobal("inner", func() error { return errors.New("boom") }))
	must(t, e.SetGlobal("outer", func() error {
		var v any
		if err := tb.Get("y", &v); err != nil {
			return errors.Join(errors.New("loading the shop"), err)
		}
		return nil
	}))
	must(t, e.DoString(`setmetatable(T, {__index = function(t, k)
		if k == "y" then inner() end
		outer()
	end})`))
	var v any
	err = tb.Get("x", &v)
	msg := err.Error()
	if !strings.HasPrefix(msg, `zlua: table get "x": `) || !strings.Contains(msg, "loading the shop") ||
		!strings.Contains(msg, `zlua: table get "y": `) || !strings.HasSuffix(msg, ": boom") {
		t.Errorf("error = %q, want the outer prefix, the Go function's context, the inner prefix and boom", msg)
	}
}
