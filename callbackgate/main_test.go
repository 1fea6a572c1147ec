package callbackgate

import (
	"fmt"
	"os"
	"testing"

	"github.com/zlua-go/zlua/objreg"
)

// TestMain fails the run when a test of this package left a gate open, a
// Lua reference held, a context watcher registered or an object pinned.
func TestMain(m *testing.M) {
	code := m.Run()
	var leaks []string
	if p := gates.Load(); p != nil {
		for _, g := range *p {
			if g != nil {
				leaks = append(leaks, "a gate was never closed")
			}
		}
	}
	if n := HeldRefs(); n != 0 {
		leaks = append(leaks, fmt.Sprintf("%d Lua reference(s) still held", n))
	}
	if n := LiveWatchers(); n != 0 {
		leaks = append(leaks, fmt.Sprintf("%d context watcher(s) still registered", n))
	}
	if n := objreg.LivePins(); n != 0 {
		leaks = append(leaks, fmt.Sprintf("%d Go object(s) still pinned", n))
	}
	if len(leaks) > 0 && code == 0 {
		fmt.Fprintln(os.Stderr, "leaks:", leaks)
		code = 1
	}
	os.Exit(code)
}
