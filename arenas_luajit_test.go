//go:build luajit

package zlua_test

import (
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
	"github.com/zlua-go/zlua/cgo"
)

// openEnvs opens n Envs (each ran script), for the arena tests.
func openEnvs(t *testing.T, n int, script string) []*zlua.Env {
	t.Helper()
	es := make([]*zlua.Env, n)
	for i := range es {
		e, err := zlua.New(zlua.Options{})
		must(t, err)
		run(t, e, script)
		es[i] = e
	}
	return es
}

func closeEnvs(t *testing.T, es []*zlua.Env) {
	t.Helper()
	for _, e := range es {
		must(t, e.Close())
	}
}

// TestClosedSmallEnvsLeaveTheirArenaToTheNext: on a GC64 LuaJIT a closed
// state whose heap stayed under 1 MiB leaves its arena's mapped pages to
// the next state (up to 8 wait), so New after Close does not fault them
// in again (outside probe C2-F9: New+Close took 1.1-1.3 ms). A state
// that grew past 1 MiB gives its arena back at once. A state made over a
// spare arena counts its heap from zero as one made over a new arena.
func TestClosedSmallEnvsLeaveTheirArenaToTheNext(t *testing.T) {
	if !cgo.OwnAllocator() {
		t.Skip("this LuaJIT is built without GC64: states use its own allocator (docs/ARCHITECTURE.md)")
	}
	const small = `x = {} for i = 1, 100 do x[i] = i end`
	// Ten open Envs take every spare arena there was, and more.
	es := openEnvs(t, 10, small)
	if n := cgo.SpareArenas(); n != 0 {
		t.Fatalf("with 10 Envs open, %d arenas wait (want 0)", n)
	}
	fresh := es[9].Stats().LuaBytes
	closeEnvs(t, es)
	if n := cgo.SpareArenas(); n != 8 {
		t.Fatalf("after closing 10 small Envs, %d arenas wait (want 8, the most kept)", n)
	}

	// An Env made over a spare arena counts what a new arena's does.
	e, err := zlua.New(zlua.Options{})
	must(t, err)
	if n := cgo.SpareArenas(); n != 7 {
		t.Errorf("New took no spare arena: %d wait (want 7)", n)
	}
	run(t, e, small)
	if got := e.Stats().LuaBytes; got != fresh {
		t.Errorf("heap over a spare arena: %d bytes; over a new one: %d", got, fresh)
	}
	// The reused arena works as a new one: a workload, a limit, a Reset.
	run(t, e, `local t = {} for i = 1, 20000 do t[i] = {i, tostring(i)} end
		local s = 0 for i = 1, 20000 do s = s + t[i][1] end assert(s == 200010000)`)
	must(t, e.Close())

	// Drain the spares, then close a big Env: its arena is not kept.
	es = openEnvs(t, 8, small)
	if n := cgo.SpareArenas(); n != 0 {
		t.Fatalf("with 8 Envs open, %d arenas wait (want 0)", n)
	}
	big, err := zlua.New(zlua.Options{})
	must(t, err)
	run(t, big, `big = {} for i = 1, 100000 do big[i] = {i} end`)
	if p := big.Stats().LuaPeakBytes; p <= 1<<20 {
		t.Fatalf("the big Env's heap peaked at %d bytes, under 1 MiB", p)
	}
	must(t, big.Close())
	if n := cgo.SpareArenas(); n != 0 {
		t.Errorf("a closed Env whose heap passed 1 MiB left its arena: %d wait", n)
	}
	closeEnvs(t, es)
	if n := cgo.SpareArenas(); n != 8 {
		t.Errorf("after closing 8 small Envs, %d arenas wait (want 8)", n)
	}
}

// TestEnvsOverSpareArenasRunUnderALimit: a state over a spare arena
// enforces its memory limit from its own first byte (the arena's earlier
// blocks are not counted, nor do they count against it).
func TestEnvsOverSpareArenasRunUnderALimit(t *testing.T) {
	if !cgo.OwnAllocator() {
		t.Skip("this LuaJIT is built without GC64")
	}
	closeEnvs(t, openEnvs(t, 2, `x = 1`))
	if cgo.SpareArenas() == 0 {
		t.Fatal("no spare arena after closing two small Envs")
	}
	e, err := zlua.New(zlua.Options{MemoryLimit: 512 << 10})
	must(t, err)
	defer e.Close()
	err = e.DoString(`local t = {} for i = 1, 1e6 do t[i] = {i} end`)
	if err == nil || !strings.Contains(err.Error(), "not enough memory") {
		t.Fatalf("a script past a 512 KiB limit over a spare arena: %v", err)
	}
	run(t, e, `y = {} for i = 1, 100 do y[i] = i end assert(#y == 100)`)
}
