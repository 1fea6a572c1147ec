package zlua_test

import (
	"errors"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
	"github.com/zlua-go/zlua/cgo"
)

// residentKB is the process's resident set (/proc/self/statm), in KiB.
func residentKB(t *testing.T) int64 {
	t.Helper()
	runtime.GC()
	debug.FreeOSMemory()
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skipf("no /proc/self/statm: %v", err)
	}
	f := strings.Fields(string(b))
	pages, err := strconv.ParseInt(f[1], 10, 64)
	must(t, err)
	return pages * int64(os.Getpagesize()) / 1024
}

// TestClosedEnvsGiveTheirMemoryBack: an Env closed, or reset, leaves no
// memory behind. On LuaJIT the state used to be made with LuaJIT's own
// allocator wrapped by zlua's, and lua_close destroys that allocator's
// arena only when the state's allocator is still its own: every Close and
// every Reset kept its arena resident (this loop: +200 MB). On a GC64
// LuaJIT the arena now belongs to a bare state closed after the Env's.
func TestClosedEnvsGiveTheirMemoryBack(t *testing.T) {
	if !cgo.OwnAllocator() {
		t.Skip("this LuaJIT is built without GC64: states use its own allocator, whose arena lua_close keeps (docs/ARCHITECTURE.md)")
	}
	const script = `local t = {} for i = 1, 2000 do t[i] = {x = i} end
		local s = 0 for i = 1, 2000 do s = s + t[i].x end assert(s == 2001000)`
	cycle := func(n int) {
		for i := 0; i < n; i++ {
			e, err := zlua.New(zlua.Options{})
			must(t, err)
			run(t, e, script)
			e.Reset(func(e *zlua.Env) error { return e.DoString(script) })
			must(t, e.Pump())
			must(t, e.Close())
		}
	}
	cycle(30) // the allocators' and the runtime's working sets
	before := residentKB(t)
	cycle(300)
	grown := residentKB(t) - before
	t.Logf("resident set after 300 more Envs (each reset once): %+d KB", grown)
	if grown > 12<<10 {
		t.Errorf("closing and resetting 300 Envs kept %d KB resident", grown)
	}
}

// TestRefusedHeapHeldByGoIsCollectedOnceReleased (outside probe G1-F4): a
// script fills the memory limit with tables Go keeps; an ordinary call
// follows (the collection after the refusal finds them live); Go then
// releases them and pumps. The next script call succeeds: on LuaJIT,
// which refuses without collecting, the release makes that call collect
// first.
func TestRefusedHeapHeldByGoIsCollectedOnceReleased(t *testing.T) {
	e, err := zlua.New(zlua.Options{MemoryLimit: 2 << 20})
	must(t, err)
	defer e.Close()
	var kept []*zlua.Table
	must(t, e.SetGlobal("keep", func(tb *zlua.Table) { kept = append(kept, tb) }))
	if err := e.DoString(`while true do keep({1, 2, 3, 4}) end`); !errors.Is(err, zlua.ErrMemory) {
		t.Fatalf("filling the limit: %v, want ErrMemory", err)
	}
	var v any
	must(t, e.Global("nothing", &v))
	for _, tb := range kept {
		tb.Release()
	}
	kept = nil
	must(t, e.Pump())
	for i := 0; i < 3; i++ {
		if err := e.DoString(`x = {}`); err != nil {
			t.Fatalf("call %d after the handles were released: %v", i+1, err)
		}
	}
}
