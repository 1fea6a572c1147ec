package zlua_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// TestZeroEnvRefusesEveryCall: an Env not made by New (its zero value)
// answers every method with an error wrapping ErrClosed, or does nothing,
// instead of a nil dereference; Post refuses the function, which could
// never run.
func TestZeroEnvRefusesEveryCall(t *testing.T) {
	var e zlua.Env
	var fn *zlua.Function
	var x int
	calls := map[string]func() error{
		"DoString":        func() error { return e.DoString("x = 1") },
		"DoStringArgs":    func() error { return e.DoStringArgs("x = ...", 1) },
		"DoStringContext": func() error { return e.DoStringContext(context.Background(), "x = 1") },
		"DoFile":          func() error { return e.DoFile("testdata/none.lua") },
		"Eval":            func() error { return e.Eval("1", &x) },
		"LoadString":      func() error { _, err := e.LoadString("c", "return 1"); return err },
		"SetGlobal":       func() error { return e.SetGlobal("x", 1) },
		"Global":          func() error { return e.Global("x", &x) },
		"Global path":     func() error { return e.Global("a.b", &x) },
		"GetFunction":     func() error { return e.GetFunction("f", &fn) },
		"NewTable":        func() error { _, err := e.NewTable(); return err },
		"Globals":         func() error { _, err := e.Globals(); return err },
		"NewThread":       func() error { _, err := e.NewThread(nil); return err },
		"Register":        func() error { return e.Register("a", 1) },
		"Preload":         func() error { return e.Preload("m", 1) },
		"Post":            func() error { return e.Post(func(*zlua.Env) {}) },
		"Pump":            func() error { return e.Pump() },
		"Close":           func() error { return e.Close() },
		"Metamethods":     func() error { return zlua.Metamethods[struct{ A int }](&e, map[string]any{}) },
	}
	for name, call := range calls {
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s on a zero Env panicked: %v", name, r)
				}
			}()
			err = call()
		}()
		if !errors.Is(err, zlua.ErrClosed) {
			t.Errorf("%s on a zero Env = %v, want an error wrapping ErrClosed", name, err)
		} else if !strings.Contains(err.Error(), "Env not made by New") || strings.Count(err.Error(), "zlua: ") != 1 {
			t.Errorf("%s on a zero Env = %q, want one prefix and the cause named", name, err)
		}
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("Stats or Reset on a zero Env panicked: %v", r)
			}
		}()
		if s := e.Stats(); s != (zlua.Stats{}) {
			t.Errorf("Stats of a zero Env = %+v", s)
		}
		e.Reset(nil)
	}()
}
