package zlua_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

// After an untrusted script set metamethods that never return on _G and
// package.preload, the host's own calls stay bounded (probe A3-F4):
// Preload writes raw, and GlobalContext, SetGlobalContext and
// GetFunctionContext stop the metamethods at their context's deadline.
func TestHostCallsAfterAHostileScriptAreBounded(t *testing.T) {
	e := newEnvWith(t, zlua.Options{Libs: zlua.LibsSafe})
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	must(t, e.DoStringContext(ctx, `
		version = 3
		local function forever() while true do end end
		setmetatable(package.preload, {__newindex = forever, __index = forever})
		setmetatable(package, {__index = forever, __newindex = forever})
		setmetatable(_G, {__index = forever, __newindex = forever})`))
	within := func(what string, f func() error) error {
		t.Helper()
		done := make(chan error, 1)
		go func() { done <- f() }()
		select {
		case err := <-done:
			return err
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: still running after 20 s", what)
			return nil
		}
	}
	if err := within("Preload", func() error {
		return e.Preload("shop", map[string]any{"price": func() int { return 5 }})
	}); err != nil {
		t.Errorf("Preload: %v", err)
	}
	run(t, e, `assert(require("shop").price() == 5)`)

	bounded := func(what string, f func(ctx context.Context) error) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		err := within(what, func() error { return f(ctx) })
		var le *zlua.LuaError
		if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &le) {
			t.Errorf("%s: %v, want the deadline's interruption", what, err)
		}
	}
	var v any
	bounded("GlobalContext", func(ctx context.Context) error { return e.GlobalContext(ctx, "mod_version", &v) })
	bounded("GlobalContext dotted", func(ctx context.Context) error { return e.GlobalContext(ctx, "package.nothing", &v) })
	bounded("SetGlobalContext", func(ctx context.Context) error { return e.SetGlobalContext(ctx, "tick", 1) })
	bounded("SetGlobalContext dotted", func(ctx context.Context) error { return e.SetGlobalContext(ctx, "package.tick", 1) })
	var hook func() error
	bounded("GetFunctionContext", func(ctx context.Context) error { return e.GetFunctionContext(ctx, "on_unload", &hook) })
	if hook != nil {
		t.Errorf("GetFunctionContext bound a func though interrupted")
	}

	// what needs no metamethod works under a context, and a never-done
	// context is the plain call
	var n int
	must(t, e.GlobalContext(context.Background(), "version", &n))
	ctx2, cancel2 := context.WithTimeout(context.Background(), time.Second)
	defer cancel2()
	var m int
	must(t, e.GlobalContext(ctx2, "version", &m))
	if n != 3 || m != 3 {
		t.Errorf("version = %d, %d; want 3", n, m)
	}
	run(t, e, `rawset(_G, "on_load", function() return 1 end)`)
	var onLoad func() (int, error)
	must(t, e.GetFunctionContext(ctx2, "on_load", &onLoad))
	if r, err := onLoad(); r != 1 || err != nil {
		t.Errorf("on_load() = %d, %v", r, err)
	}
	must(t, e.SetGlobalContext(ctx2, "version", 4))
	must(t, e.Global("version", &n))
	if n != 4 {
		t.Errorf("version after SetGlobalContext = %d", n)
	}
	// a context already done does nothing
	done, cancel3 := context.WithCancel(context.Background())
	cancel3()
	if err := e.SetGlobalContext(done, "version", 5); !errors.Is(err, context.Canceled) {
		t.Errorf("SetGlobalContext with a done context: %v", err)
	}
	if err := e.GlobalContext(done, "version", &n); !errors.Is(err, context.Canceled) || n != 4 {
		t.Errorf("GlobalContext with a done context: %v, %d", err, n)
	}
	if err := e.GetFunctionContext(done, "on_load", &onLoad); !errors.Is(err, context.Canceled) {
		t.Errorf("GetFunctionContext with a done context: %v", err)
	}
}
