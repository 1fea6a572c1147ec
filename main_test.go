package zlua

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/zlua-go/zlua/callbackgate"
	"github.com/zlua-go/zlua/objreg"
)

// TestMain fails the run when a test leaves an Env open (its Lua state, Go
// function table and refs would leak; it prints where each was created),
// when a closed Env still had live object slots after lua_close ran every
// __gc, or when a Go object is still pinned once every Env is closed.
func TestMain(m *testing.M) {
	if name := os.Getenv(helperEnv); name != "" {
		os.Exit(runHelper(name))
	}
	code := m.Run()
	var leaks []string
	openEnvs.Range(func(k, _ any) bool {
		e := k.(*Env)
		var b strings.Builder
		frames := runtime.CallersFrames(e.created)
		for {
			f, more := frames.Next()
			fmt.Fprintf(&b, "\n\t%s:%d", f.File, f.Line)
			if !more {
				break
			}
		}
		leaks = append(leaks, "Env created at"+b.String())
		return true
	})
	if n := heldRefsAfterGC(); n != 0 {
		leaks = append(leaks, fmt.Sprintf("%d Lua reference(s) held by Function/Table/Thread handles or error values were never released nor collected", n))
	}
	if n := leakedSlots.Load(); n > 0 {
		leaks = append(leaks, fmt.Sprintf("%d object slot(s) or struct companion(s) still live after Close ran every __gc", n))
	}
	if n := callbackgate.LiveWatchers(); n != 0 {
		leaks = append(leaks, fmt.Sprintf("%d context watcher(s) of limited calls still registered after every Env closed", n))
	}
	if n := objreg.LivePins(); n != 0 {
		leaks = append(leaks, fmt.Sprintf("%d Go object(s) still pinned after every Env closed", n))
	}
	if len(leaks) > 0 && code == 0 {
		fmt.Fprintf(os.Stderr, "zlua: leaks:\n%s\n", strings.Join(leaks, "\n"))
		code = 1
	}
	os.Exit(code)
}

// heldRefsAfterGC returns the references still owned by Go handles once
// every test is over and the collector ran their cleanups: nonzero means a
// reference was lost (created without an owner that would give it back)
// or a handle is kept alive by zlua itself. Cleanups run on their own
// goroutine, so it waits for them.
func heldRefsAfterGC() int64 {
	n := callbackgate.HeldRefs()
	for deadline := time.Now().Add(5 * time.Second); n != 0 && time.Now().Before(deadline); n = callbackgate.HeldRefs() {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	return n
}

// stackTop returns the top of the stack Env methods would use now.
func (e *Env) stackTop() int { return e.g.Current().Top() }
