package callbackgate

import (
	"fmt"
	"math"
	"runtime"

	"github.com/zlua-go/zlua/cgo"
)

// MaxCallDepth bounds the Go frames nested inside Lua calls (Go functions
// called from Lua plus Env calls made by them). Each level of Lua→Go→Lua
// recursion keeps C frames of the trampoline and the protected call on the
// thread's stack; LuaJIT does not bound them and crashes with the C stack
// exhausted (about 5500 levels with 8 MiB), Lua 5.4 stops near 100 levels
// with "C stack overflow". The gate refuses deeper calls first, the same
// way on both backends.
const MaxCallDepth = 160

const errCallsTooDeep = "stack overflow (too many nested Go calls)"

// dispatch is the gate handler: every Lua→Go call lands here.
func dispatch(fr cgo.Frame) (status int32) {
	g := (*gates.Load())[fr.GateID()]
	fnid := fr.FuncID()
	if int(fnid) >= len(g.funcs) { // never for a sentinel the trampoline accepted
		return g.raiseText("attempt to call a released Go function", nil)
	}
	// The closure being called sits in the caller's stack slot, so its id
	// cannot be released during the call; if a nested registration grows
	// g.funcs, e keeps pointing at the old array's identical entry.
	e := &g.funcs[fnid]
	if e.call == nil {
		return g.raiseText("attempt to call a released Go function", nil)
	}
	if g.deep >= MaxCallDepth {
		return g.raiseText(errCallsTooDeep, nil)
	}
	// What __gc functions queued for Go (one word every queue push sets,
	// S.Queued) takes dispatchSlow: with it out of this path, the Go
	// function is its only call, so no register is saved around others.
	// So does a call from another thread than the current one (a
	// coroutine's), which dispatchSlow makes current for the call: here
	// the current thread is the caller's, which the trampoline put in the
	// frame (what the panic path restores), and nothing is restored.
	// (The owner's thread is recorded by the trampoline around this call,
	// zlua_owner_begin: nested Env calls from here pass the claim.)
	if g.S.Queued() || fr.Thread() != g.cur {
		return g.dispatchSlow(e, fr)
	}
	g.deep++
	// The deferred closure only recovers: on the normal path the frame is
	// restored below, after the call, and the closure returns at once.
	// status is the sign: statusPending, which no Go function's plan
	// returns, is left only by a panic or runtime.Goexit. The closure
	// captures status and fr alone (what the panic path needs it finds
	// through fr, and the caller's thread is in the frame), so deferring
	// it costs three stores.
	status = statusPending
	defer func() {
		if status != statusPending {
			return
		}
		status = recovered(fr, recover())
	}()
	mark := len(g.nodes.fresh)
	// the leaf guard inline (leaf.go): no call of its own around the plan
	leaf := e.leaf
	if leaf {
		g.lf.m, g.lf.broke = leafOf(e), false
	}
	status = e.call(g, e, fr)
	if leaf {
		status = g.leafDone(status)
	}
	if len(g.nodes.fresh) > mark { // its arguments' notes (builtindex.go)
		g.dropFresh(mark)
	}
	g.deep--
	return status
}

// statusPending is dispatch's status until the Go function's plan returns
// one (a zlua_status, never negative).
const statusPending = int32(math.MinInt32)

// dispatchSlow is dispatch's call after its checks when something waits
// in the queues or the call comes from another thread than the current
// one: the same call, with fr's thread current until it returns, after
// draining the queues (under the same recovery).
func (g *Gate) dispatchSlow(e *funcEntry, fr cgo.Frame) (status int32) {
	fr.SetCaller(g.cur)
	g.cur = fr.Thread()
	g.deep++
	status = statusPending
	defer func() {
		if status != statusPending {
			return
		}
		status = recovered(fr, recover())
	}()
	if g.S.Queued() {
		g.serveQueued(fr.Thread())
	}
	mark := len(g.nodes.fresh)
	status = g.guardedCall(e, fr)
	if len(g.nodes.fresh) > mark { // its arguments' notes (builtindex.go)
		g.dropFresh(mark)
	}
	g.cur = fr.Caller()
	g.deep--
	return status
}

// serveQueued is what a Lua→Go call on thread th does first when the
// queue word is set: drain what __gc functions queued, the scheduler
// check, and the bounded settles of a long call.
func (g *Gate) serveQueued(th cgo.Thread) {
	if g.S.HasQueued() { // one test for the three queues (and inflight copies)
		g.drainQueued()
	}
	g.S.ClearQueued() // the queues are empty now, whoever drained them
	g.yield()         // the scheduler check, when the tick ran out (yield.go)
	if g.objs.PendingLen() >= pendingSettleAt && !g.S.Pushing() {
		g.objs.SettlePending() // a long call's found objects (objreg)
	}
	if g.unrefs.Len() > 0 {
		g.drainRefsIn(th)
	}
}

// pendingSettleAt is how many slots found by pushes a call lets pile up
// before a scheduler check gives back those Lua no longer holds.
const pendingSettleAt = 1024

// refsPerCheck bounds the refs one call's check releases.
const refsPerCheck = 1 << 14

// drainRefsIn releases refs Go dropped (handles the collector found
// unreachable) during a Lua call, on th, the thread running it: the
// scheduler check runs about once per millisecond of Lua→Go calls, so a
// long call that hands Go a table handle per call does not keep a
// registry entry for each until the Pump after it returns.
func (g *Gate) drainRefsIn(th cgo.Thread) {
	g.liveRefs.Add(int64(-g.unrefs.Drain(refsPerCheck, th.Unrefs)))
}

// recovered ends a dispatch whose Go function did not return: it panicked
// (r is the value recovered) or called runtime.Goexit (r is nil). A leaf
// method's guard (leaf.go) ends with its call; after a panic the caller's
// thread and depth are restored and the panic becomes a Lua error naming
// the function. The call's function entry is still the one called (its
// closure is on the caller's stack, so its id was not released).
func recovered(fr cgo.Frame, r any) int32 {
	g := (*gates.Load())[fr.GateID()]
	if g.dead() && g.dyingHere() {
		// An outer frame of the goroutine whose Goexit abandoned the
		// gate: another goroutine may be closing it, touch nothing. (A
		// panic here started in a deferred call of the Goexit: it goes
		// on, as it would without the gate.)
		if r != nil {
			panic(r)
		}
		return statusPending
	}
	g.leafEnd()
	g.ConvEndScope() // a panic while arguments converted (never the plan's own)
	g.argRoom = false
	if r == nil {
		// runtime.Goexit (a panic(nil) recovers as *runtime.PanicNilError):
		// the call's C frames will never return. Nobody reads a status.
		g.abandon(fmt.Sprintf("go function %q", g.funcName(fr)))
		return statusPending
	}
	name := g.panicName(fr)
	g.cur = fr.Caller()
	g.deep--
	return g.raisePanicSkip(name, r, 4)
}

// panicName names the function fr calls in its panic's error: the name it
// was registered under, except for a func a Go function returned, which
// has its maker's name: the call site's name then, when it has one (as
// argument errors name it: local tick = newTimer(10); tick(-1) reads
// 'tick'), else the maker's.
func (g *Gate) panicName(fr cgo.Frame) string {
	id := int(fr.FuncID())
	if id >= len(g.funcs) {
		return ""
	}
	e := &g.funcs[id]
	if e.made {
		if site := fr.Thread().SiteName(); site != "" {
			return site
		}
	}
	return e.name
}

// funcName is the name of the function fr calls ("" if released).
func (g *Gate) funcName(fr cgo.Frame) string {
	if id := int(fr.FuncID()); id < len(g.funcs) {
		return g.funcs[id].name
	}
	return ""
}

// drainQueued takes what the __gc functions queued for Go: released
// function ids, object slots and companions.
func (g *Gate) drainQueued() {
	if g.S.HasFreedFuncs() {
		g.drainFreed()
	}
	if g.S.HasFreedSlots() {
		g.objs.Drain()
	}
	if g.S.HasFreedCompanions() {
		g.sv.reg.Drain()
	}
}

// raisePanic turns a recovered panic into a Lua error carrying the
// function name and the panic value.
func (g *Gate) raisePanic(name string, r any) int32 { return g.raisePanicSkip(name, r, 4) }

// raisePanicSkip is raisePanic called skip frames below the deferred
// function that recovered (counting runtime.Callers and itself): the
// stack kept starts where the panic was raised.
func (g *Gate) raisePanicSkip(name string, r any, skip int) int32 {
	g.panics.Add(1)
	// A Lua error that a typed func without an error result raised as a
	// panic, and the Go function let through: it goes on as that Lua
	// error, as if returned (its value, message and cause kept; raiseError
	// re-raises the value itself when it is this state's). Wrapped as a
	// panic of each Go function it crossed, its message grew by
	// "go function 'f' panicked: " per level (3.4 KB at 78 levels).
	if err, ok := r.(error); ok {
		if _, direct := asLuaError(err); direct {
			return g.raiseError(err)
		}
	}
	pe := &PanicError{Func: name, Value: r, pcs: make([]uintptr, 32)}
	pe.pcs = pe.pcs[:runtime.Callers(skip, pe.pcs)]
	// Printing r runs user methods below this recovery: ValueText keeps a
	// panic there from unwinding through Lua's frames.
	pe.text = panicText(name, r)
	return g.raiseText(pe.text, pubPanicError(pe))
}
