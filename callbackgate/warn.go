package callbackgate

import (
	"fmt"
	"os"

	"github.com/zlua-go/zlua/cgo"
)

func init() { cgo.SetWarnHandler(deliverWarning) }

// SetWarn sets the function receiving the state's warnings (nil: stderr).
// Call OpenWarnings on each new state.
func (g *Gate) SetWarn(f func(string)) { g.warn = f }

// OpenWarnings installs the warning function on the current state.
func (g *Gate) OpenWarnings() { g.S.OpenWarnings(g.warn != nil) }

// deliverWarning calls the Env's sink. A panic in it must not unwind
// through the Lua call that warned: it is reported on stderr instead.
func deliverWarning(goid uintptr, msg string) {
	g := (*gates.Load())[goid]
	if g == nil || g.warn == nil {
		return
	}
	returned := false
	defer func() {
		if returned {
			return
		}
		if r := recover(); r != nil {
			// ValueText: a panic printing r would unwind through the Lua
			// call that warned.
			fmt.Fprintf(os.Stderr, "zlua: warning function panicked: %s (warning: %s)\n", ValueText(r), msg)
		} else if !g.dyingHere() { // runtime.Goexit: the warning's frames never return
			g.abandon("the warning function")
		}
	}()
	g.warn(msg)
	returned = true
}
