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
// error later calls return and the goroutines that died (the first, and
// those a finalizer ended while closeLua ran), whose remaining deferred
// recoveries and cleanups must not take the Goexit for a new one nor
// touch the state. It is never changed, only replaced.
type abandonment struct {
	err   error
	goids []uint64
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
	if g.closing {
		g.abandonClosing(what)
		return
	}
	if g.abandoned.Load() != nil {
		return
	}
	a := &abandonment{
		err:   fmt.Errorf("%w (%s called it)", ErrAbandoned, what),
		goids: []uint64{curGoroutine()},
	}
	g.abandoned.Store(a)
	g.lf.m, g.lf.broke = nil, false
	g.abandonLimits(0)
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
	if a == nil {
		return false
	}
	id := curGoroutine()
	for _, d := range a.goids {
		if d == id {
			return true
		}
	}
	return false
}

// unwinding reports whether the caller is a goroutine whose Goexit
// abandoned a Lua call of the gate, running its deferred calls: it must
// leave the state alone (another goroutine may be closing it). Anyone
// else, the goroutine closing an abandoned state included, is served as
// usual. One atomic load unless the gate was abandoned.
func (g *Gate) unwinding() bool { return g.dead() && g.dyingHere() }

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
	g.lockThread() // as Hold: finalizers calling Go nest on this thread
	return true
}

// CloseAbandoned frees the state of an abandoned gate claimed with
// ClaimAbandoned. lua_close is safe after the abandoned frames (docs/
// ARCHITECTURE.md, "Goexit"): both backends unwind the main thread's
// frames themselves and run every __gc in a fresh protected call; the C
// env first forgets what pointed into the dead frames. The Go side starts
// from the main thread at depth one (the claim), as Close does.
func (g *Gate) CloseAbandoned() error {
	if !g.Closed() {
		g.S.Abandoned()
		g.cur = g.S.Main()
	}
	g.deep = 1
	g.callRes = nil // freed with the state; the depths of the dead frames are gone
	err := g.Teardown()
	g.dropThread()
	g.deep = 0
	g.busy.Store(gateClosed)
	return err
}

// closeLua runs lua_close (S.CloseLua: every __gc, Lua 5.4's pending
// to-be-closed variables, warnings) for the holder of the claim, on a
// goroutine of its own, so that a Go function those run which calls
// runtime.Goexit (a __gc function, the Warn sink) ends that goroutine
// instead of the caller's: the caller then forgets what the dead frames
// left (as CloseAbandoned does) and runs lua_close again, which carries
// on where the dead call stopped (docs/ARCHITECTURE.md, "Goexit during
// Close"), until it returns. It returns nil, or ErrAbandoned naming the
// first function that called Goexit. The goroutine is locked to its
// thread and recorded as the owner's, so finalizers calling Go nest as
// on the caller's; the caller waits for it to end (its deferred calls
// included) before it goes on, so nothing of the dead call runs
// afterwards.
func (g *Gate) closeLua() error {
	owner := g.cbTID.Load()
	deep, prev := g.deep, g.abandoned.Load()
	g.closing = true
	g.closeLimits = len(g.limits) // the closing goroutine's begin here
	for !g.closeLuaOnce(owner) {
		g.S.Abandoned()
		g.cur = g.S.Main()
		g.deep = deep
		g.lf.m, g.lf.broke = nil, false
	}
	g.closing = false
	// Every goroutine that died here has ended: the mark goes back to
	// what it was (none, unless an earlier Goexit abandoned the gate).
	g.abandoned.Store(prev)
	err := g.closeErr
	g.closeErr = nil
	return err
}

// closeLuaOnce runs S.CloseLua on a new goroutine and reports whether it
// returned (false: a Go function it ran called runtime.Goexit). The
// goroutine names its thread the owner's for the time it is locked to it,
// and gives the name back to owner (the caller's, locked and waiting)
// before it unlocks: another goroutine scheduled on that thread
// afterwards must not pass for the owner (cgo.OnThread).
func (g *Gate) closeLuaOnce(owner uintptr) bool {
	done := make(chan bool)
	go func() {
		returned := false
		defer func() {
			g.cbTID.Store(owner)
			runtime.UnlockOSThread()
			done <- returned
		}()
		runtime.LockOSThread()
		g.cbTID.Store(cgo.ThreadID())
		g.S.CloseLua()
		returned = true
	}()
	return <-done
}

// abandonClosing is abandon for a Goexit while closeLua runs: the error
// Close will return is the first one; the dying goroutine joins the mark
// so that its deferred calls leave the state alone; the claim stays with
// closeLua's caller (busy unchanged), which goes on once the goroutine
// has ended.
func (g *Gate) abandonClosing(what string) {
	if g.closeErr == nil {
		g.closeErr = fmt.Errorf("%w (%s called it while the state was closing)", ErrAbandoned, what)
	}
	a := &abandonment{err: g.closeErr}
	if old := g.abandoned.Load(); old != nil {
		a.err = old.err
		a.goids = append(a.goids, old.goids...)
	}
	a.goids = append(a.goids, curGoroutine())
	g.abandoned.Store(a)
	g.abandonLimits(g.closeLimits)
}

// RestoreTop is t.SetTop(top) for an API call's deferred cleanup: skipped
// when the gate was abandoned under the call (the state may be closing
// on another goroutine).
func (g *Gate) RestoreTop(t cgo.Thread, top int) {
	if !g.unwinding() {
		t.SetTop(top)
	}
}

// progRestore is S.ProgRestore(saved) for a deferred cleanup, skipped
// like RestoreTop.
func (g *Gate) progRestore(saved cgo.SavedProg) {
	if !g.unwinding() {
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
