package zlua_test

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// questError is what the scripts of TestLuaErrorValue raise.
type questError struct {
	Code int
	Item string
}

// TestLuaErrorValue: the value a script raised reaches Go through
// LuaError.Value, converted as a Go function argument is; before, Go saw
// only "(error object is a table value)".
func TestLuaErrorValue(t *testing.T) {
	e := newEnv(t)
	err := e.DoString(`error({code = 5, item = "sword"})`)
	var le *zlua.LuaError
	if !errors.As(err, &le) {
		t.Fatalf("DoString: %v", err)
	}
	var q questError
	must(t, le.Value(&q))
	if q != (questError{5, "sword"}) {
		t.Errorf("into a struct: %+v", q)
	}
	var v any
	must(t, le.Value(&v))
	if want := map[string]any{"code": int64(5), "item": "sword"}; !reflect.DeepEqual(v, want) {
		t.Errorf("into any: %#v", v)
	}
	var tb *zlua.Table
	must(t, le.Value(&tb))
	var item string
	must(t, tb.Get("item", &item))
	tb.Release()
	if item != "sword" {
		t.Errorf("through a *Table: %q", item)
	}

	// a string error is its message
	err = e.DoString(`error("boom")`)
	if !errors.As(err, &le) {
		t.Fatalf("DoString: %v", err)
	}
	var s string
	must(t, le.Value(&s))
	var sv any
	must(t, le.Value(&sv))
	if s != le.Message || sv != le.Message || !strings.HasSuffix(s, "boom") {
		t.Errorf("string error: %q %v, message %q", s, sv, le.Message)
	}
	var n int
	if err := le.Value(&n); err == nil || !strings.Contains(err.Error(), "the error is a string, int cannot hold it") {
		t.Errorf("string error into an int: %v", err)
	}
	if err := le.Value(q); err == nil || !strings.Contains(err.Error(), "out must be a non-nil pointer") {
		t.Errorf("non-pointer out: %v", err)
	}

	// a value that does not convert: the conversion's own error
	err = e.DoString(`error({code = "x"})`)
	if !errors.As(err, &le) {
		t.Fatalf("DoString: %v", err)
	}
	if err := le.Value(&q); err == nil || !strings.Contains(err.Error(), "number expected, got string") {
		t.Errorf("bad field: %v", err)
	}

	// from a Go function Lua called (a nested Env call), of an error
	// raised by a Lua function it called
	run(t, e, `function quest() error({code = 7, item = "shield"}) end`)
	var quest *zlua.Function
	must(t, e.GetFunction("quest", &quest))
	defer quest.Release()
	must(t, e.SetGlobal("try", func() (int, error) {
		_, err := quest.Call()
		var le *zlua.LuaError
		if !errors.As(err, &le) {
			return 0, err
		}
		var q questError
		if err := le.Value(&q); err != nil {
			return 0, err
		}
		return q.Code, nil
	}))
	run(t, e, `assert(try() == 7)`)

	// a Reset makes the value stale
	err = e.DoString(`error({code = 1})`)
	if !errors.As(err, &le) {
		t.Fatalf("DoString: %v", err)
	}
	e.Reset(nil)
	must(t, e.Pump())
	if err := le.Value(&q); !errors.Is(err, zlua.ErrStale) {
		t.Errorf("after Reset: %v", err)
	}
}

// savedError returns a copy of the LuaError a script raised, as a user
// keeping the error in a struct of its own would.
func savedError(t *testing.T, e *zlua.Env) zlua.LuaError {
	var le *zlua.LuaError
	if !errors.As(e.DoString(`error({code = 1, item = "original"})`), &le) {
		t.Fatal("no LuaError")
	}
	return *le
}

// TestACopiedLuaErrorKeepsItsValue: the error value's ref lives while any
// copy of the LuaError does. It was freed with the original, whose
// cleanup owned it, and the copy then read (or re-raised) whatever table
// took the ref next (probe K2).
func TestACopiedLuaErrorKeepsItsValue(t *testing.T) {
	e := newEnv(t)
	cp := savedError(t, e)
	for i := 0; i < 5; i++ {
		runtime.GC()
		must(t, e.Pump())
	}
	var held []*zlua.Table
	for i := 0; i < 20; i++ {
		var tb *zlua.Table
		must(t, e.Eval(fmt.Sprintf(`{code = %d, item = "other"}`, 100+i), &tb))
		held = append(held, tb)
	}
	defer func() {
		for _, tb := range held {
			tb.Release()
		}
	}()
	var q questError
	must(t, cp.Value(&q))
	if q != (questError{1, "original"}) {
		t.Errorf("the copy read %+v", q)
	}
	must(t, e.SetGlobal("reraise", func() error { return &cp }))
	run(t, e, `local ok, err = pcall(reraise) assert(not ok and err.item == "original", tostring(err.item))`)
}
