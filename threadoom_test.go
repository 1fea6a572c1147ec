package zlua_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// TestAThreadThatDiesOfTheMemoryLimitLetsItsHeapGo: a Go-resumed thread
// that fails for memory while its locals hold the heap is closed as any
// failed thread is (Lua 5.4: its __close handlers run, its stack is let
// go), so the Env's next chunk runs. Before, taking the thread's traceback
// failed for memory first, the close was skipped, and every later call
// failed with "not enough memory" until Go released the handle. LuaJIT
// keeps a dead thread's stack (it has no close): there the heap comes back
// once the handle is released and a Pump let the ref go.
func TestAThreadThatDiesOfTheMemoryLimitLetsItsHeapGo(t *testing.T) {
	e := newEnvWith(t, zlua.Options{MemoryLimit: 16 << 20})
	jit := strings.HasPrefix(zlua.Backend, "LuaJIT")
	closer := `local t <close> = setmetatable({}, {__close = function() closed = true end})`
	if jit {
		closer = "" // no to-be-closed variables
	}
	var fn *zlua.Function
	must(t, e.Eval(`return function() `+closer+`
		local big = {}
		for i = 1, 1e8 do big[i] = {} end
	end`, &fn))
	defer fn.Release()
	th, err := e.NewThread(fn)
	must(t, err)
	defer th.Release()
	if _, err := th.Resume(); !errors.Is(err, zlua.ErrMemory) {
		t.Fatalf("Resume = %v, want ErrMemory", err)
	}
	if !th.Done() {
		t.Error("the failed thread is not done")
	}
	if jit {
		th.Release()
		must(t, e.Pump())
		if e.DoString(`x = 1`) != nil { // LuaJIT collects only after a failed allocation
			must(t, e.DoString(`x = 1`))
		}
		return
	}
	must(t, e.DoString(`x = 1; assert(closed, "the thread's __close did not run")`))
}
