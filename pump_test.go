package zlua_test

import (
	"bytes"
	"errors"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

// waitPending runs the GC until the cleanups of dropped handles have
// queued want refs (cleanups run on their own goroutine).
func waitPending(t *testing.T, e *zlua.Env, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for e.Stats().PendingRefs < want {
		if time.Now().After(deadline) {
			t.Fatalf("PendingRefs = %d, want %d: cleanups did not queue the dropped handles", e.Stats().PendingRefs, want)
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}

func TestDroppedHandlesAreReleasedByPumpWithinBudget(t *testing.T) {
	e, err := zlua.New(zlua.Options{PumpBudget: 30000})
	must(t, err)
	defer e.Close()
	base := e.Stats().LiveRefs
	const n = 100000
	// Go holds the handles through the call (refs dropped during a call
	// are released at its scheduler checks, see
	// TestTableHandlesDroppedDuringALongCallAreReleased), then drops them.
	var kept []*zlua.Function
	must(t, e.SetGlobal("keep", func(f *zlua.Function) { kept = append(kept, f) }))
	run(t, e, `for i = 1, `+strconv.Itoa(n)+` do keep(function() return i end) end`)
	if got := e.Stats().LiveRefs; got != base+n {
		t.Fatalf("LiveRefs = %d after %d handles, want %d", got, n, base+n)
	}
	kept = nil
	waitPending(t, e, n)
	pumps := 0
	for e.Stats().PendingRefs > 0 {
		before := e.Stats().PendingRefs
		must(t, e.Pump())
		pumps++
		if released := before - e.Stats().PendingRefs; released > 30000 {
			t.Fatalf("one Pump released %d refs, budget 30000", released)
		}
	}
	if pumps != 4 {
		t.Errorf("drained in %d Pumps, want 4 (10^5 refs, budget 3*10^4)", pumps)
	}
	if got := e.Stats().LiveRefs; got != base {
		t.Errorf("LiveRefs = %d after Pump, want baseline %d", got, base)
	}
	// The functions themselves were released in Lua: their refs are reused.
	run(t, e, `keep(function() end)`)
}

func TestReleaseIsImmediateAndFinal(t *testing.T) {
	e := newEnv(t)
	run(t, e, `function f() return 1 end`)
	var f *zlua.Function
	must(t, e.GetFunction("f", &f))
	base := e.Stats().LiveRefs
	f.Release()
	f.Release()
	if e.Stats().PendingRefs != 1 {
		t.Errorf("PendingRefs = %d after Release, want 1", e.Stats().PendingRefs)
	}
	must(t, e.Pump())
	if got := e.Stats().LiveRefs; got != base-1 {
		t.Errorf("LiveRefs = %d, want %d", got, base-1)
	}
	if _, err := f.Call(); !errors.Is(err, zlua.ErrReleased) {
		t.Errorf("Call after Release = %v", err)
	}
	if err := e.SetGlobal("g", f); !errors.Is(err, zlua.ErrReleased) {
		t.Errorf("pushing a released handle = %v", err)
	}
}

func TestResetFromInsideACallback(t *testing.T) {
	e := newEnv(t)
	var calls []string
	must(t, e.SetGlobal("reload", func(v string) {
		e.Reset(func(e *zlua.Env) error {
			calls = append(calls, v)
			return e.DoString(`loaded = "` + v + `"`)
		})
	}))
	run(t, e, `function old() return "old" end; x = 1; reload("v1"); reload("v2")`)
	var oldFn func() (string, error)
	must(t, e.GetFunction("old", &oldFn))
	errOld := e.DoString(`error({})`)
	if got := global[int](t, e, "x"); got != 1 {
		t.Fatalf("Reset applied before Pump: x = %d", got)
	}
	must(t, e.Pump())
	if len(calls) != 1 || calls[0] != "v2" {
		t.Errorf("loaders run: %v, want only the last one (v2)", calls)
	}
	if got := global[string](t, e, "loaded"); got != "v2" {
		t.Errorf("loaded = %q", got)
	}
	var x any
	must(t, e.Global("x", &x))
	if x != nil {
		t.Errorf("old state survived Reset: x = %v", x)
	}
	if _, err := oldFn(); !errors.Is(err, zlua.ErrStale) {
		t.Errorf("handle of the old state = %v, want ErrStale", err)
	}
	// An error object of the old state is raised as its text in the new one.
	must(t, e.SetGlobal("rethrow", func() error { return errOld }))
	run(t, e, `local ok, err = pcall(rethrow); assert(err == "(error object is a table value)", tostring(err))`)
	if s := e.Stats(); s.LiveRefs != 0 {
		t.Errorf("LiveRefs = %d after Reset, want 0", s.LiveRefs)
	}
}

func TestResetLoaderErrorAndPumpInsideLua(t *testing.T) {
	e := newEnv(t)
	e.Reset(func(*zlua.Env) error { return errGame })
	if err := e.Pump(); !errors.Is(err, errGame) {
		t.Errorf("Pump with a failing loader = %v", err)
	}
	run(t, e, `y = 2`) // the fresh state is usable
	var got error
	must(t, e.SetGlobal("pumpInside", func() { got = e.Pump() }))
	run(t, e, `pumpInside()`)
	if !errors.Is(got, zlua.ErrBusy) {
		t.Errorf("Pump inside a callback = %v, want ErrBusy", got)
	}
}

// TestResetLoaderPanicIsThePumpsError: a loader's panic does not unwind
// out of Pump; it is Pump's error, posted functions queued with it still
// run, and the fresh state the loader began stays usable.
func TestResetLoaderPanicIsThePumpsError(t *testing.T) {
	e := newEnv(t)
	e.Reset(func(e *zlua.Env) error {
		run(t, e, `half = 1`)
		panic("loader broke")
	})
	ran := false
	must(t, e.Post(func(*zlua.Env) { ran = true }))
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("Pump panicked: %v", r)
			}
		}()
		err = e.Pump()
	}()
	if err == nil || !strings.Contains(err.Error(), "zlua: reset loader panicked: loader broke") {
		t.Errorf("Pump with a panicking loader = %v", err)
	}
	if !ran {
		t.Error("the posted function did not run")
	}
	run(t, e, `assert(half == 1); y = 2`)
	must(t, e.Pump())
}

func TestCloseWithLiveHandlesAndPendingCleanups(t *testing.T) {
	e, err := zlua.New(zlua.Options{})
	must(t, err)
	run(t, e, `function f(a, b) return a + b end`)
	var add func(int, int) (int, error)
	must(t, e.GetFunction("f", &add))
	must(t, e.SetGlobal("keep", func(f *zlua.Function) {}))
	run(t, e, `for i = 1, 1000 do keep(function() end) end`)
	e.Reset(nil)
	must(t, e.Close())
	runtime.GC() // cleanups of the dropped handles now push into a closed queue
	runtime.GC()
	if _, err := add(1, 2); !errors.Is(err, zlua.ErrStale) {
		t.Errorf("handle after Close = %v, want ErrStale", err)
	}
	if err := e.Post(func(*zlua.Env) {}); !errors.Is(err, zlua.ErrClosed) {
		t.Errorf("Post after Close = %v", err)
	}
	if err := e.Pump(); !errors.Is(err, zlua.ErrClosed) {
		t.Errorf("Pump after Close = %v", err)
	}
}

// goid returns the current goroutine's id (test diagnostics only).
func goid() string {
	b := make([]byte, 64)
	b = b[:runtime.Stack(b, false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	return string(b[:bytes.IndexByte(b, ' ')])
}

func TestPostFromManyGoroutines(t *testing.T) {
	e := newEnv(t)
	owner := goid()
	const workers, each = 8, 10000
	seen := make([]int, workers*each)
	var inPump bool
	var wrong int
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				id := w*each + i
				must(t, e.Post(func(env *zlua.Env) {
					if !inPump || goid() != owner || env != e {
						wrong++
					}
					seen[id]++
				}))
			}
		}(w)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for finished := false; !finished; {
		select {
		case <-done:
			finished = true
		default:
		}
		inPump = true
		must(t, e.Pump())
		inPump = false
	}
	for i, n := range seen {
		if n != 1 {
			t.Fatalf("posted function %d ran %d times", i, n)
		}
	}
	if wrong != 0 {
		t.Errorf("%d posted functions ran outside Pump or off the owner goroutine", wrong)
	}
	// A panicking posted function is reported; the others still run.
	ran := false
	must(t, e.Post(func(*zlua.Env) { panic("posted boom") }))
	must(t, e.Post(func(*zlua.Env) { ran = true }))
	if err := e.Pump(); err == nil || !ran {
		t.Errorf("Pump with a panicking post = %v, later post ran: %v", err, ran)
	}
}

func TestConcurrentUseIsDetected(t *testing.T) {
	e := newEnv(t)
	inside := make(chan struct{})
	resume := make(chan struct{})
	must(t, e.SetGlobal("block", func() {
		close(inside)
		<-resume
	}))
	done := make(chan error, 1)
	go func() { done <- e.DoString(`block(); x = 1`) }()
	<-inside
	// The owner is inside a Go callback: another goroutine is refused.
	var y int
	for name, err := range map[string]error{
		"DoString":  e.DoString(`y = 2`),
		"SetGlobal": e.SetGlobal("y", 2),
		"Global":    e.Global("y", &y),
		"Close":     e.Close(),
		"Pump":      e.Pump(),
	} {
		if !errors.Is(err, zlua.ErrConcurrentUse) {
			t.Errorf("%s from another goroutine = %v, want ErrConcurrentUse", name, err)
		}
	}
	close(resume)
	must(t, <-done)

	// The owner is inside pure Lua code.
	run(t, e, `function spin() local t = os.clock() while os.clock() - t < 0.3 do end end`)
	go func() { done <- e.DoString(`spin()`) }()
	time.Sleep(50 * time.Millisecond)
	if err := e.DoString(`y = 3`); !errors.Is(err, zlua.ErrConcurrentUse) {
		t.Errorf("DoString while another goroutine runs Lua = %v", err)
	}
	must(t, <-done)
	run(t, e, `assert(x == 1 and y == nil)`)
}
