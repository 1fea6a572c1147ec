package zlua

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
)

// TestMain fails the run when a test leaves an Env open: its Lua state,
// Go function table and refs would leak. It prints where each was created.
func TestMain(m *testing.M) {
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
	if len(leaks) > 0 && code == 0 {
		fmt.Fprintf(os.Stderr, "zlua: %d Env(s) leaked (not closed):\n%s\n", len(leaks), strings.Join(leaks, "\n"))
		code = 1
	}
	os.Exit(code)
}

// stackTop returns the top of the stack Env methods would use now.
func (e *Env) stackTop() int { return e.g.Current().Top() }
