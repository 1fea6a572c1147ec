package zlua_test

import (
	"fmt"
	"testing"

	"github.com/zlua-go/zlua"
)

// TestLibraryRecursionOnASmallThreadStack runs the library recursions of
// TestLibraryRecursionStopsWithCStackOverflow, and os.time through an
// __index that calls os.time, on a C thread with a 512 KiB stack (a host's
// thread, or any thread under `ulimit -s 512`), with and without a memory
// limit: each ends with "C stack overflow" and the Env stays usable. The
// thread's end bounds them (cstack.c, thread_floor); os.time has its
// wrapper since h25: before it, the os.time row killed the process with
// SIGSEGV on LuaJIT (as stock luajit under `ulimit -s 512` does), every
// Libs and limit alike.
func TestLibraryRecursionOnASmallThreadStack(t *testing.T) {
	cases := append(cstackRecursions[:len(cstackRecursions):len(cstackRecursions)], struct {
		name, chunk string
		safe        bool
	}{"os.time through __index", `
		local t = setmetatable({}, {__index = function(t, k) return os.time(t) end})
		MSG = select(2, pcall(os.time, t))`, true})
	for _, libs := range []zlua.Libs{zlua.LibsAll, zlua.LibsSafe} {
		for _, limit := range []int64{0, 64 << 20} {
			for _, c := range cases {
				if libs == zlua.LibsSafe && !c.safe {
					continue
				}
				t.Run(fmt.Sprintf("libs%d/limit%d/%s", libs, limit, c.name), func(t *testing.T) {
					e := newEnvWith(t, zlua.Options{Libs: libs, MemoryLimit: limit})
					var err error
					if rc := zlua.OnStackOf(512<<10, func() { err = e.DoString(c.chunk) }); rc != 0 {
						t.Fatalf("thread with a 512 KiB stack: pthread error %d", rc)
					}
					must(t, err)
					if msg := global[string](t, e, "MSG"); !stackStopped(libs, c.name, msg) {
						t.Errorf("message %.200q, want C stack overflow", msg)
					}
					run(t, e, `MSG = nil x = os.time() + 1`)
				})
			}
		}
	}
}
