package zlua_test

import (
	"errors"
	"reflect"
	"runtime"
	"testing"

	"github.com/zlua-go/zlua"
)

// Handles are plain structs, so a host can copy one by value (a field
// `OnHit zlua.Function`, `cp := *t`). The copy has the original's ref but
// not its lifetime: once the original was released or collected, the copy
// used whatever Lua put in the registry slot next (another function,
// another table, another coroutine), its Release freed that slot a second
// time, and a copied Thread read a collected coroutine (probe Y1 F1).
// Every use of a copy is refused with ErrCopied, its Release does
// nothing, and the original keeps working.
func TestCopiedHandlesAreRefused(t *testing.T) {
	e := newEnv(t)
	run(t, e, `function a() return "a" end function b() return "b" end
		cfg = {difficulty = "hard"}
		co = coroutine.create(function() coroutine.yield("a") end)`)
	var f *zlua.Function
	must(t, e.Global("a", &f))
	var tb *zlua.Table
	must(t, e.Global("cfg", &tb))
	var th *zlua.Thread
	must(t, e.Global("co", &th))
	refs := e.Stats().LiveRefs
	fc, tc, thc := copyOf(f), copyOf(tb), copyOf(th)
	isCopied := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, zlua.ErrCopied) {
			t.Errorf("%s on a copy: %v, want ErrCopied", what, err)
		}
	}
	_, err := fc.Call()
	isCopied("Call", err)
	var s string
	isCopied("Get", tc.Get("difficulty", &s))
	isCopied("Set", tc.Set("difficulty", "easy"))
	_, err = thc.Resume()
	isCopied("Resume", err)
	var step func() (string, error)
	if err := thc.BindResume(&step); err == nil {
		_, err = step()
		isCopied("a BindResume func", err)
	} else {
		isCopied("BindResume", err)
	}
	if !thc.Done() {
		t.Error("Done on a copy: false, want true")
	}
	isCopied("SetGlobal of a copy", e.SetGlobal("x", fc))
	// a copy's Release frees nothing: the originals still work
	fc.Release()
	tc.Release()
	thc.Release()
	must(t, e.Pump())
	if got := e.Stats().LiveRefs; got != refs {
		t.Errorf("LiveRefs %d after releasing copies, %d before", got, refs)
	}
	out, err := f.Call()
	if err != nil || len(out) != 1 || out[0] != "a" {
		t.Errorf("the original after its copy's Release: %v, %v", out, err)
	}
	must(t, tb.Get("difficulty", &s))
	if s != "hard" {
		t.Errorf("the original table reads %q", s)
	}
	// the originals dropped and collected, new handles take their slots:
	// the copies still refuse
	f, tb, th = nil, nil, nil
	for range 3 {
		runtime.GC()
		must(t, e.Pump())
	}
	var g *zlua.Function
	must(t, e.Global("b", &g))
	var other *zlua.Table
	must(t, e.Eval(`{secret = "token"}`, &other))
	_, err = fc.Call()
	isCopied("Call after the original was collected", err)
	isCopied("Get after the original was collected", tc.Get("secret", &s))
	if !thc.Done() {
		t.Error("Done on a copy of a collected thread: false, want true")
	}
	runtime.KeepAlive(g)
	runtime.KeepAlive(other)
}

// A thread's refusals name the operation, as every API error does, and
// BindResume refuses a released handle at once, as Table.Method does
// (probe Y1 F5).
func TestThreadRefusalsNameTheOperation(t *testing.T) {
	e := newEnv(t)
	run(t, e, `co = coroutine.create(function() coroutine.yield(1) end)`)
	var th *zlua.Thread
	must(t, e.Global("co", &th))
	var step func() (int, error)
	must(t, th.BindResume(&step))
	th.Release()
	_, err := step()
	if err == nil || err.Error() != "zlua: resume: handle released" || !errors.Is(err, zlua.ErrReleased) {
		t.Errorf("a bound resume of a released thread: %v", err)
	}
	var again func() error
	err = th.BindResume(&again)
	if err == nil || err.Error() != "zlua: bind resume: handle released" || again != nil {
		t.Errorf("BindResume of a released thread: %v (func set: %v)", err, again != nil)
	}
	var zero zlua.Thread
	_, err = zero.Resume()
	if err == nil || err.Error() != "zlua: resume: handle not made by an Env" {
		t.Errorf("Resume of a zero Thread: %v", err)
	}
}

// copyOf copies *p by value as a host's `v := *p` does (through reflect:
// vet flags a Thread's copy, whose atomic field it knows, but not a
// Function's or a Table's).
func copyOf[T any](p *T) *T {
	c := new(T)
	reflect.ValueOf(c).Elem().Set(reflect.ValueOf(p).Elem())
	return c
}
