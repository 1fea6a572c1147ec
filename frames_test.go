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

// callersHere fills pcs from the frame of callersHere itself: a function
// small enough to be inlined, whose frame is then a logical one.
func callersHere(pcs []uintptr) int { return runtime.Callers(1, pcs) }

// inlining reports whether the compiler inlines: false in a build without
// inlining (-gcflags=-l or -N), which keeps every frame the tests below
// count.
func inlining() bool {
	pcs := make([]uintptr, 1)
	callersHere(pcs)
	fr, _ := runtime.CallersFrames(pcs).Next()
	if !strings.HasSuffix(fr.Function, ".callersHere") {
		panic("callersHere's frame is " + fr.Function)
	}
	return fr.Func == nil // a frame inlined into its caller has no Func
}

// skipWithoutInlining skips a frame-count test in a build without inlining.
func skipWithoutInlining(t *testing.T) {
	if !inlining() {
		t.Skip("built without inlining: every call keeps its frame")
	}
}

// bound makes a test case's call: it binds the Lua function f to a typed
// func of type F and returns a func that calls it through call.
func bound[F any](call func(t *testing.T, f F)) func(t *testing.T, e *zlua.Env) func() {
	return func(t *testing.T, e *zlua.Env) func() {
		var f F
		must(t, e.GetFunction("f", &f))
		return func() { call(t, f) }
	}
}

// resumed is bound for a resumer: a thread of the Lua function co, bound
// to a typed func of type F with BindResume.
func resumed[F any](call func(t *testing.T, f F)) func(t *testing.T, e *zlua.Env) func() {
	return func(t *testing.T, e *zlua.Env) func() {
		var fn *zlua.Function
		must(t, e.GetFunction("co", &fn))
		th, err := e.NewThread(fn)
		must(t, err)
		var f F
		must(t, th.BindResume(&f))
		return func() { call(t, f) }
	}
}

// checkNestedFrames runs script in a new Env whose global probe records
// the Go frames above the cgo call, gets a call from start and makes it
// twice (the first call with an opaque handle opens the gate's handle
// stack; the second is the one counted). It fails if more than the cgo
// stub, one zlua frame and the typed func lie between the test and
// runtime.cgocall.
func checkNestedFrames(t *testing.T, script string, start func(t *testing.T, e *zlua.Env) func()) {
	e := newEnv(t)
	var frames []string
	calls := 0
	must(t, e.SetGlobal("probe", func() {
		calls++
		frames = goFramesAbove(t, "github.com/zlua-go/zlua_test.")
	}))
	must(t, e.DoString(script))
	call := start(t, e)
	call()
	call()
	if calls != 2 {
		t.Fatalf("probe ran %d times", calls)
	}
	if len(frames) > 3 {
		t.Errorf("%d Go frames between the test and the cgo call, want at most 3:\n%s",
			len(frames), strings.Join(frames, "\n"))
	}
}

// A typed func called with an opaque handle or scalars makes its cgo call
// from the frame below the func itself: a Go→Lua→Go call keeps fewer
// return addresses live than the processor's return-stack predictor
// holds, and every frame beyond that costs a mispredicted return ("Frames
// on the nested path" in docs/ARCHITECTURE.md).
func TestNestedCallsKeepTheGoCallerFramesFlat(t *testing.T) {
	skipWithoutInlining(t)
	v := &struct{ X float64 }{X: 1}
	callers := []struct {
		name   string
		result string // what the Lua function returns
		start  func(t *testing.T, e *zlua.Env) func()
	}{
		{"func(any) (float64, error) with an opaque handle", "1",
			bound(func(t *testing.T, f func(any) (float64, error)) { _, err := f(zlua.Opaque(v)); must(t, err) })},
		{"func(any) float64 with an opaque handle", "1", bound(func(t *testing.T, f func(any) float64) { f(zlua.Opaque(v)) })},
		{"func(any) (int, error) with an opaque handle", "1",
			bound(func(t *testing.T, f func(any) (int, error)) { _, err := f(zlua.Opaque(v)); must(t, err) })},
		{"func(any) bool with an opaque handle", "true", bound(func(t *testing.T, f func(any) bool) { f(zlua.Opaque(v)) })},
		{"func(any) error with a number", "1", bound(func(t *testing.T, f func(any) error) { must(t, f(2.5)) })},
		{"func() error", "1", bound(func(t *testing.T, f func() error) { must(t, f()) })},
		{"func(float64) error", "1", bound(func(t *testing.T, f func(float64) error) { must(t, f(0.5)) })},
		{"func(int)", "1", bound(func(t *testing.T, f func(int)) { f(3) })},
		{"func(string) error", "1", bound(func(t *testing.T, f func(string) error) { must(t, f("s")) })},
		{"func(int, int) (int, error)", "1",
			bound(func(t *testing.T, f func(int, int) (int, error)) { _, err := f(1, 2); must(t, err) })},
	}
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			checkNestedFrames(t, "function f(...) probe() return "+c.result+" end", c.start)
		})
	}
}

// The typed resumers make their one-crossing resume from the frame below
// the func too: a coroutine that calls the host API is the same
// Go→Lua→Go chain, with lua_resume's C frames in it.
func TestNestedResumesKeepTheGoCallerFramesFlat(t *testing.T) {
	skipWithoutInlining(t)
	resumers := []struct {
		name  string
		start func(t *testing.T, e *zlua.Env) func()
	}{
		{"func(int) (int, error)", resumed(func(t *testing.T, f func(int) (int, error)) { _, err := f(1); must(t, err) })},
		{"func() float64", resumed(func(t *testing.T, f func() float64) { f() })},
		{"func(float64) error", resumed(func(t *testing.T, f func(float64) error) { must(t, f(0.5)) })},
	}
	for _, c := range resumers {
		t.Run(c.name, func(t *testing.T) {
			checkNestedFrames(t, "function co() while true do probe() coroutine.yield(1) end end", c.start)
		})
	}
}
