package callbackgate

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/zlua-go/zlua/cgo"
	"github.com/zlua-go/zlua/pump"
)

// Gate is the Go side of one Lua state: its Go function table, the thread
// that is running, the nesting depth of Go↔Lua calls, and the deferred
// release queue. A Gate is used by one goroutine at a time.
type Gate struct {
	S    *cgo.State
	id   uintptr
	gen  uint64 // bumps when the state is replaced; stale refs are ignored
	cur  cgo.Thread
	deep int // Go frames inside Lua calls (gate calls and API calls)

	funcs   []funcEntry
	free    []uint32 // released function ids, reused lowest-last
	unarmed []uint32 // ids handed to programs whose closure may not exist

	recent  [8]recentErr
	recentN int

	unrefs pump.Queue
	stats  Stats
}

// Stats are the gate's counters.
type Stats struct {
	LiveFuncs int // Go functions reachable from Lua
	Calls     uint64
	Panics    uint64
}

type funcEntry struct {
	name string
	fn   any
	call callFunc
}

var gateGen atomic.Uint64

// gates maps Gate ids to gates. Reads are lock-free (copy on write).
var (
	gatesMu sync.Mutex
	gates   atomic.Pointer[[]*Gate]
)

func init() { cgo.SetGateHandler(dispatch) }

// New opens a Lua state and its gate. The caller opens libraries.
func New() (*Gate, error) {
	g := &Gate{gen: gateGen.Add(1)}
	gatesMu.Lock()
	var list []*Gate
	if p := gates.Load(); p != nil {
		list = *p
	}
	id := -1
	for i, x := range list {
		if x == nil {
			id = i
			break
		}
	}
	next := append([]*Gate(nil), list...)
	if id < 0 {
		id = len(next)
		next = append(next, nil)
	}
	next[id] = g
	gates.Store(&next)
	gatesMu.Unlock()
	g.id = uintptr(id)

	s, err := cgo.Open(g.id)
	if err != nil {
		g.unregister()
		return nil, err
	}
	g.S = s
	g.cur = s.Main()
	g.funcs = make([]funcEntry, 1, 64) // id 0 is never used
	return g, nil
}

func (g *Gate) unregister() {
	gatesMu.Lock()
	list := *gates.Load()
	next := append([]*Gate(nil), list...)
	next[g.id] = nil
	gates.Store(&next)
	gatesMu.Unlock()
}

// Close closes the Lua state (running every __gc) and drops all Go
// functions. Later refs released by cleanups are ignored. Idempotent.
func (g *Gate) Close() {
	if g.S == nil || g.S.Closed() {
		return
	}
	g.unrefs.Close()
	g.S.Close()
	g.unregister()
	g.funcs = nil
	g.free = nil
	g.unarmed = nil
	g.stats.LiveFuncs = 0
}

// Closed reports whether Close ran.
func (g *Gate) Closed() bool { return g.S == nil || g.S.Closed() }

// Current returns the thread Go code should use now: the coroutine running
// the innermost Go function, or the main thread at top level.
func (g *Gate) Current() cgo.Thread { return g.cur }

// Depth returns how many API or gate calls are in progress.
func (g *Gate) Depth() int { return g.deep }

// Stats returns the gate's counters.
func (g *Gate) Stats() Stats { return g.stats }

// PendingUnrefs returns the number of refs waiting for Settle.
func (g *Gate) PendingUnrefs() int { return g.unrefs.Len() }

// Enter marks the start of an API call that may run Lua; Exit its end.
// At the outermost Exit the gate settles: released ids and refs are
// reclaimed (no program can be running then).
func (g *Gate) Enter() { g.deep++ }

// Exit ends an API call started with Enter.
func (g *Gate) Exit() {
	g.deep--
	if g.deep == 0 {
		g.Settle()
	}
}

// Settle releases what Lua and Go dropped: function ids whose closures were
// collected, ids whose closure was never created (their program raised),
// refs queued by cleanups, and copies of large programs left by raises.
// Call it only when no Lua code of this state is running.
func (g *Gate) Settle() {
	if g.Closed() {
		return
	}
	g.drainFreed()
	for _, id := range g.unarmed {
		if g.S.FuncArmed(id) == 0 {
			g.release(id)
		}
	}
	g.unarmed = g.unarmed[:0]
	g.unrefs.Drain(0, func(ref int32) { g.S.Unref(int(ref)) })
	g.S.Reclaim()
	g.recentN = 0
}

func (g *Gate) drainFreed() {
	g.S.FreedFuncs(func(ids []uint32) {
		for _, id := range ids {
			g.release(id)
		}
	})
}

func (g *Gate) release(id uint32) {
	g.funcs[id] = funcEntry{}
	g.free = append(g.free, id)
	g.stats.LiveFuncs--
}

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
func dispatch(goid uintptr, fnid uint32, fr cgo.Frame) (status int32) {
	g := (*gates.Load())[goid]
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
	prev := g.cur
	g.cur = fr.Thread()
	g.deep++
	g.stats.Calls++
	defer func() {
		g.cur = prev
		g.deep--
		if r := recover(); r != nil {
			status = g.raisePanic(e.name, r)
		}
	}()
	if g.S.HasFreedFuncs() {
		g.drainFreed()
	}
	return e.call(g, e, fr)
}

// raisePanic turns a recovered panic into a Lua error carrying the
// function name and the panic value.
func (g *Gate) raisePanic(name string, r any) int32 {
	g.stats.Panics++
	pe := &PanicError{Func: name, Value: r, pcs: make([]uintptr, 32)}
	pe.pcs = pe.pcs[:runtime.Callers(3, pe.pcs)]
	return g.raiseText(pe.Error(), pe)
}

// raiseText raises text (with the caller's position) as a Lua error and
// remembers cause for the outermost caller.
func (g *Gate) raiseText(text string, cause error) int32 {
	g.remember(text, cause)
	g.S.ProgReset()
	g.S.PutStr(text)
	if g.S.Commit() != nil {
		return g.raiseNoMemory()
	}
	return cgo.StatusErrPos
}

func (g *Gate) raiseNoMemory() int32 {
	g.S.ProgReset()
	g.S.PutStr(ErrMemory.Error())
	if g.S.Commit() != nil {
		g.S.ProgReset()
		_ = g.S.Commit()
		return cgo.StatusReturn // cannot even say why: return nothing
	}
	return cgo.StatusError
}

// raiseError raises err, returned by a Go function, into Lua. A *LuaError
// of this state returned as is re-raises its original value (identity of
// tables and other error objects is kept).
func (g *Gate) raiseError(err error) int32 {
	var le *LuaError
	if errors.As(err, &le) && (le == err || le.ref != noRef) {
		g.S.ProgReset()
		if le.ref != noRef && le.gate == g && le.gen == g.gen {
			g.S.PutRef(int32(le.ref))
		} else {
			g.S.PutStr(le.Message)
		}
		if le.cause != nil {
			g.remember(le.Message, le.cause)
		}
		if g.S.Commit() != nil {
			return g.raiseNoMemory()
		}
		return cgo.StatusError
	}
	return g.raiseText(err.Error(), err)
}

// raiseArg raises "bad argument #argn to 'name' (detail)".
func (g *Gate) raiseArg(argn int, name string, err error) int32 {
	g.S.ProgReset()
	g.S.PutInt(int64(argn))
	g.S.PutStr(name)
	g.S.PutStr(err.Error())
	if g.S.Commit() != nil {
		return g.raiseNoMemory()
	}
	return cgo.StatusArgErr
}
