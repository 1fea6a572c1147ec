package zlua_test

import (
	"errors"
	"io/fs"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/zlua-go/zlua"
)

// goexitCounter is an object whose methods Lua calls; Exit calls
// runtime.Goexit once its count reaches At (a leaf method on LuaJIT's
// compiled loops, a plain method elsewhere).
type goexitCounter struct{ N, At int }

func (c *goexitCounter) Step() int {
	c.N++
	if c.N == c.At {
		runtime.Goexit()
	}
	return c.N
}

func (c *goexitCounter) Exit() { runtime.Goexit() }

type goexitLeaf struct{ N, At int }

func (c *goexitLeaf) Step(k int) int {
	c.N += k
	if c.N >= c.At {
		runtime.Goexit()
	}
	return c.N
}

type goexitVec struct{ X int }

// goexitFS is a module file system whose Open calls runtime.Goexit.
type goexitFS struct{}

func (goexitFS) Open(string) (fs.File, error) { runtime.Goexit(); return nil, nil }

func init() {
	if err := zlua.Leaf[*goexitLeaf]("Step"); err != nil {
		panic(err)
	}
}

// inDyingGoroutine runs f on a goroutine of its own and waits until that
// goroutine is gone; it reports whether f returned (false: it called
// runtime.Goexit somewhere inside).
func inDyingGoroutine(f func()) (returned bool) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		f()
		returned = true
	}()
	wg.Wait()
	return returned
}

// TestGoexitInsideLuaAbandonsTheEnv calls runtime.Goexit from every kind
// of Go code Lua can reach: the goroutine running the Lua call dies with
// it. Afterwards every call of the Env, from any goroutine, fails at once
// with ErrAbandoned naming the function, and Close frees it all (the leak
// check of TestMain counts the Env, its slots and its refs). Before the
// Env was abandoned it stayed claimed: every call, Close included,
// returned ErrConcurrentUse for ever.
func TestGoexitInsideLuaAbandonsTheEnv(t *testing.T) {
	type setup func(t *testing.T, e *zlua.Env) (run func(e *zlua.Env) error, names string)
	exitFn := func() { runtime.Goexit() }
	cases := map[string]setup{
		"function": func(t *testing.T, e *zlua.Env) (func(*zlua.Env) error, string) {
			must(t, e.SetGlobal("f", exitFn))
			return func(e *zlua.Env) error { return e.DoString("local t = {} f() error('went on')") }, `"f"`
		},
		"method": func(t *testing.T, e *zlua.Env) (func(*zlua.Env) error, string) {
			must(t, e.SetGlobal("o", &goexitCounter{}))
			return func(e *zlua.Env) error { return e.DoString("o:Exit()") }, "Exit"
		},
		"metamethod": func(t *testing.T, e *zlua.Env) (func(*zlua.Env) error, string) {
			must(t, zlua.Metamethods[goexitVec](e, map[string]any{
				"__add": func(a, b goexitVec) goexitVec { runtime.Goexit(); return a }}))
			must(t, e.SetGlobal("v", goexitVec{1}))
			return func(e *zlua.Env) error { return e.DoString("local w = v + v") }, "__add"
		},
		"leaf method in a compiled loop": func(t *testing.T, e *zlua.Env) (func(*zlua.Env) error, string) {
			must(t, e.SetGlobal("c", &goexitLeaf{At: 300}))
			return func(e *zlua.Env) error {
				return e.DoString("for i = 1, 1000 do c:Step(1) end")
			}, "Step"
		},
		"method many times (slow and fast paths)": func(t *testing.T, e *zlua.Env) (func(*zlua.Env) error, string) {
			must(t, e.SetGlobal("c", &goexitCounter{At: 300}))
			return func(e *zlua.Env) error {
				return e.DoString("for i = 1, 1000 do c:Step() end")
			}, "Step"
		},
		"__gc finalizer": func(t *testing.T, e *zlua.Env) (func(*zlua.Env) error, string) {
			must(t, e.SetGlobal("f", exitFn))
			return func(e *zlua.Env) error {
				return e.DoString(`
					local mt = {__gc = function() f() end}
					if newproxy then
						local p = newproxy(true) getmetatable(p).__gc = mt.__gc p = nil
					else
						setmetatable({}, mt)
					end
					collectgarbage() collectgarbage()`)
			}, `"f"`
		},
		"debug hook": func(t *testing.T, e *zlua.Env) (func(*zlua.Env) error, string) {
			must(t, e.SetGlobal("f", exitFn))
			return func(e *zlua.Env) error {
				return e.DoString("debug.sethook(function() f() end, 'l')\nlocal x = 1\nx = 2")
			}, `"f"`
		},
		"preloaded module": func(t *testing.T, e *zlua.Env) (func(*zlua.Env) error, string) {
			must(t, e.Preload("mod", map[string]any{"f": exitFn}))
			return func(e *zlua.Env) error { return e.DoString(`require("mod").f()`) }, "f"
		},
		"module searcher's fs.FS": nil, // set up below: it needs Options.Modules
		"inside a coroutine": func(t *testing.T, e *zlua.Env) (func(*zlua.Env) error, string) {
			must(t, e.SetGlobal("f", exitFn))
			return func(e *zlua.Env) error {
				return e.DoString(`local co = coroutine.wrap(function() coroutine.yield(1) f() end) co() co()`)
			}, `"f"`
		},
		"nested Env call": func(t *testing.T, e *zlua.Env) (func(*zlua.Env) error, string) {
			must(t, e.SetGlobal("f", exitFn))
			must(t, e.SetGlobal("g", func() error { return e.DoString("f()") }))
			return func(e *zlua.Env) error { return e.DoString("g() error('went on')") }, `"f"`
		},
		"resume func": func(t *testing.T, e *zlua.Env) (func(*zlua.Env) error, string) {
			must(t, e.SetGlobal("f", exitFn))
			must(t, e.DoString(`function body() f() end`))
			var body *zlua.Function
			must(t, e.Global("body", &body))
			th, err := e.NewThread(body)
			must(t, err)
			var resume func() error
			must(t, th.BindResume(&resume))
			return func(*zlua.Env) error { return resume() }, `"f"`
		},
	}
	if zlua.Backend[:7] == "Lua 5.4" {
		cases["warning function"] = nil // set up below: it needs Options.Warn
	}
	for name, set := range cases {
		t.Run(name, func(t *testing.T) {
			var e *zlua.Env
			var call func(*zlua.Env) error
			var want string
			if set == nil {
				opts := zlua.Options{Warn: func(string) { runtime.Goexit() }}
				want = "the warning function"
				chunk := `warn("@on") warn("x")`
				if strings.HasPrefix(name, "module") {
					opts = zlua.Options{Modules: goexitFS{}}
					want, chunk = `"module searcher"`, `require "m"`
				}
				var err error
				e, err = zlua.New(opts)
				must(t, err)
				call = func(e *zlua.Env) error { return e.DoString(chunk) }
			} else {
				var err error
				e, err = zlua.New(zlua.Options{})
				must(t, err)
				call, want = set(t, e)
			}
			must(t, e.SetGlobal("obj", &goexitCounter{})) // a slot Close must free
			// a finalizer lua_close runs after the abandoned frames, calling Go
			finalized := 0
			must(t, e.SetGlobal("onclose", func() { finalized++ }))
			must(t, e.DoString(`local gc = function() onclose() end
				if newproxy then keep = newproxy(true) getmetatable(keep).__gc = gc
				else keep = setmetatable({}, {__gc = gc}) end`))
			if want != "the warning function" { // (a __gc error warns)
				// a finalizer that raises: lua_close's own protected call
				// catches it, whatever the abandoned frames left
				must(t, e.DoString(`local gc = function() error("at close") end
					if newproxy then keep2 = newproxy(true) getmetatable(keep2).__gc = gc
					else keep2 = setmetatable({}, {__gc = gc}) end`))
			}
			var callErr error
			if inDyingGoroutine(func() { callErr = call(e) }) {
				e.Close()
				t.Fatalf("the call returned (%v) instead of ending its goroutine", callErr)
			}
			err := e.DoString("return 1")
			if !errors.Is(err, zlua.ErrAbandoned) || !strings.Contains(err.Error(), want) {
				t.Errorf("call after Goexit: %v, want ErrAbandoned naming %s", err, want)
			}
			// another goroutine gets it too, at once
			var other error
			inDyingGoroutine(func() { other = e.SetGlobal("x", 1) })
			if !errors.Is(other, zlua.ErrAbandoned) {
				t.Errorf("call from another goroutine: %v, want ErrAbandoned", other)
			}
			if err := e.Pump(); !errors.Is(err, zlua.ErrAbandoned) {
				t.Errorf("Pump: %v, want ErrAbandoned", err)
			}
			if err := e.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if finalized != 1 {
				t.Errorf("finalizer ran %d times at Close, want 1", finalized)
			}
			checkClosedClean(t, e)
		})
	}
}

// TestGoexitAbandonedEnvRunsPostedFunctionsOutside: Close of an abandoned
// Env runs the functions posted before, whose calls of the Env fail with
// ErrAbandoned, and returns their panics.
func TestGoexitAbandonedEnvRunsPostedFunctionsOutside(t *testing.T) {
	e, err := zlua.New(zlua.Options{})
	must(t, err)
	must(t, e.SetGlobal("f", func() { runtime.Goexit() }))
	inDyingGoroutine(func() { _ = e.DoString("f()") })
	var posted error
	must(t, e.Post(func(e *zlua.Env) { posted = e.DoString("return 1") }))
	must(t, e.Post(func(*zlua.Env) { panic("boom") }))
	err = e.Close()
	if !errors.Is(posted, zlua.ErrAbandoned) {
		t.Errorf("posted function's call: %v, want ErrAbandoned", posted)
	}
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("Close: %v, want the posted panic", err)
	}
}

// TestPanicNilIsNotGoexit: panic(nil) recovers as *runtime.PanicNilError,
// so it stays a Lua error and the Env stays usable.
func TestPanicNilIsNotGoexit(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("f", func() { panic(nil) }))
	err := e.DoString("f()")
	var pe *zlua.PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("panic(nil): %v, want a PanicError", err)
	}
	run(t, e, "return 1")
}

// checkClosedClean checks an Env after its Close: nothing live in its
// counters, later calls ErrClosed, a second Close nil.
func checkClosedClean(t *testing.T, e *zlua.Env) {
	t.Helper()
	if s := e.Stats(); s.LiveObjects != 0 || s.LiveRefs != 0 || s.LiveFuncs != 0 {
		t.Errorf("after Close: %+v", s)
	}
	if err := e.DoString("return 1"); !errors.Is(err, zlua.ErrClosed) {
		t.Errorf("call after Close: %v, want ErrClosed", err)
	}
	if err := e.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
