package zlua_test

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// gcChunk makes n objects whose __gc calls the global Go function f with
// the object's number, kept alive by globals until Close (newproxy on
// LuaJIT, whose tables have no __gc).
const gcChunk = `for i = 1, %d do
	local gc = function() f(i) end
	if newproxy then local p = newproxy(true) getmetatable(p).__gc = gc _G["k" .. i] = p
	else _G["k" .. i] = setmetatable({}, {__gc = gc}) end
end`

func gcObjects(n int) string { return fmt.Sprintf(gcChunk, n) }

// TestGoexitDuringCloseFinishesTheClose: a __gc Go function calling
// runtime.Goexit while Close runs lua_close ends only the goroutine it
// runs on (Close runs lua_close on one of its own); Close carries on with
// the other finalizers, frees the state and returns ErrAbandoned naming
// the function. Later calls get ErrClosed, never a claimed Env to wait
// on, and TestMain's leak check counts the Env, its slots and refs.
// Before, the goroutine calling Close died inside it: Close never
// returned and the Env stayed half closed.
func TestGoexitDuringCloseFinishesTheClose(t *testing.T) {
	for _, tc := range []struct {
		name  string
		exits map[int]bool // which finalizers (by object number) call Goexit
	}{
		{"one finalizer", map[int]bool{2: true}},
		{"two finalizers", map[int]bool{1: true, 3: true}},
		{"every finalizer", map[int]bool{1: true, 2: true, 3: true, 4: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := zlua.New(zlua.Options{})
			must(t, err)
			must(t, e.SetGlobal("obj", &goexitCounter{})) // a slot Close must free
			ran := map[int]bool{}
			nested := 0
			must(t, e.SetGlobal("f", func(i int) error {
				ran[i] = true
				if tc.exits[i] {
					runtime.Goexit()
				}
				// the Env still serves a finalizer's calls after a Goexit
				var n int
				if err := e.Eval("return 40 + 2", &n); err != nil || n != 42 {
					return errors.New("nested call failed")
				}
				nested++
				return nil
			}))
			must(t, e.DoString(gcObjects(4)))
			var closeErr error
			if !inDyingGoroutine(func() { closeErr = e.Close() }) {
				t.Fatal("Close did not return: the Goexit ended its goroutine")
			}
			if !errors.Is(closeErr, zlua.ErrAbandoned) || !strings.Contains(closeErr.Error(), `go function "f"`) {
				t.Errorf("Close = %v, want ErrAbandoned naming go function \"f\"", closeErr)
			}
			if len(ran) != 4 {
				t.Errorf("finalizers run: %v, want all 4", ran)
			}
			if want := 4 - len(tc.exits); nested != want {
				t.Errorf("nested calls from finalizers: %d, want %d", nested, want)
			}
			checkClosedClean(t, e)
		})
	}
}

// TestGoexitFromTheWarnSinkDuringClose (Lua 5.4): a finalizer's error is a
// warning, and a Warn sink calling runtime.Goexit while Close runs is
// treated as a finalizer's Goexit: Close returns naming the sink.
func TestGoexitFromTheWarnSinkDuringClose(t *testing.T) {
	if !strings.HasPrefix(zlua.Backend, "Lua 5.4") {
		t.Skip("LuaJIT has no warnings")
	}
	warned := 0
	e, err := zlua.New(zlua.Options{Warn: func(string) { warned++; runtime.Goexit() }})
	must(t, err)
	ran := 0
	must(t, e.SetGlobal("f", func(i int) error { ran++; return errors.New("bad finalizer") }))
	must(t, e.DoString(`warn("@on")`))
	must(t, e.DoString(gcObjects(3)))
	var closeErr error
	if !inDyingGoroutine(func() { closeErr = e.Close() }) {
		t.Fatal("Close did not return")
	}
	if !errors.Is(closeErr, zlua.ErrAbandoned) || !strings.Contains(closeErr.Error(), "the warning function") {
		t.Errorf("Close = %v, want ErrAbandoned naming the warning function", closeErr)
	}
	if ran != 3 || warned != 3 {
		t.Errorf("finalizers run %d, warnings %d; want 3, 3", ran, warned)
	}
}

// TestGoexitDuringCloseOfAnAbandonedEnv: an Env abandoned by a Goexit in a
// Lua call, closed from another goroutine, whose finalizer calls Goexit
// again: Close still frees it and reports the finalizer.
func TestGoexitDuringCloseOfAnAbandonedEnv(t *testing.T) {
	e, err := zlua.New(zlua.Options{})
	must(t, err)
	ran := 0
	must(t, e.SetGlobal("f", func(i int) { ran++; runtime.Goexit() }))
	must(t, e.SetGlobal("g", func() { runtime.Goexit() }))
	must(t, e.DoString(gcObjects(2)))
	inDyingGoroutine(func() { _ = e.DoString("g()") })
	if err := e.DoString("return 1"); !errors.Is(err, zlua.ErrAbandoned) {
		t.Fatalf("after the Lua call's Goexit: %v, want ErrAbandoned", err)
	}
	var closeErr error
	if !inDyingGoroutine(func() { closeErr = e.Close() }) {
		t.Fatal("Close did not return")
	}
	if !errors.Is(closeErr, zlua.ErrAbandoned) || !strings.Contains(closeErr.Error(), "while the state was closing") {
		t.Errorf("Close = %v, want the finalizers' Goexit reported", closeErr)
	}
	if ran != 2 {
		t.Errorf("finalizers run: %d, want 2", ran)
	}
	if err := e.DoString("return 1"); !errors.Is(err, zlua.ErrClosed) {
		t.Errorf("call after Close: %v, want ErrClosed", err)
	}
}

// TestCloseDeferredInAGoroutineThatCalledGoexit: the common shape of a
// test whose Go callback calls t.FailNow: the Lua call's Goexit unwinds
// the goroutine, whose deferred Close then frees the abandoned Env. The
// finalizers run on Close's own goroutine, so their Go functions are
// served as usual: a panic in one is recovered (a warning on 5.4, an
// error LuaJIT's lua_close catches), the next runs.
func TestCloseDeferredInAGoroutineThatCalledGoexit(t *testing.T) {
	e, err := zlua.New(zlua.Options{Warn: func(string) {}})
	must(t, err)
	ran := map[int]bool{}
	must(t, e.SetGlobal("f", func(i int) {
		ran[i] = true
		if i == 1 {
			panic("finalizer panics")
		}
	}))
	must(t, e.SetGlobal("g", func() { runtime.Goexit() }))
	must(t, e.DoString(gcObjects(3)))
	var closeErr error
	closed := false
	inDyingGoroutine(func() {
		defer func() { closeErr = e.Close(); closed = true }()
		_ = e.DoString("g()")
	})
	if !closed || closeErr != nil {
		t.Errorf("deferred Close: ran %v, returned %v; want nil", closed, closeErr)
	}
	if len(ran) != 3 {
		t.Errorf("finalizers run: %v, want all 3", ran)
	}
	if err := e.DoString("return 1"); !errors.Is(err, zlua.ErrClosed) {
		t.Errorf("call after Close: %v, want ErrClosed", err)
	}
}

// TestGoexitDuringResetFinishesTheOldState: a finalizer of the old state
// calling runtime.Goexit while Pump applies a Reset: the old state is
// freed, the new one built and the loader run; Pump returns ErrAbandoned
// naming the function and the Env works.
func TestGoexitDuringResetFinishesTheOldState(t *testing.T) {
	e := newEnv(t)
	ran := 0
	must(t, e.SetGlobal("f", func(i int) { ran++; runtime.Goexit() }))
	must(t, e.DoString(gcObjects(2)))
	loaded := false
	e.Reset(func(e *zlua.Env) error { loaded = true; return e.SetGlobal("x", 7) })
	var pumpErr error
	if !inDyingGoroutine(func() { pumpErr = e.Pump() }) {
		t.Fatal("Pump did not return")
	}
	if !errors.Is(pumpErr, zlua.ErrAbandoned) || !strings.Contains(pumpErr.Error(), `go function "f"`) {
		t.Errorf("Pump = %v, want ErrAbandoned naming go function \"f\"", pumpErr)
	}
	if ran != 2 || !loaded {
		t.Errorf("old finalizers run %d (want 2), loader ran %v", ran, loaded)
	}
	if x := global[int](t, e, "x"); x != 7 {
		t.Errorf("x = %d after the Reset", x)
	}
}
