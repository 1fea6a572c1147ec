package callbackgate

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"

	"github.com/zlua-go/zlua/cgo"
)

// ErrAbandoned reports an Env whose Lua call a Go function abandoned with
// runtime.Goexit (t.FailNow or t.Skip in a test callback, for one): the
// C frames of that call never returned, so the state cannot run Lua again.
// Every later call returns it (wrapped with the function's name); Close
// still frees the state.
var ErrAbandoned = errors.New("zlua: env abandoned: a Go function called runtime.Goexit inside a Lua call")

// abandonment is what the gate keeps of the Goexit that broke it: the
// error later calls return and the goroutine that died, whose remaining
// deferred recoveries must not take the Goexit for a new one.
type abandonment struct {
	err  error
	goid uint64
}

// abandon marks the gate broken after a Go function called
// runtime.Goexit inside a Lua call (what is Lua-facing names the function,
// e.g. "go function 'f'"), and releases the claim so that every later call
// from any goroutine fails at once with the error, and Close can free the
// state. It runs in the dying goroutine's first deferred recovery, on the
// owner's claim; the Go frames that goroutine still unwinds (the API
// calls under the Lua call) find the mark and touch nothing (Exit,
// restoreTop). A Goexit on a gate already abandoned (a __gc function
// Close runs) keeps the first mark.
func (g *Gate) abandon(what string) {
	if g.abandoned.Load() != nil {
		return
	}
	a := &abandonment{
		err:  fmt.Errorf("%w (%s called it)", ErrAbandoned, what),
		goid: curGoroutine(),
	}
	g.abandoned.Store(a)
	g.lf.m, g.lf.broke = nil, false
	g.dropThread() // the goroutine may die unlocked: its thread lives on
	// A gate abandoned is never unregistered: the dying goroutine's outer
	// recoveries still look it up by id (they find the mark), so the id
	// must not pass to a new Env.
	g.busy.Store(gateAbandoned)
}

// dyingHere reports whether the calling goroutine is the one whose Goexit
// abandoned the gate (its outer recoveries, unwinding).
func (g *Gate) dyingHere() bool {
	a := g.abandoned.Load()
	return a != nil && a.goid == curGoroutine()
}

// Abandoned returns the error of an abandoned gate, nil otherwise. Any
// goroutine may call it.
func (g *Gate) Abandoned() error {
	if a := g.abandoned.Load(); a != nil {
		return a.err
	}
	return nil
}

// dead reports whether the gate was abandoned: the dying goroutine's
// deferred API frames then leave the state alone (another goroutine may be
// closing it).
func (g *Gate) dead() bool { return g.abandoned.Load() != nil }

// ClaimAbandoned takes an abandoned gate for Close. It fails when the gate
// is not abandoned, or while another Close holds it.
func (g *Gate) ClaimAbandoned() bool {
	if !g.busy.CompareAndSwap(gateAbandoned, gateClaimed) {
		return false
	}
	runtime.LockOSThread() // as Hold: finalizers calling Go nest on this thread
	g.cbTID.Store(cgo.ThreadID())
	return true
}

// CloseAbandoned frees the state of an abandoned gate claimed with
// ClaimAbandoned. lua_close is safe after the abandoned frames (docs/
// ARCHITECTURE.md, "Goexit"): both backends unwind the main thread's
// frames themselves and run every __gc in a fresh protected call; the C
// env first forgets what pointed into the dead frames. The Go side starts
// from the main thread at depth one (the claim), as Close does.
func (g *Gate) CloseAbandoned() {
	if !g.Closed() {
		g.S.Abandoned()
		g.cur = g.S.Main()
	}
	g.deep = 1
	g.callRes = nil // freed with the state; the depths of the dead frames are gone
	g.Teardown()
	g.dropThread()
	g.deep = 0
	g.busy.Store(gateClosed)
}

// RestoreTop is t.SetTop(top) for an API call's deferred cleanup: skipped
// when the gate was abandoned under the call (the state may be closing
// on another goroutine).
func (g *Gate) RestoreTop(t cgo.Thread, top int) {
	if !g.dead() {
		t.SetTop(top)
	}
}

// progRestore is S.ProgRestore(saved) for a deferred cleanup, skipped
// like RestoreTop.
func (g *Gate) progRestore(saved cgo.SavedProg) {
	if !g.dead() {
		g.S.ProgRestore(saved)
	}
}

// curGoroutine returns the calling goroutine's id, read from the header of
// its stack trace ("goroutine 18 [running]:"). Only the Goexit paths use
// it; ids are never reused.
func curGoroutine() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	const prefix = "goroutine "
	if len(b) < len(prefix) {
		return 0
	}
	b = b[len(prefix):]
	n := 0
	for n < len(b) && b[n] >= '0' && b[n] <= '9' {
		n++
	}
	id, _ := strconv.ParseUint(string(b[:n]), 10, 64)
	return id
}
