package zlua_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

// TestTableContextVariantsStopLoopingMetamethods (outside probe E1-F6): a
// host holding a handle on a mod's table ran its metamethods with no
// bound (a __index that loops hung Get for good). GetContext,
// SetContext, LenContext and MethodContext are limited calls.
func TestTableContextVariantsStopLoopingMetamethods(t *testing.T) {
	e, err := zlua.New(zlua.Options{Libs: zlua.LibsSafe})
	must(t, err)
	defer e.Close()
	run(t, e, `cfg = setmetatable({}, {
		__index = function() while true do end end,
		__len = function() while true do end end,
		__newindex = function() while true do end end})
		ok = setmetatable({n = 3}, {__index = function(_, k) return k .. "!" end,
		__len = function() return 7 end})
		function ok:hello(x) return "hi " .. x end`)
	var cfg, good *zlua.Table
	must(t, e.Global("cfg", &cfg))
	must(t, e.Global("ok", &good))
	defer cfg.Release()
	defer good.Release()
	ops := map[string]func(ctx context.Context, tb *zlua.Table) error{
		"get": func(ctx context.Context, tb *zlua.Table) error {
			var s string
			return tb.GetContext(ctx, "missing", &s)
		},
		"set": func(ctx context.Context, tb *zlua.Table) error { return tb.SetContext(ctx, "new", 1) },
		"len": func(ctx context.Context, tb *zlua.Table) error { _, err := tb.LenContext(ctx); return err },
		"method": func(ctx context.Context, tb *zlua.Table) error {
			var f func(string) (string, error)
			return tb.MethodContext(ctx, "nomethod", &f)
		},
	}
	for name, op := range ops {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		done := make(chan error, 1)
		go func() { done <- op(ctx, cfg) }()
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: still running 10 s after its deadline", name)
		}
		cancel()
		var le *zlua.LuaError
		if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &le) ||
			!strings.Contains(err.Error(), "interrupted: context deadline exceeded") {
			t.Errorf("%s on a looping metamethod: %v", name, err)
		}
		// a context already done fails at once, running nothing
		dead, stop := context.WithCancel(context.Background())
		stop()
		if err := op(dead, cfg); !errors.Is(err, context.Canceled) {
			t.Errorf("%s under a canceled context: %v", name, err)
		}
	}
	// the same operations on a well-behaved table, limited or not
	for _, ctx := range []context.Context{context.Background(), func() context.Context {
		c, cancel := context.WithTimeout(context.Background(), time.Hour)
		t.Cleanup(cancel)
		return c
	}()} {
		var s string
		must(t, good.GetContext(ctx, "x", &s))
		var n int
		must(t, good.GetContext(ctx, "n", &n))
		if s != "x!" || n != 3 {
			t.Errorf("GetContext: %q %d", s, n)
		}
		must(t, good.SetContext(ctx, "m", 4))
		must(t, good.GetContext(ctx, "m", &n))
		if l, err := good.LenContext(ctx); err != nil || l != 7 || n != 4 {
			t.Errorf("LenContext: %d, %v (m = %d)", l, err, n)
		}
		var hello func(string) (string, error)
		must(t, good.MethodContext(ctx, "hello", &hello))
		if r, err := hello("bob"); err != nil || r != "hi bob" {
			t.Errorf("MethodContext's binding: %q, %v", r, err)
		}
	}
	var nilTable *zlua.Table
	if err := nilTable.GetContext(context.Background(), "k", new(int)); err == nil {
		t.Error("GetContext on a nil *Table succeeded")
	}
	if _, err := nilTable.LenContext(context.Background()); err == nil {
		t.Error("LenContext on a nil *Table succeeded")
	}
	run(t, e, `assert(ok.m == 4)`)
}
