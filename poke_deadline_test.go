package zlua_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
	"github.com/zlua-go/zlua/callbackgate"
)

// TestDeadlineStopsSlowCallsThatDoNotAllocate: loops whose instructions
// are slow C calls that allocate nothing (a sort of a sorted 200,000-element
// table, about 40 ms; utf8.len of 16 MiB) gave the hook no allocation to
// hurry it, so the first check came after up to 1000 of them: seconds to
// minutes past the deadline (0.7 s from the start, 7 s after a cheap
// phase had grown the count). The watcher's signal makes the hook fire
// at the next instruction: the overrun is the call in progress, so the
// overrun allowed is 150 ms or, on a machine slow enough that one call
// takes longer (a loaded one, under -race: a sort took 150 ms in a CI
// container while other tests ran), three calls and 50 ms; without the
// signal the loops ran 8 to 100 calls past the deadline.
func TestDeadlineStopsSlowCallsThatDoNotAllocate(t *testing.T) {
	e, err := zlua.New(zlua.Options{Libs: zlua.LibsSafe})
	must(t, err)
	t.Cleanup(func() { e.Close() })
	run(t, e, `BIG = {} for i = 1, 2e5 do BIG[i] = i end S = ("x"):rep(16 * 2^20)`)
	allowed := 150 * time.Millisecond
	for _, call := range []string{`table.sort(BIG)`, `if utf8 then utf8.len(S) end`} {
		start := time.Now()
		run(t, e, call)
		allowed = max(allowed, 3*time.Since(start)+50*time.Millisecond)
	}
	chunks := []string{
		`while true do table.sort(BIG) end`,
		`local x = 0 for i = 1, 3e5 do x = x + i end while true do table.sort(BIG) end`,
		`local co = coroutine.wrap(function() while true do table.sort(BIG) coroutine.yield() end end)
		while true do co() end`,
	}
	if strings.HasPrefix(zlua.Backend, "Lua 5.4") { // LuaJIT has no utf8
		chunks = append(chunks, `while true do utf8.len(S) end`,
			`local x = 0 for i = 1, 3e5 do x = x + i end while true do utf8.len(S) end`)
	}
	stopWithin(t, e, chunks, "", allowed)
}

// TestGoexitInLimitedCallStopsItsWatcher: a Go function that calls
// runtime.Goexit inside a limited call abandons the Env, and the call's
// end never runs. Its context watcher stayed registered: when the context
// ended after Close, it wrote the interruption into the freed C env
// (valgrind: invalid write in zlua_interrupt). Abandoning the gate now
// stops the watchers of the calls it cut short.
func TestGoexitInLimitedCallStopsItsWatcher(t *testing.T) {
	for _, nested := range []bool{false, true} {
		e, err := zlua.New(zlua.Options{})
		must(t, err)
		must(t, e.SetGlobal("quit", func() { runtime.Goexit() }))
		inner := func(ctx context.Context) error { return e.DoStringContext(ctx, `quit()`) }
		must(t, e.SetGlobal("innerLimited", func() error {
			ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
			defer cancel()
			return inner(ctx)
		}))
		chunk := `quit()`
		if nested {
			chunk = `innerLimited()`
		}
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		ended := make(chan struct{})
		go func() {
			defer close(ended)
			e.DoStringContext(ctx, chunk)
			t.Error("DoStringContext returned after runtime.Goexit")
		}()
		<-ended
		if n := callbackgate.LiveWatchers(); n != 0 {
			t.Errorf("nested %v: %d watcher(s) still registered after the Goexit", nested, n)
		}
		must(t, e.Close())
		<-ctx.Done() // a watcher left would fire now, into the freed env
		cancel()
	}
}

// TestGoexitInLimitedCallDuringCloseStopsItsWatcher: a __gc Go function
// that Close runs makes a limited call, whose Go function calls
// runtime.Goexit: the watcher of the call cut short is stopped there too
// (abandonClosing), and Close finishes.
func TestGoexitInLimitedCallDuringCloseStopsItsWatcher(t *testing.T) {
	e, err := zlua.New(zlua.Options{})
	must(t, err)
	must(t, e.SetGlobal("quit", func() { runtime.Goexit() }))
	must(t, e.SetGlobal("f", func(i int) error {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		return e.DoStringContext(ctx, `quit()`)
	}))
	must(t, e.DoString(gcObjects(2)))
	var closeErr error
	if !inDyingGoroutine(func() { closeErr = e.Close() }) {
		t.Fatal("Close did not return")
	}
	if !errors.Is(closeErr, zlua.ErrAbandoned) {
		t.Errorf("Close = %v, want ErrAbandoned", closeErr)
	}
	if n := callbackgate.LiveWatchers(); n != 0 {
		t.Errorf("%d watcher(s) still registered after Close", n)
	}
	time.Sleep(150 * time.Millisecond) // a watcher left would fire now, into the freed env
}
