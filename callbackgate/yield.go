package callbackgate

import (
	"runtime"
	"time"
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

// yieldAtExit is how long after the last yield a yield becomes due; the
// outermost API call's return takes a due one (exitOutermost), where an
// unlocked goroutine yields for 116–143 ns. Inside a
// callback the goroutine is locked to its thread and a yield costs tens
// of microseconds (the runtime hands the processor to another thread and
// back), so a check there yields only at yieldEvery: runs of short calls
// yield at their returns, one long call inside it. The 3 ms between the
// two leave room for a check that comes late.
const yieldAtExit = 4 * time.Millisecond

// checkEvery is how often, in time, the scheduler check should run while
// Lua calls Go: the tick (how many calls pass between two checks) is set
// at each check from the calls' density since the previous one, between
// minTick and maxTick calls.
const (
	checkEvery = time.Millisecond
	minTick    = 16
	maxTick    = 1 << 16
)

// monoBase anchors the monotonic clock yield reads: time.Since of a
// time.Now taken at init reads the runtime's monotonic clock alone.
var monoBase = time.Now()

// yield is the scheduler check. dispatchSlow calls it when the tick set
// here ran out (C raised the queue word S.Queued tests: zlua_count_call
// in cgo/zlua.h) and whenever a __gc queued something; LuaJIT's leaf
// calls run it in leafDispatch. It sets the next tick so that the next
// check comes about checkEvery later, marks a yield due after
// yieldAtExit, and lets other goroutines run if the gate's calls went on
// for yieldEvery since its last yield.
func (g *Gate) yield() {
	now := time.Since(monoBase)
	calls := g.S.OwnCalls()
	tick := uint64(maxTick)
	if dt := now - g.tickAt; dt > 0 {
		tick = (calls - g.tickCalls) * uint64(checkEvery) / uint64(dt)
	}
	g.S.SetTick(uint32(min(max(tick, minTick), maxTick)))
	g.tickAt, g.tickCalls = now, calls
	if g.yieldAt == 0 {
		g.yieldAt = now // the gate's first check: its run starts here
	}
	since := now - g.yieldAt
	if since < yieldAtExit {
		return
	}
	if since < yieldEvery {
		g.yieldDue = true
		return
	}
	g.yieldDue = false
	g.yieldAt = now
	g.yields.Add(1)
	g.yieldsInCall++
	runtime.Gosched()
}

// takeYield is the outermost return's part when a yield is due: it
// consumes it before the gate is released (the caller yields after,
// holding nothing).
//
//go:noinline
func (g *Gate) takeYield() {
	g.yieldDue = false
	g.yieldAt = time.Since(monoBase)
	g.yields.Add(1)
}

// YieldsInCalls is how many of the gate's yields were taken inside a
// Lua→Go call rather than at an outermost return (a test hook).
func (g *Gate) YieldsInCalls() uint64 { return g.yieldsInCall }
