package zlua_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// goFramesAbove returns the functions of the Go frames between the cgo
// call that entered Lua (runtime.cgocall, excluded) and the first frame of
// a function whose name starts with stop, as seen from a Go function Lua calls: machine frames
// only (an inlined call makes none).
func goFramesAbove(t *testing.T, stop string) []string {
	t.Helper()
	pcs := make([]uintptr, 256)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)])
	var out []string
	seen := false
	for {
		fr, more := frames.Next()
		switch {
		case fr.Function == "runtime.cgocall":
			seen = true
		case seen && strings.HasPrefix(fr.Function, stop):
			return out
		case seen && fr.Func != nil: // nil: inlined into the next frame
			out = append(out, fr.Function)
		}
		if !more {
			t.Fatalf("no frame of %s above runtime.cgocall", stop)
			return nil
		}
	}
}

// inlinedHere reports whether this function was inlined into its caller:
// false in a build without inlining (-gcflags=-l or -N), which keeps
// every frame the tests below count.
func inlinedHere() bool {
	pcs := make([]uintptr, 1)
	runtime.Callers(1, pcs)
	fr, _ := runtime.CallersFrames(pcs).Next()
	return fr.Func == nil
}

// skipWithoutInlining skips a frame-count test in a build without inlining.
func skipWithoutInlining(t *testing.T) {
	if !inlinedHere() {
		t.Skip("built without inlining: every call keeps its frame")
	}
}

// A typed func called with an opaque handle or scalars makes its cgo call
// from the frame below the func itself: a Go→Lua→Go call keeps fewer
// return addresses live than the processor's return-stack predictor
// holds, and every frame beyond that costs a mispredicted return ("Frames
// on the nested path" in docs/ARCHITECTURE.md).
func TestNestedCallsKeepTheGoCallerFramesFlat(t *testing.T) {
	skipWithoutInlining(t)
	type caller struct {
		name   string
		result string // what the Lua function returns
		make   func(e *zlua.Env) func()
	}
	get := func(e *zlua.Env, fnPtr any) {
		if err := e.GetFunction("f", fnPtr); err != nil {
			t.Fatal(err)
		}
	}
	check := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	v := &struct{ X float64 }{X: 1}
	callers := []caller{
		{"func(any) (float64, error) with an opaque handle", "1", func(e *zlua.Env) func() {
			var f func(any) (float64, error)
			get(e, &f)
			return func() { _, err := f(zlua.Opaque(v)); check(err) }
		}},
		{"func(any) float64 with an opaque handle", "1", func(e *zlua.Env) func() {
			var f func(any) float64
			get(e, &f)
			return func() { f(zlua.Opaque(v)) }
		}},
		{"func(any) (int, error) with an opaque handle", "1", func(e *zlua.Env) func() {
			var f func(any) (int, error)
			get(e, &f)
			return func() { _, err := f(zlua.Opaque(v)); check(err) }
		}},
		{"func(any) bool with an opaque handle", "true", func(e *zlua.Env) func() {
			var f func(any) bool
			get(e, &f)
			return func() { f(zlua.Opaque(v)) }
		}},
		{"func(any) error with a number", "1", func(e *zlua.Env) func() {
			var f func(any) error
			get(e, &f)
			return func() { check(f(2.5)) }
		}},
		{"func() error", "1", func(e *zlua.Env) func() {
			var f func() error
			get(e, &f)
			return func() { check(f()) }
		}},
		{"func(float64) error", "1", func(e *zlua.Env) func() {
			var f func(float64) error
			get(e, &f)
			return func() { check(f(0.5)) }
		}},
		{"func(int)", "1", func(e *zlua.Env) func() {
			var f func(int)
			get(e, &f)
			return func() { f(3) }
		}},
		{"func(string) error", "1", func(e *zlua.Env) func() {
			var f func(string) error
			get(e, &f)
			return func() { check(f("s")) }
		}},
		{"func(int, int) (int, error)", "1", func(e *zlua.Env) func() {
			var f func(int, int) (int, error)
			get(e, &f)
			return func() { _, err := f(1, 2); check(err) }
		}},
	}
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			var frames []string
			calls := 0
			check(e.SetGlobal("probe", func() {
				calls++
				frames = goFramesAbove(t, "github.com/zlua-go/zlua_test.")
			}))
			check(e.DoString("function f(...) probe() return " + c.result + " end"))
			// The second call is the one measured: the first of an opaque
			// handle opens the gate's handle stack.
			call := c.make(e)
			call()
			call()
			if calls != 2 {
				t.Fatalf("probe ran %d times", calls)
			}
			// the cgo stub, one zlua frame, the typed func itself
			if len(frames) > 3 {
				t.Errorf("%d Go frames between the test and the cgo call, want at most 3:\n%s",
					len(frames), strings.Join(frames, "\n"))
			}
		})
	}
}

// The typed resumers make their one-crossing resume from the frame below
// the func too: a coroutine that calls the host API is the same
// Go→Lua→Go chain, with lua_resume's C frames in it.
func TestNestedResumesKeepTheGoCallerFramesFlat(t *testing.T) {
	skipWithoutInlining(t)
	check := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	resumers := []struct {
		name string
		make func(th *zlua.Thread) func()
	}{
		{"func(int) (int, error)", func(th *zlua.Thread) func() {
			var f func(int) (int, error)
			check(th.BindResume(&f))
			return func() { _, err := f(1); check(err) }
		}},
		{"func() float64", func(th *zlua.Thread) func() {
			var f func() float64
			check(th.BindResume(&f))
			return func() { f() }
		}},
		{"func(float64) error", func(th *zlua.Thread) func() {
			var f func(float64) error
			check(th.BindResume(&f))
			return func() { check(f(0.5)) }
		}},
	}
	for _, c := range resumers {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			var frames []string
			calls := 0
			check(e.SetGlobal("probe", func() {
				calls++
				frames = goFramesAbove(t, "github.com/zlua-go/zlua_test.")
			}))
			check(e.DoString("function co() while true do probe() coroutine.yield(1) end end"))
			var fn *zlua.Function
			check(e.GetFunction("co", &fn))
			th, err := e.NewThread(fn)
			check(err)
			resume := c.make(th)
			resume()
			resume()
			if calls != 2 {
				t.Fatalf("probe ran %d times", calls)
			}
			if len(frames) > 3 {
				t.Errorf("%d Go frames between the test and the cgo call, want at most 3:\n%s",
					len(frames), strings.Join(frames, "\n"))
			}
		})
	}
}
