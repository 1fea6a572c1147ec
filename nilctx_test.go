package zlua_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/zlua-go/zlua"
)

// TestNilContextsCallAsThePlainCall: every *Context method takes a nil
// context as CallContext and ResumeContext do, as unlimited (they
// panicked with a nil dereference: outside probe F1-F1).
func TestNilContextsCallAsThePlainCall(t *testing.T) {
	e := newEnv(t)
	var nilCtx context.Context
	path := filepath.Join(t.TempDir(), "f.lua")
	must(t, os.WriteFile(path, []byte("fx = 2"), 0o600))
	run(t, e, `T = setmetatable({n = 1}, {__len = function() return 7 end})
		function T:get() return self.n end
		function f(x) return x + 1 end`)
	var tb *zlua.Table
	must(t, e.Global("T", &tb))
	var n, l int
	var fn func(int) (int, error)
	var get func() (int, error)
	for _, c := range []struct {
		name string
		call func() error
	}{
		{"DoStringContext", func() error { return e.DoStringContext(nilCtx, "x = 1") }},
		{"DoFileContext", func() error { return e.DoFileContext(nilCtx, path) }},
		{"SetGlobalContext", func() error { return e.SetGlobalContext(nilCtx, "y", 3) }},
		{"GlobalContext", func() error { return e.GlobalContext(nilCtx, "y", &n) }},
		{"GetFunctionContext", func() error { return e.GetFunctionContext(nilCtx, "f", &fn) }},
		{"Table.SetContext", func() error { return tb.SetContext(nilCtx, "n", 5) }},
		{"Table.GetContext", func() error { return tb.GetContext(nilCtx, "n", &n) }},
		{"Table.LenContext", func() (err error) { l, err = tb.LenContext(nilCtx); return err }},
		{"Table.MethodContext", func() error { return tb.MethodContext(nilCtx, "get", &get) }},
	} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s(nil): panic %v", c.name, r)
				}
			}()
			if err := c.call(); err != nil {
				t.Errorf("%s(nil): %v", c.name, err)
			}
		}()
	}
	if n != 5 || l != 7 || fn == nil || get == nil {
		t.Fatalf("n %d, len %d, fn %v, get %v", n, l, fn != nil, get != nil)
	}
	if r, err := fn(1); err != nil || r != 2 {
		t.Errorf("f(1) = %d, %v", r, err)
	}
	if r, err := get(); err != nil || r != 5 {
		t.Errorf("T:get() = %d, %v", r, err)
	}
	var x, fx int
	must(t, e.Global("x", &x))
	must(t, e.Global("fx", &fx))
	if x != 1 || fx != 2 {
		t.Errorf("x %d, fx %d", x, fx)
	}
}
