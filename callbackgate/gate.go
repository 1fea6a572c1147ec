package callbackgate

import (
	"errors"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/zlua-go/zlua/cgo"
	"github.com/zlua-go/zlua/internal/relstore"
	"github.com/zlua-go/zlua/objreg"
	"github.com/zlua-go/zlua/pump"
)

// ErrConcurrentUse reports an Env entered by a second goroutine while the
// first was running Lua code in it.
var ErrConcurrentUse = errors.New("zlua: Env used by two goroutines at once (hand work to its goroutine with Post)")

// ErrBusy reports an operation that needs the state idle (Close, Pump)
// called while Lua code of it runs, e.g. from a Go function Lua called.
var ErrBusy = errors.New("zlua: env is running Lua code")

// ErrClosed reports a call of a closed gate (an Env after Close).
var ErrClosed = errors.New("zlua: env is closed")

// The owner word (Gate.busy). An outermost API call moves it from
// gateIdle to gateClaimed and back; Close moves it from gateClaimed to
// gateClosed, which is final. A caller that wins the claim therefore knows
// the state is open and stays open until it lets go (only a claim holder
// closes it), and one that loses learns from the same word whether the
// state is closed: no field Close writes is read before the claim is won.
const (
	gateIdle    int32 = 0
	gateClaimed int32 = 1
	gateClosed  int32 = 2
	// gateAbandoned: a Go function called runtime.Goexit inside a Lua
	// call (abandon.go); only Close leaves it (ClaimAbandoned).
	gateAbandoned int32 = 3
	// gatePeeking: Thread.Done of another goroutine reads a thread's
	// status (no Lua code runs) and gives it back at once; a claim that
	// fails meanwhile waits for it (claimAfterPeek).
	gatePeeking int32 = 4
)

// Gate is the Go side of one Lua state: its Go function table, the thread
// that is running, the nesting depth of Go↔Lua calls, and the deferred
// release queue. A Gate is used by one goroutine at a time.
type Gate struct {
	S    *cgo.State
	id   uintptr
	gen  uint64 // changes when the state is replaced; stale handles fail
	cur  cgo.Thread
	deep int // Go frames inside Lua calls (gate calls and API calls)
	// inResults: a Go function's results are being pushed (funcs
	// registered meanwhile are made funcs: funcEntry.made)
	inResults bool

	busy ownerWord // gateIdle, gateClaimed, gateClosed, gateAbandoned or gatePeeking
	// claimWait counts claims waiting in claimAfterPeek for a Done's read
	// to end: while one waits, Peek gives way (Done answers from its last
	// read) so that pollers calling Done back to back cannot keep the
	// gate from its owner (outside probe F1-F4).
	claimWait atomic.Int32
	// abandoned is set, once, by the Goexit that broke the gate
	// (abandon.go), before busy moves to gateAbandoned; while closeLua
	// runs, a Goexit adds its goroutine (and closeLua restores it).
	abandoned atomic.Pointer[abandonment]
	// closing is set while closeLua runs lua_close on a goroutine of its
	// own; closeErr is the first Goexit met there. Only that goroutine
	// and closeLua's caller, which waits for it, use them.
	closing  bool
	closeErr error
	// cbTID is the OS thread of the owner while its goroutine is locked
	// to it: inside a Go function Lua called (the runtime locks a cgo
	// callback to its thread; the outermost callback frame records the
	// thread and clears it before it returns, see dispatch) and during
	// Hold (locked explicitly, locked says so). No other goroutine runs
	// on that thread meanwhile, so a goroutine that finds its own thread
	// in cbTID (cgo.OnThread) is the owner, calling from inside Lua.
	cbTID threadWord
	// warnTID is the OS thread running the Env's Warn function, while it
	// runs (0 else): a call it makes is refused as such (claimFailed).
	warnTID atomic.Uintptr
	// locked: Hold or ClaimAbandoned locked the owner's goroutine to its
	// thread (LockOSThread); dropThread unlocks it.
	locked bool
	// limits: the limited calls in progress, outermost first (limit.go);
	// closeLimits: how many there were when closeLua began.
	limits      []*limit
	closeLimits int

	funcs   []funcEntry
	free    []uint32 // released function ids
	unarmed []uint32 // ids handed to programs whose closure may not exist

	recent   [cgo.Recent]recentErr
	recentN  int    // errors remembered since the last Settle
	raiseSeq uint32 // numbers the raises whose position C keeps

	// The scheduler check (yield.go), written by the owner. When the
	// goroutine last yielded is kept per thread (cgo.ThreadYieldAt), not
	// here. tickAt and tickCalls are the time and S.OwnCalls of the last
	// check, tick the tick it set; exits counts outermost returns and
	// exitsAtCheck is exits at the last check; yieldDue and yieldsInCall
	// see takeYield; yields counts the yields (Stats reads it).
	tickAt       time.Duration
	tickCalls    uint64
	tick         uint64
	exits        uint64
	exitsAtCheck uint64
	// pubExits is exits for Thread.Done on any goroutine (exitCount),
	// published with a release store once a Done read made it matter
	// (doneRead).
	pubExits uintptr
	doneRead bool
	yieldDue bool // a yield is due at the outermost return
	// scalarCalls is S.OwnCalls when an outermost scalar call began
	// (startScalars), for its end (endScalar); noCalls otherwise.
	scalarCalls uint64
	// heldCalls counts the calls that passed an object from the cache
	// (callHeld), for the tests of that path.
	heldCalls    uint64
	yieldsInCall uint64 // yields taken inside a Lua→Go call
	yields       atomic.Uint64

	unrefs   *pump.Queue // refs dropped by Go, for this state generation
	liveRefs atomic.Int64
	callRes  []*cgo.CallResult // one per nesting depth, reused

	// Counters for Stats, written by the owner, read from any goroutine.
	// Lua→Go calls are counted in C by the trampoline (S.Calls, no locked
	// instruction per call); callsBefore adds those of the states this
	// gate closed (Reset), under lifeMu.
	panics      atomic.Uint64
	liveFuncs   atomic.Int64
	callsBefore uint64
	// lifeMu orders the owner's replacing (Reopen) and freeing (Teardown)
	// of S, objs, sv.reg and unrefs with Stats, their one reader outside
	// the claim. The owner reads them without it.
	lifeMu sync.Mutex

	// ObjectRegistry and the metatable cache: one binding per (type, view).
	objs     *objreg.Registry
	binds    map[bindKey]*binding
	meta     map[reflect.Type]metaSet // user metamethods (meta.go)
	bindByID []*binding
	lastBind *binding
	eqRef    int32
	leaked   int

	sv structState // StructRegistry and opaque handles (structs.go)

	lastPlan *tablePlan // the struct type last decoded from or pushed as a table (decode.go)
	pairs    *cgo.Pairs // a flat table's pairs, read in one crossing (decodeflat.go)
	// argRoom is set while readArg reads an argument of a Go function:
	// the trampoline's C frame leaves LUA_MINSTACK free slots above the
	// arguments, enough for a flat table's ReadPairs without a reserve.
	argRoom bool
	// args caches the handles of recent table and function arguments
	// (argcache.go).
	args argHandles
	seq  *cgo.Seq  // a run of a table's values or pairs, read in one crossing (readseq.go)
	flat flatCache // the last flat table shape decoded (decodeflat.go)
	// overlay is set while ReadInto decodes over an Overlay out, whose
	// address overlayAt holds until then; overDeep is the deep it runs at
	// (overlay.go).
	overlay   bool
	overDeep  int
	overlayAt unsafe.Pointer
	conv      convBudget // the conversion of a Lua value in progress (convbudget.go)
	// built holds the objects the outermost call's conversions built from
	// a script's tables, with their bytes, until pushed (charge.go);
	// builtN counts the entries in use.
	built  [builtKeep]builtObj
	builtN int
	stores storeState // the charges of a script's stores (storecharge.go)
	nodes  builtIndex // objects built from a script's tables, under a limit (builtindex.go)

	warn func(string) // Lua 5.4 warnings sink (warn.go); nil: stderr

	lf leafState // the leaf method running (leaf.go)
}

type funcEntry struct {
	name  string
	fn    any
	call  callFunc
	hints uint32 // numeric parameters, for the trampoline (argHints)
	// made: a func a Go function returned (results), whose name is
	// its maker's: its panics name it as the call site does, when it
	// does (probe Z1-F10).
	made bool
	// leaf: a declared leaf method (fn is its *leafMethod, call its
	// plan): dispatch runs call under the leaf guard (leaf.go)
	leaf bool
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
	g := &Gate{cbTID: threadWord{cgo.NewOwnerWord()}, scalarCalls: noCalls}
	if g.cbTID.p == nil {
		return nil, cgo.ErrNoMemory
	}
	// The word is read by goroutines that hold the Gate (a failed claim),
	// even while Close frees the state: it goes with the Gate.
	runtime.AddCleanup(g, cgo.FreeOwnerWord, g.cbTID.p)
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
	if err := g.Reopen(); err != nil {
		g.unregister()
		return nil, err
	}
	return g, nil
}

// Reopen gives the gate a fresh Lua state (after Teardown, or at New).
// Handles and errors of the previous state become stale.
func (g *Gate) Reopen() error {
	s, err := cgo.Open(g.id)
	if err != nil {
		return err
	}
	s.SetOwnerWord(g.cbTID.p)
	g.lifeMu.Lock()
	g.S = s
	g.unrefs = new(pump.Queue)
	g.objs = objreg.New(s)
	g.sv = newStructState(s)
	g.lifeMu.Unlock()
	g.gen = gateGen.Add(1)
	g.cur = s.Main()
	g.funcs = make([]funcEntry, 1, 64) // id 0 is never used
	g.free, g.unarmed = nil, nil
	g.forgetRecent()
	g.tickCalls, g.tick = 0, 0 // the new state counts its calls from 0
	g.callRes = nil
	g.liveRefs.Store(0)
	g.liveFuncs.Store(0)
	g.binds = map[bindKey]*binding{}
	g.meta = map[reflect.Type]metaSet{}
	g.bindByID = []*binding{nil} // binding id 0 is never used
	g.lastBind = nil
	return nil
}

func (g *Gate) unregister() {
	gatesMu.Lock()
	list := *gates.Load()
	next := append([]*Gate(nil), list...)
	next[g.id] = nil
	gates.Store(&next)
	gatesMu.Unlock()
}

// Teardown closes the state in the spec's order: queued refs are released,
// then lua_close runs every __gc while the gate still serves them, then the
// Go function table is dropped. Refs released later by cleanups of this
// state's handles are ignored. The caller's registries tear down before.
// It returns closeLua's error (a Goexit in a finalizer): the state is
// freed all the same.
func (g *Gate) Teardown() error {
	if g.Closed() {
		return nil
	}
	g.Settle()
	g.DrainRefs(0)
	g.unrefs.Close()
	err := g.closeLua() // every __gc runs and queues its slot
	g.leaked = g.objs.Close() + g.closeStructs()
	g.stores = storeState{} // their bytes went with the state
	g.nodes = builtIndex{}
	g.lifeMu.Lock()
	g.S.Close()
	g.callsBefore += g.S.Calls() // the count at Close, kept across Reset
	g.lifeMu.Unlock()
	g.binds, g.bindByID, g.lastBind, g.meta = nil, nil, nil, nil
	g.args.forget()
	g.funcs, g.free, g.unarmed = nil, nil, nil
	g.callRes = nil // freed with the state
	g.liveFuncs.Store(0)
	g.liveRefs.Store(0)
	return err
}

// Close claims the gate, tears the state down, unregisters the gate and
// marks it closed for good. It returns ErrClosed if the gate was closed
// already, and the Claim error (nothing done) if the state is in use.
func (g *Gate) Close() error {
	if err := g.Claim(); err != nil {
		return err
	}
	return g.CloseClaimed()
}

// CloseClaimed is Close for the holder of a Claim (or of Hold); the claim
// ends with it. It returns Teardown's error: ErrAbandoned naming a Go
// function that called runtime.Goexit while lua_close ran (the state is
// freed all the same, see closeLua).
func (g *Gate) CloseClaimed() error {
	err := g.Teardown()
	g.unregister() // closeLua waited for any goroutine a Goexit ended
	g.dropThread()
	g.deep = 0
	// Everything above happens before the store: a caller that then fails
	// its CAS and reads gateClosed touches nothing of the freed state.
	g.busy.Store(gateClosed)
	return err
}

// OwnerThread returns the OS thread recorded as the owner's (an identity
// from cgo.ThreadID), 0 when none is: set while a Go function Lua called
// runs and during Hold. For tests and diagnostics; safe from any
// goroutine.
func (g *Gate) OwnerThread() uintptr { return g.cbTID.Load() }

// Closed reports whether the state is closed. Only the holder of the claim
// (inside Enter/Exit, Claim/Unclaim or Hold/Release) may call it: other
// goroutines learn it from Enter or Claim (ErrClosed).
func (g *Gate) Closed() bool { return g.S == nil || g.S.Closed() }

// Current returns the thread Go code should use now: the coroutine running
// the innermost Go function, or the main thread at top level.
func (g *Gate) Current() cgo.Thread { return g.cur }

// CountPanic counts a panic recovered outside a Lua call (a posted
// function's, a Reset loader's) in Stats.Panics. Safe from any goroutine.
func (g *Gate) CountPanic() { g.panics.Add(1) }

// Depth returns how many API or gate calls are in progress.
func (g *Gate) Depth() int { return g.deep }

// DrainObjects releases the slots whose userdata Lua collected. It is safe
// at any depth: slots handed to programs not yet run wait for Settle.
func (g *Gate) DrainObjects() {
	if !g.Closed() {
		g.objs.Drain()
	}
}

// Enter starts an API call that may run Lua. The outermost call claims the
// gate; a nested one must come from the goroutine running Lua (inside a Go
// function Lua called). Anything else is ErrConcurrentUse, or ErrClosed
// after Close, detected without touching the state: the caller checks
// nothing before Enter, since Close may run in between.
// Small enough to be inlined: the failed claim is out of line.
func (g *Gate) Enter() error {
	if !g.busy.CompareAndSwap(gateIdle, gateClaimed) {
		return g.enterNested()
	}
	g.deep++
	return nil
}

// enterNested is Enter after a failed claim: a nested call from inside Lua
// goes on, anything else gets claimFailed's error.
//
//go:noinline
func (g *Gate) enterNested() error {
	if _, err := g.claimAfterPeek(nil); err != nil {
		return err
	}
	g.deep++ // nested, or claimed after a Done's read
	return nil
}

// Exit ends an API call started with Enter. At the outermost Exit the gate
// settles and is released.
func (g *Gate) Exit() {
	if g.unwinding() {
		return // a goroutine that abandoned the gate, unwinding (abandon.go)
	}
	if len(g.sv.opq) > 0 {
		g.closeOpaque()
	}
	g.deep--
	if g.deep == 0 {
		g.exitOutermost()
	} else if g.deep == 1 && g.locked {
		// a Hold's call ended (a posted function's, a Reset loader's):
		// no Lua code runs under it
		g.forgetRecent()
		if g.args.used {
			g.args.forget()
		}
	}
}

// exitOutermost is the outermost Exit: settle (one test when nothing
// waits, quiet), let go of a Hold's thread (the callbacks cleared their own
// record of it), release the claim, and yield to the Go scheduler if the
// calls made a yield due (yield.go).
func (g *Gate) exitOutermost() {
	g.scalarCalls = noCalls
	if g.stores.charged != 0 {
		g.storeSettle()
	}
	if len(g.nodes.fresh) != 0 {
		g.forgetFresh()
	}
	if g.args.used {
		g.args.forget() // argcache.go: the cache lives within one outermost call
	}
	if g.quiet() {
		g.forgetRecent()
	} else {
		g.settleSlow()
	}
	if g.locked || g.cbTID.Load() != 0 {
		g.dropThread()
	}
	if g.S != nil && g.S.ProgShrinkDue() {
		g.S.ShrinkProg() // a big result's program: not kept for the Env's life
	}
	g.countExit()
	due := g.yieldDue // one load here; the rest out of line
	if due {
		due = g.takeYield()
	}
	g.busy.Release(gateIdle)
	if due {
		runtime.Gosched() // the yield the calls made due (yield.go)
		NoteThreadYield()
	}
}

// countExit counts an outermost return, and publishes the count once a
// Thread.Done read made it matter (doneRead): a release store, as Done, on
// any goroutine, compares the count with the one its last read saw.
func (g *Gate) countExit() {
	g.exits++
	if g.doneRead {
		g.publishExits()
	}
}

// publishExits stores exits where exitCount reads it.
func (g *Gate) publishExits() { relstore.Uintptr(&g.pubExits, uintptr(g.exits)) }

// exitCount is the number of outermost returns, for any goroutine, as
// far as Done needs it.
func (g *Gate) exitCount() uintptr { return atomic.LoadUintptr(&g.pubExits) }

// quiet reports Settle's common case: the state is open, nothing was
// handed out and nothing waits in C.
func (g *Gate) quiet() bool {
	return g.S != nil && !g.S.Closed() && len(g.unarmed) == 0 && g.objs.Quiet() &&
		g.sv.reg.Quiet() && !g.S.HasQueued()
}

// Settle releases what Lua dropped: function ids whose closures were
// collected, ids whose closure was never created (their program raised),
// and copies of large programs left by raises. Call it only when no Lua
// code of this state is running. Refs queued by Go wait for DrainRefs.
func (g *Gate) Settle() {
	if g.builtN != 0 {
		g.forgetBuilt()
	}
	if g.stores.charged != 0 {
		g.storeSettle()
	}
	// The common outermost return: nothing was handed out, nothing
	// waits in C. One test instead of the walk.
	if g.quiet() {
		g.forgetRecent()
		return
	}
	g.settleSlow()
}

// settleSlow is Settle's walk, after quiet found something to do (or the
// state closed).
func (g *Gate) settleSlow() {
	if g.Closed() {
		return
	}
	if g.S.HasFreedFuncs() {
		g.drainFreed()
	}
	g.objs.Settle()
	g.sv.reg.Settle()
	for _, id := range g.unarmed {
		if g.S.FuncArmed(id) == 0 {
			g.release(id)
		}
	}
	g.unarmed = g.unarmed[:0]
	if g.S.HasInflight() {
		g.S.Reclaim()
	}
	g.forgetRecent()
}

// DrainRefs unrefs up to max queued refs (all when max <= 0) and returns
// how many it released. Owner goroutine only.
func (g *Gate) DrainRefs(max int) int {
	if g.Closed() {
		return 0
	}
	n := g.unrefs.Drain(max, g.S.Unrefs)
	g.liveRefs.Add(int64(-n))
	return n
}

func (g *Gate) drainFreed() {
	g.S.FreedFuncs(func(ids []uint32) {
		for _, id := range ids {
			g.release(id)
		}
	})
}

// release forgets function id: its closure was collected, or never made.
// A retired id (cgo State.RetiresFunc) is not given out again.
func (g *Gate) release(id uint32) {
	g.funcs[id] = funcEntry{}
	g.liveFuncs.Add(-1)
	if !g.S.RetiresFunc(id) {
		g.free = append(g.free, id)
	}
}

// callResult returns the result buffer for the current depth.
func (g *Gate) callResult() (*cgo.CallResult, error) {
	if g.deep < len(g.callRes) {
		return g.callRes[g.deep], nil
	}
	return g.newCallResult()
}

// newCallResult allocates the result buffers up to the current depth.
func (g *Gate) newCallResult() (*cgo.CallResult, error) {
	for len(g.callRes) <= g.deep {
		r, err := g.S.NewCallResult()
		if err != nil {
			return nil, err
		}
		g.callRes = append(g.callRes, r)
	}
	return g.callRes[g.deep], nil
}
