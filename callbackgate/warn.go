package callbackgate

import (
	"fmt"
	"os"

	"github.com/zlua-go/zlua/cgo"
)

func init() { cgo.SetWarnHandler(deliverWarning) }

// errWarnUse is the refusal of an Env call made by the Env's own Warn
// function: it runs inside the Lua call that warned, where the state is
// not idle. (Before, it was reported as the use of another goroutine.)
var errWarnUse = fmt.Errorf("%w (called from its Warn function, which runs inside the Lua call that warned)", ErrBusy)

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
	g.warnTID.Store(cgo.ThreadID()) // the goroutine is locked to it in the callback
	defer func() {
		g.warnTID.Store(0)
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
