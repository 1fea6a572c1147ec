package zlua_test

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/zlua-go/zlua"
)

// TestStatsFromAMetricsGoroutine reads Stats in a loop on another
// goroutine while the owner calls Go functions from Lua, pushes objects
// and structs, drops handles, resets the Env and finally closes it. Under
// -race this fails if any counter is a plain field the owner writes (it
// did: Calls, LiveFuncs, the registries' counters, the Lua heap bytes).
// The counters must also move only the way they can: GoCalls never goes
// down, LuaBytes stays within the peak.
func TestStatsFromAMetricsGoroutine(t *testing.T) {
	e, err := zlua.New(zlua.Options{})
	must(t, err)
	type point struct{ X, Y float64 }
	type named struct{ Name string }
	must(t, e.SetGlobal("add", func(a, b int) int { return a + b }))
	must(t, e.SetGlobal("obj", func() *named { return &named{"x"} }))
	must(t, e.SetGlobal("val", func() named { return named{"v"} }))
	must(t, e.SetGlobal("pt", func() point { return point{1, 2} }))
	stop := make(chan struct{})
	var reads atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var last zlua.Stats
		for {
			s := e.Stats()
			reads.Add(1)
			if s.GoCalls < last.GoCalls {
				t.Errorf("GoCalls went down: %d after %d", s.GoCalls, last.GoCalls)
			}
			if s.LuaBytes > s.LuaPeakBytes && s.LuaPeakBytes != 0 {
				t.Errorf("LuaBytes %d above the peak %d", s.LuaBytes, s.LuaPeakBytes)
			}
			last = s
			select {
			case <-stop:
				return
			default:
			}
		}
	}()
	for i := range 200 {
		run(t, e, `local s = 0
			for i = 1, 50 do s = add(s, i) end
			local keep = {}
			for i = 1, 20 do keep[i] = obj(); keep[i + 20] = val(); keep[i + 40] = pt() end
			local f = function() end
			t = {f = f}`)
		var fn *zlua.Function
		must(t, e.GetFunction("add", &fn))
		fn.Release()
		if i%50 == 49 {
			e.Reset(func(e *zlua.Env) error {
				must(t, e.SetGlobal("add", func(a, b int) int { return a + b }))
				must(t, e.SetGlobal("obj", func() *named { return &named{"x"} }))
				must(t, e.SetGlobal("val", func() named { return named{"v"} }))
				return e.SetGlobal("pt", func() point { return point{1, 2} })
			})
		}
		must(t, e.Pump())
	}
	for reads.Load() < 100 { // make sure the reader overlapped the Close below
		run(t, e, `x = 1`)
	}
	must(t, e.Close())
	close(stop)
	wg.Wait()
	if s := e.Stats(); s.LuaBytes != 0 || s.GoCalls < 200*50 {
		t.Errorf("Stats after Close: %+v", s)
	}
	if err := e.DoString(`x = 1`); !errors.Is(err, zlua.ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
}
