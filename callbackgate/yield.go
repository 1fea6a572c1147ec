package callbackgate

import (
	"runtime"
	"time"
)

// yieldEvery is how long Lua→Go calls may go on without the goroutine
// passing through the Go scheduler before dispatch yields it
// (runtime.Gosched). It is below the runtime's 10 ms preemption bound, so
// the runtime's sysmon thread never finds the goroutine's processor on
// the same scheduling round twice 10 ms apart.
//
// Why: a goroutine that runs Lua is inside one cgo call, and Lua's calls
// into Go are callbacks, which never pass through the scheduler. Once
// sysmon has seen its processor on the same round for 10 ms it takes the
// processor at every one of its wakeups, and it wakes every 20 µs for as
// long as it keeps taking processors. With every core running such a
// goroutine (parallel Envs), each wakeup preempts one of them: they lost
// 10-20 % of their time to sysmon on the two-core machine
// (docs/ARCHITECTURE.md, "Yielding to the Go scheduler").
const yieldEvery = 5 * time.Millisecond

// monoBase anchors the monotonic clock yield reads: time.Since of a
// time.Now taken at init reads the runtime's monotonic clock alone.
var monoBase = time.Now()

// yield lets other goroutines run if the gate's calls went on for
// yieldEvery since its last yield. dispatchSlow calls it; the trampoline
// sends one call in ZLUA_TICK_CALLS (1024) down that path by raising the
// queue word S.Queued tests (zlua_count_call in cgo/zlua.h; a LuaJIT leaf
// call refuses while it is raised), so the clock is read once per that
// many calls, and whenever a __gc queued something.
func (g *Gate) yield() {
	now := time.Since(monoBase)
	if now-g.yieldAt < yieldEvery {
		return
	}
	g.yieldAt = now
	g.yields.Add(1)
	runtime.Gosched()
}
