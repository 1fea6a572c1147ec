package callbackgate

import "github.com/zlua-go/zlua/objreg"

// Stats are the gate's counters (see zlua.Stats for their meaning).
type Stats struct {
	LiveFuncs              int // Go functions reachable from Lua
	Calls, Panics          uint64
	LiveRefs, PendingRefs  int
	LuaBytes, LuaPeakBytes uint64
	Objects                objreg.Stats
	LiveStructs            int
	CopyBytes              uint64 // charges of copies and built objects (charge.go)
	Yields                 uint64 // yields to the Go scheduler (yield.go)
}

// Stats returns the gate's counters. It is safe from any goroutine, while
// the owner runs Lua code, resets or closes the state: every counter is an
// atomic, and lifeMu keeps the registries and the C env it reads through
// from being replaced or freed meanwhile. The counters are read one by
// one, so they need not agree with each other while the owner runs.
func (g *Gate) Stats() Stats {
	st := Stats{LiveFuncs: int(g.liveFuncs.Load()),
		Panics: g.panics.Load(), LiveRefs: int(g.liveRefs.Load())}
	g.lifeMu.Lock()
	defer g.lifeMu.Unlock()
	st.Calls = g.callsBefore // a closed S is counted there already
	st.Yields = g.yields.Load()
	if g.S != nil && !g.S.Closed() {
		st.Calls += g.S.Calls()
	}
	if g.objs != nil {
		st.Objects = g.objs.Stats()
	}
	if g.sv.reg != nil {
		st.LiveStructs = g.sv.reg.Live()
	}
	if g.unrefs != nil {
		st.PendingRefs = g.unrefs.Len()
	}
	if g.S != nil && !g.S.Closed() {
		st.LuaBytes, st.LuaPeakBytes = g.S.MemUsed()
		st.CopyBytes = g.S.ChargedBytes()
	}
	return st
}

// LeakedSlots returns how many object slots and struct companions were
// still live after Close ran every __gc: each one a value Lua could never
// release (a bug).
func (g *Gate) LeakedSlots() int { return g.leaked }

// Unsettled names what an outermost return left for a later one to
// settle, or returns "" when it left nothing: the check of the tests of
// the exit paths (exitOutermost, endScalar). Owner only, between calls.
func (g *Gate) Unsettled() string {
	switch {
	case g.deep != 0:
		return "a call in progress"
	case g.stores.charged != 0:
		return "charged stores"
	case len(g.nodes.fresh) != 0:
		return "fresh nodes"
	case g.args.used:
		return "argument handles"
	case g.recentN != 0:
		return "remembered errors"
	case len(g.unarmed) != 0:
		return "unarmed functions"
	case g.S != nil && !g.S.Closed() && g.S.HasQueued():
		return "queued releases"
	case g.objs != nil && !g.objs.Quiet():
		return "objects"
	case g.sv.reg != nil && !g.sv.reg.Quiet():
		return "struct values"
	case g.scalarCalls != noCalls:
		return "a scalar call's count"
	}
	return ""
}

// HeldCalls returns how many calls passed an object Lua holds straight
// from the identity cache (callHeld). Owner only, between calls.
func (g *Gate) HeldCalls() uint64 { return g.heldCalls }
