package zlua_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/zlua-go/zlua"
)

var errQuest = errors.New("quest failed")

// TestAWrappedTableErrorKeepsBothIdentities: a Go function that wraps a
// Lua error object it got (fmt.Errorf("%w: %w", errQuest, err)) re-raises
// the same table for Lua, and the wrapper stays the Go cause when that
// table reaches Go uncaught in the same call: errors.Is finds the
// wrapper's sentinel, errors.As the LuaError. Before, the wrapper was
// lost (only a string error kept it). A later call raising the same
// table has no Go cause.
func TestAWrappedTableErrorKeepsBothIdentities(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("step", func(f *zlua.Function) error {
		if _, err := f.Call(); err != nil {
			return fmt.Errorf("%w: %w", errQuest, err)
		}
		return nil
	}))
	run(t, e, `E = {code = 7}
		local ok, got = pcall(step, function() error(E) end)
		assert(not ok and rawequal(got, E), "Lua did not get the same table")`)
	err := e.DoString(`step(function() error(E) end)`)
	var le *zlua.LuaError
	if !errors.Is(err, errQuest) || !errors.As(err, &le) {
		t.Fatalf("uncaught wrapped table error = %v (Is errQuest %v)", err, errors.Is(err, errQuest))
	}
	var code int
	if le.Message != "(error object is a table value)" {
		t.Errorf("message %q", le.Message)
	}
	must(t, e.Global("E.code", &code))
	if code != 7 {
		t.Errorf("E.code = %d", code)
	}
	// The same table raised by a script in a later call is not the
	// wrapper's any more (the ring lives for one outermost call).
	if err := e.DoString(`error(E)`); err == nil || errors.Is(err, errQuest) {
		t.Errorf("a later error(E) = %v, matches the old wrapper", err)
	}
	// The same inside a posted function, whose calls run under the Pump's
	// hold (nested): each of them still starts with no remembered cause.
	var posted error
	must(t, e.Post(func(e *zlua.Env) {
		_ = e.DoString(`pcall(step, function() error(E) end)`)
		posted = e.DoString(`error(E)`)
	}))
	must(t, e.Pump())
	if posted == nil || errors.Is(posted, errQuest) {
		t.Errorf("a posted function's later error(E) = %v, matches the old wrapper", posted)
	}
	// A string error wrapped the same way keeps its wrapper too.
	err = e.DoString(`step(function() error("boom", 0) end)`)
	if !errors.Is(err, errQuest) {
		t.Errorf("wrapped string error = %v", err)
	}
}
