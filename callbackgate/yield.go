package callbackgate

import (
	"runtime"
	"time"

	"github.com/zlua-go/zlua/cgo"
)

// yieldEvery is how long Lua→Go calls may go on without the goroutine
// passing through the Go scheduler before dispatch yields it
// (runtime.Gosched) inside a call. With the checks about 1 ms apart
// (checkEvery) it yields within 8 ms, below the runtime's 10 ms
// preemption bound, so the runtime's sysmon thread never finds the
// goroutine's processor on the same scheduling round twice 10 ms apart.
//
// Why: a goroutine that runs Lua is inside one cgo call, and Lua's calls
// into Go are callbacks, which never pass through the scheduler. Once
// sysmon has seen its processor on the same round for 10 ms it takes the
// processor at every one of its wakeups, and it wakes every 20 µs for as
// long as it keeps taking processors. With every core running such a
// goroutine (parallel Envs), each wakeup preempts one of them: they lost
// 10-20 % of their time to sysmon on the two-core machine
// (docs/ARCHITECTURE.md, "Yielding to the Go scheduler").
const yieldEvery = 7 * time.Millisecond

// yieldAtExit is how long after the thread's last yield a yield becomes
// due; the outermost API call's return takes a due one (exitOutermost),
// where an unlocked goroutine yields for 116–143 ns (about 10 µs when the
// runtime wakes an idle processor for it). Inside a callback the
// goroutine is locked to its thread and a yield costs tens of
// microseconds (the runtime hands the processor to another thread and
// back), so a check there yields only at yieldEvery, or earlier when the
// checks are so far apart that the next would come too late: runs of
// short calls yield at their returns, one long call inside it. The 3 ms
// between the two leave room for a check that comes late.
const yieldAtExit = 4 * time.Millisecond

// checkEvery is how often, in time, the scheduler check should run while
// Lua calls Go: the tick (how many calls pass between two checks) is set
// at each check from the calls' density since the previous one, between
// minTick and maxTick calls, and at most twice the last tick: a check that
// lands inside a burst of calls sees a density the calls do not keep up,
// and a tick set from it alone would skip the next bursts' checks.
const (
	checkEvery = time.Millisecond
	minTick    = 1
	maxTick    = 1 << 16
)

// monoBase anchors the monotonic clock yield reads: time.Since of a
// time.Now taken at init reads the runtime's monotonic clock alone.
var monoBase = time.Now()

// yield is the scheduler check. dispatchSlow calls it when the tick set
// here ran out (C raised the queue word S.Queued tests: zlua_count_call
// in cgo/zlua.h) and whenever a __gc queued something; LuaJIT's leaf
// calls run it in leafDispatch. It sets the next tick so that the next
// check comes about checkEvery later, and measures the run from the
// thread's last yield (cgo.ThreadYieldAt: shared by every Env this
// goroutine drives): a yield is due at the outermost return after
// yieldAtExit, and taken here, inside the call, after yieldEvery or when
// the next check, as far away as the last one, would come after
// yieldEvery+checkEvery.
func (g *Gate) yield() {
	now := time.Since(monoBase)
	calls := g.S.OwnCalls()
	dt := now - g.tickAt
	tick := uint64(maxTick)
	if dt > 0 {
		tick = (calls - g.tickCalls) * uint64(checkEvery) / uint64(dt)
	}
	tick = max(min(tick, 2*g.tick, maxTick), minTick)
	g.tick = tick
	g.S.SetTick(uint32(tick))
	g.tickAt, g.tickCalls = now, calls
	exited := g.exits != g.exitsAtCheck
	g.exitsAtCheck = g.exits
	last := time.Duration(cgo.ThreadYieldAt())
	if last == 0 || exited && dt > yieldEvery {
		// The run starts here: this thread never yielded, or the
		// gate's calls stopped for longer than a run may last and the
		// goroutine left Lua meanwhile (a frame loop between frames):
		// what it did then is not this run's.
		cgo.SetThreadYieldAt(int64(now))
		return
	}
	since := now - last
	if since < yieldAtExit {
		return
	}
	if since < yieldEvery && since+dt < yieldEvery+checkEvery {
		g.yieldDue = true
		return
	}
	g.yieldDue = false
	g.yields.Add(1)
	g.yieldsInCall++
	runtime.Gosched()
	// The run starts again when the goroutine is back: other goroutines
	// may have had the processor for a while, which is no run of this
	// one's (the goroutine is locked to its thread inside a call, so the
	// thread is the same).
	back := time.Since(monoBase)
	cgo.SetThreadYieldAt(int64(back))
	g.tickAt = back
}

// takeYield is the outermost return's part when a yield is due: it
// consumes it before the gate is released and reports whether the caller
// yields after, holding nothing (then NoteThreadYield: the goroutine may
// come back on another thread). It does not when another Env yielded on
// this thread since the yield was made due (one goroutine driving many
// Envs yields once for all of them).
//
//go:noinline
func (g *Gate) takeYield() bool {
	g.yieldDue = false
	now := time.Since(monoBase)
	if now-time.Duration(cgo.ThreadYieldAt()) < yieldAtExit {
		return false
	}
	g.yields.Add(1)
	return true
}

// YieldsInCalls is how many of the gate's yields were taken inside a
// Lua→Go call rather than at an outermost return (a test hook).
func (g *Gate) YieldsInCalls() uint64 { return g.yieldsInCall }

// NoteThreadYield records a yield to the Go scheduler on the calling
// thread now: exitOutermost calls it after its yield, on the thread the
// goroutine came back on (tests call it to stand for another Env's
// yield).
func NoteThreadYield() { cgo.SetThreadYieldAt(int64(time.Since(monoBase))) }
