package callbackgate

import (
	"runtime"

	"github.com/zlua-go/zlua/cgo"
)

// Who holds the gate: a claim (Close, Reset, Pump), a hold (a Go-side
// session on the owner's thread), a Done's read (Peek), and why a claim
// fails.

// Claim takes the gate for an operation that must not run while Lua code
// of this state runs (Close, Reset, Pump): ErrBusy from inside a Go
// function that Lua called, ErrConcurrentUse from another goroutine,
// ErrClosed once the gate is closed. Unclaim releases it.
func (g *Gate) Claim() error {
	if g.busy.CompareAndSwap(gateIdle, gateClaimed) {
		return nil
	}
	claimed, err := g.claimAfterPeek(ErrBusy)
	if claimed {
		return nil
	}
	return err
}

// claimAfterPeek is claimFailed, except that while a Thread.Done of
// another goroutine holds the gate for its one read (gatePeeking), or
// once it gave it back, the claim is tried again instead of failing with
// ErrConcurrentUse: a goroutine polling Done must not make the owner's
// calls fail (outside probe E1-F5). claimed reports a claim taken here.
func (g *Gate) claimAfterPeek(nested error) (claimed bool, err error) {
	waiting := false
	defer func() {
		if waiting {
			g.claimWait.Add(-1)
		}
	}()
	for {
		if err = g.claimFailed(nested); err != ErrConcurrentUse {
			return false, err
		}
		switch g.busy.Load() {
		case gatePeeking:
			if !waiting { // later Peeks give way until the claim is won
				waiting = true
				g.claimWait.Add(1)
			}
			// A Done's read lasts about one cgo call: wait for it here
			// rather than behind every runnable goroutine (Gosched), unless
			// its goroutine was descheduled in the middle.
			for i := 0; i < peekSpin && g.busy.Load() == gatePeeking; i++ {
			}
			if g.busy.Load() == gatePeeking {
				runtime.Gosched()
			}
		case gateIdle: // given back since the claim failed
		default:
			return false, err
		}
		if g.busy.CompareAndSwap(gateIdle, gateClaimed) {
			return true, nil
		}
	}
}

// peekSpin bounds the loads a claim makes waiting for a Done's read to
// end before it yields the processor (a few microseconds).
const peekSpin = 2000

// Peek runs read, which runs no Lua code, for a goroutine that may not
// own the gate (Thread.Done): under a claim of its own that makes others
// wait (gatePeeking), or inside the owner's call when the caller is its
// goroutine. It reports false, without running read, when another
// goroutine holds the gate, err telling why (ErrClosed once closed), and
// when a claim waits for an earlier Peek to end (claimWait): the owner
// goes first.
func (g *Gate) Peek(read func()) (ran bool, err error) {
	if g.claimWait.Load() == 0 && g.busy.CompareAndSwap(gateIdle, gatePeeking) {
		defer g.busy.Release(gateIdle)
		read()
		return true, nil
	}
	if err := g.claimFailed(nil); err != nil {
		return false, err
	}
	read() // nested: the caller's goroutine owns the gate
	return true, nil
}

// claimFailed says why a CAS on the owner word failed: the gate is closed,
// the caller runs inside a Go function Lua called (nested is returned,
// nil for Enter), or another goroutine owns it. Only atomics are read.
func (g *Gate) claimFailed(nested error) error {
	if cgo.OnThread(g.cbTID.addr()) {
		if err := g.leafRefusal(); err != nil {
			return err // a leaf method broke its promise (leaf.go)
		}
		return nested
	}
	if g.busy.Load() == gateClosed {
		return ErrClosed
	}
	if a := g.abandoned.Load(); a != nil {
		return a.err
	}
	if t := g.warnTID.Load(); t != 0 && t == cgo.ThreadID() {
		return errWarnUse
	}
	return ErrConcurrentUse
}

// Unclaim releases a Claim.
func (g *Gate) Unclaim() {
	g.dropThread()
	g.busy.Release(gateIdle)
}

// Hold claims the gate for a Go-side session (Close or Pump running posted
// functions, Reset rebuilding the state): until Release, the calling
// goroutine is locked to its OS thread and recorded as the owner's thread,
// so its own API calls nest (Enter succeeds) while every other goroutine
// gets ErrConcurrentUse, and a Hold from inside returns ErrBusy.
func (g *Gate) Hold() error {
	if err := g.Claim(); err != nil {
		return err
	}
	g.lockThread()
	g.deep++
	return nil
}

// lockThread locks the calling goroutine to its OS thread and records the
// thread as the owner's, until dropThread (Hold, ClaimAbandoned).
func (g *Gate) lockThread() {
	runtime.LockOSThread() // before ThreadID: the goroutine may not move after it
	g.locked = true
	g.cbTID.Store(cgo.ThreadID())
}

// Release ends Hold. Unless the gate was closed meanwhile (CloseClaimed),
// it settles and lets go of the claim like the outermost Exit.
func (g *Gate) Release() {
	if g.busy.Load() != gateClosed {
		g.Exit()
	}
}

// dropThread ends what lockThread started, and forgets a thread a Go
// function left recorded when it called runtime.Goexit (abandon): the
// owner's thread is forgotten and its goroutine unlocked. The store comes
// before the unlock: once another goroutine can run on the thread, cbTID
// no longer names it. At an outermost Exit outside Hold there is nothing
// to do: the callbacks cleared their record when they returned.
func (g *Gate) dropThread() {
	if g.cbTID.Load() != 0 {
		g.cbTID.Release(0)
	}
	if g.locked {
		g.locked = false
		runtime.UnlockOSThread()
	}
}
