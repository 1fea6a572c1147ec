package zlua

import (
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/zlua-go/zlua/callbackgate"
	"github.com/zlua-go/zlua/cgo"
	"github.com/zlua-go/zlua/lua"
	"github.com/zlua-go/zlua/pump"
)

// Options configure New. The zero value gives the build's backend (Lua 5.4,
// or LuaJIT with the build tag luajit), all standard libraries, the zlua
// prelude and no memory limit.
type Options struct {
	// MemoryLimit caps the Lua heap in bytes; 0 means no limit. An
	// allocation past it fails: Lua raises "not enough memory", which pcall
	// can catch, and an uncaught one reaches Go as an error matching
	// ErrMemory. The Env stays usable. Go memory zlua keeps for a script
	// (struct copies its calls make, objects built from its tables, what
	// its writes into Go fields built) counts too: see Stats.CopyBytes.
	//
	// What is measured is the heap's bytes in use at each growing
	// allocation (Stats.LuaBytes + Stats.CopyBytes), garbage not yet
	// collected included. Lua 5.4 runs a full collection before it
	// refuses one. LuaJIT does not, and its incremental collector lets
	// the heap reach about three times the live data; under a limit zlua
	// speeds its collector up once the heap passes 3/4 of the limit, so
	// that garbage seldom takes the room. Leave headroom all the same:
	// about 1.5 times the most live data the scripts hold (a hot-reload
	// loop dropping 4.5 MB of tables per reload never failed at 1.2
	// times on LuaJIT, 1.3 times on Lua 5.4; on LuaJIT it needed 3
	// times before; docs/ARCHITECTURE.md, "Memory").
	//
	// The limit counts what Lua asks for, not the process's resident
	// memory. On Lua 5.4 the heap comes from the C library's malloc, and
	// glibc keeps freed blocks in per-thread arenas for reuse: an Env's
	// goroutine runs on many OS threads, so a busy Env's resident memory
	// can be several times its limit (probe F1-F3: 110–210 MB for one
	// Env under a 16 MiB limit, flat, not a leak). Setting the environment
	// variable MALLOC_ARENA_MAX=2 before the program starts bounds it
	// (72 MB; 45 MB with 1). LuaJIT Envs allocate from their own arena.
	// See docs/RELIABILITY.md.
	MemoryLimit int64
	// Libs selects the standard libraries scripts get: LibsAll (the zero
	// value) or LibsSafe for untrusted scripts.
	Libs Libs
	// PumpBudget caps the Lua references one Pump releases (0: all). A
	// game loop sets it so that a burst of dropped handles is spread over
	// several frames.
	PumpBudget int
	// Modules is where require finds Lua modules: require("a.b") loads
	// a/b.lua, or else a/b/init.lua, from it (an embed.FS, os.DirFS,
	// fstest.MapFS...), names the chunk "@a/b.lua" and caches the module in
	// package.loaded, as Lua's own file searcher does. It is searched right
	// after package.preload (see Env.Preload), before the file and C
	// searchers of LibsAll; under LibsSafe it is the only source of
	// modules besides preload. A module not found reads as Lua's own
	// error, listing the paths tried. Files are loaded as DoFile loads
	// them. Reset starts with an empty package.loaded.
	Modules fs.FS
	// Root is the global table under which Register places values
	// (default "go"); "_G" registers globals. New makes it, or uses the
	// table already there (Root "math" registers into the math library);
	// a global of that name that is not a table makes New fail rather than
	// be replaced.
	Root string
	// Warn receives Lua 5.4 warnings (warn(...), errors in __gc
	// finalizers), one whole message per call; with a Warn function they
	// are on from the start, and scripts may still turn them off with
	// warn("@off"). Nil: as the lua5.4 interpreter, warnings start off,
	// warn("@on") turns them on, and they are written to stderr as
	// "Lua warning: msg". Warn runs inside the Lua call that warned: it
	// must not use the Env (its calls are refused with ErrBusy). LuaJIT
	// has no warnings.
	Warn func(msg string)
}

// Env is one Lua state with everything zlua keeps for it. An Env is used by
// one goroutine at a time (its owner); other goroutines hand it work with
// Post. Overlapping use from two goroutines is detected and refused with
// ErrConcurrentUse. Make one with New: the zero Env has no state, and
// every method answers with an error wrapping ErrClosed (Post refuses its
// function, Stats is zero).
type Env struct {
	g       *callbackgate.Gate
	opts    Options
	created []uintptr // where New was called, for leak reports
	posted  pump.Work
	reset   atomic.Pointer[resetRequest]
	// pumpRun is the batch a Pump runs under its hold, nil otherwise;
	// only the holding goroutine touches it (Close finds it nested).
	pumpRun *postRun
	// closeRun: Close is running the posted functions under its hold;
	// their own Close and Pump get errInClose (read, like pumpRun, only by
	// the goroutine holding the Env: only it gets ErrBusy)
	closeRun bool
	// testFailAt, set by the allocation-failure tests, makes a state
	// rebuilt by Reset fail allocations from this count on.
	testFailAt uint64
}

type resetRequest struct{ loader func(*Env) error }

// Backend names the linked Lua implementation, e.g. "Lua 5.4.4" or
// "LuaJIT 2.1.0-beta3".
const Backend = cgo.Backend

// New creates an Env: the state, the standard libraries, the prelude
// (the global zlua table). Close releases it, and only Close does: an Env
// dropped without Close is never freed (its Lua state, C memory and the Go
// values Lua holds stay until the process ends), since freeing it would
// run its scripts' finalizers on a goroutine nobody owns. Defer Close as
// for an os.File.
func New(opts Options) (*Env, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	g, err := callbackgate.New()
	if err != nil {
		return nil, fmt.Errorf("zlua: new state: %w", err)
	}
	e := &Env{g: g, opts: opts, created: make([]uintptr, 16)}
	e.created = e.created[:runtime.Callers(2, e.created)]
	if err := e.init(); err != nil {
		g.Close()
		return nil, err
	}
	openEnvs.Store(e, struct{}{})
	return e, nil
}

// init follows the lifecycle order of the design: libraries, prelude, then
// the prelude's Go-provided fields. New and Reset run it on a fresh state.
func (e *Env) init() error {
	e.g.S.SetMemoryLimit(uint64(e.opts.MemoryLimit))
	e.g.SetWarn(e.opts.Warn)
	e.g.OpenWarnings()
	err := e.protect(func(t cgo.Thread) int {
		g := e.g
		g.S.ProgReset()
		if err := g.S.Commit(); err != nil {
			return cgo.ErrMem
		}
		if st, _ := g.S.Run(t, e.opts.Libs.openOp(), 0, 0, 0); st != cgo.OK {
			return st
		}
		return g.S.DoString(t, lua.Prelude, "=zlualib", cgo.ModeOwn)
	})
	if err != nil {
		return fmt.Errorf("zlua: init: %w", err)
	}
	if err := e.setField("zlua", "backend", Backend); err != nil {
		return fmt.Errorf("zlua: init: %w", err)
	}
	// Registries and the metatable cache, then the root table (seed 004
	// §7.1 steps 4 to 6).
	if err := e.g.Enter(); err != nil {
		return err
	}
	err = e.g.InitObjects()
	if err == nil {
		err = e.g.InitStructs()
	}
	e.g.Exit()
	if err != nil {
		return fmt.Errorf("zlua: object registry: %w", err)
	}
	if root := e.opts.root(); root != "_G" {
		// An existing table is kept (a library's, such as math); any
		// other value refuses the name instead of disappearing. One of
		// zlua's own chunks, with the name as its argument: compiled once
		// per process. Only the refusal raises (on LuaJIT every raise
		// searches the unwind tables of every state with compiled code:
		// New would slow down with the number of Envs, probe A1-F2).
		err := e.callChunk(`local name = ...
			local v = rawget(_G, name)
			if v == nil then rawset(_G, name, {}) elseif type(v) ~= "table" then error("`+rootRefusal+`" .. type(v), 0) end`,
			"=zlua.root", cgo.ModeOwn, "", []any{root})
		var le *LuaError
		if errors.As(err, &le) && strings.HasPrefix(le.Message, rootRefusal) {
			return fmt.Errorf("zlua: root %q names an existing global (a %s value), not a table", root,
				strings.TrimPrefix(le.Message, rootRefusal))
		}
		if err != nil {
			return fmt.Errorf("zlua: root table: %w", err)
		}
	}
	if err := e.installModules(); err != nil {
		return fmt.Errorf("zlua: modules: %w", err)
	}
	return nil
}

// rootRefusal begins the error the root chunk of init raises when the
// root's name holds a value that is not a table; its type follows.
const rootRefusal = "zlua.root: not a table: "

// Close closes the Lua state, running every pending __gc, and releases all
// Go values Lua held; function handles of this Env then fail with a clear
// error. Once Close has begun, Post refuses new functions (ErrClosed); the
// ones posted before and not yet run by a Pump run first, in order, on
// Close's goroutine, while the Env is still open, and the panics among
// them are returned joined (the Env is closed all the same). A function
// run that way that calls Close or Pump gets ErrBusy. Close called by a
// function a Pump runs closes the Env there, once the rest of that Pump's
// functions and those posted since have run, in order (see Pump).
//
// Close is idempotent and safe against calls starting on other goroutines:
// they get ErrClosed (ErrStale for function handles) or ErrConcurrentUse,
// never a freed state. It returns ErrBusy, and does nothing, when called
// while Lua code of this Env is running (from a Go function Lua called):
// close after the outermost call returns, or Reset. It returns
// ErrConcurrentUse, and does nothing, while another goroutine is running
// a call of the Env, or a Pump with posted functions (the whole batch, as
// long as it takes): to close from another goroutine, Post a function that
// calls Close.
//
// An Env abandoned by runtime.Goexit (ErrAbandoned) is closed all the
// same: the functions posted before run first, outside the Env (their
// calls of it get ErrAbandoned), then the state is freed and Close
// returns their panics, nil if none.
//
// lua_close (every __gc) runs on a goroutine of Close's own, locked to its
// thread, while Close waits: Go functions the finalizers call are served
// there, nested calls of the Env included. A Go function that calls
// runtime.Goexit there ends that goroutine only: Close runs the remaining
// finalizers, frees the state and returns ErrAbandoned naming the
// function.
func (e *Env) Close() error {
	if e.g == nil {
		return errUnmade
	}
	if err := e.g.Hold(); err != nil {
		if err == ErrClosed {
			return nil
		}
		if errors.Is(err, ErrAbandoned) {
			return e.closeAbandoned()
		}
		if err == ErrBusy && e.pumpRun != nil && e.g.Depth() == 1 {
			return e.closeInPump()
		}
		if err == ErrBusy && e.closeRun && e.g.Depth() == 1 {
			return errCloseInClose
		}
		return err
	}
	// Close has begun: Post refuses from here on. The functions accepted
	// before run inside the hold, so no other goroutine can close or use
	// the Env under them. If one calls runtime.Goexit (after the rest
	// ran, runAllPosted) or a panic leaves runPosted, Close still closes
	// the state and lets the Env go on the way out: before, the hold was
	// never released and the Env could never be closed or used again.
	done := false
	defer func() {
		if !done {
			e.closeHeld(nil)
		}
	}()
	e.closeRun = true
	errs := e.runAllPosted(&postRun{fns: e.posted.CloseTake()})
	done = true
	return e.closeHeld(errs)
}

// Close's and Pump's refusals from inside the posted functions Close runs
// (ErrBusy: the Env is held, though no Lua code runs).
var (
	errCloseInClose = busyError("zlua: Close called from a function Close runs (the Env closes once they return)")
	errPumpInClose  = busyError("zlua: Pump called from a function Close runs (the Env closes once they return)")
)

// closeInPump is Close called by a function Pump posted-runs, directly
// (ErrBusy from the Pump's own hold, at depth 1: no Lua call runs): the
// rest of the Pump's batch runs first, then what was posted since, in
// posting order, and the Env closes under the Pump's hold.
func (e *Env) closeInPump() error {
	run := e.pumpRun
	e.pumpRun = nil // a Close from the functions run here gets errCloseInClose
	e.closeRun = true
	rest := &postRun{fns: run.fns[run.next:]}
	run.next = len(run.fns)
	done := false
	defer func() {
		if !done {
			e.closeHeld(nil)
		}
	}()
	errs := e.runAllPosted(rest)
	errs = append(errs, e.runAllPosted(&postRun{fns: e.posted.CloseTake()})...)
	done = true
	return e.closeHeld(errs)
}

// closeHeld is the end of Close, the Env held: the state closes, the hold
// is released.
func (e *Env) closeHeld(errs []error) error {
	if err := e.g.CloseClaimed(); err != nil {
		errs = append(errs, err)
	}
	e.g.Release()
	e.forget()
	return errors.Join(errs...)
}

// closeAbandoned is Close for an Env a Go function abandoned with
// runtime.Goexit inside a Lua call.
func (e *Env) closeAbandoned() error {
	errs := e.runAllPosted(&postRun{fns: e.posted.CloseTake()})
	if e.g.ClaimAbandoned() { // else another Close frees it
		if err := e.g.CloseAbandoned(); err != nil {
			errs = append(errs, err)
		}
		e.forget()
	}
	return errors.Join(errs...)
}

// forget drops a closed Env from the leak accounting of the tests.
func (e *Env) forget() {
	leakedSlots.Add(int64(e.g.LeakedSlots()))
	openEnvs.Delete(e)
}

// leakedSlots counts object slots still live after Close ran every __gc,
// over all Envs; tests fail the run when it is not zero.
var leakedSlots atomic.Int64

// openEnvs holds the Envs not yet closed, so tests can report leaks with
// the place each was created.
var openEnvs sync.Map // *Env → struct{}

// Stats are counters of an Env.
type Stats struct {
	// LiveFuncs is the number of Go functions Lua can still reach (each
	// function value pushed counts once until Lua collects it; the methods
	// and metamethods of each bound object type count too, for the Env's
	// life).
	LiveFuncs int
	// GoCalls counts Lua→Go calls; Panics the Go panics recovered (in Go
	// functions Lua called, posted functions and Reset loaders).
	GoCalls, Panics uint64
	// LiveRefs is the number of Lua values Go holds references to
	// (Function and Table handles, error objects), including PendingRefs.
	LiveRefs int
	// PendingRefs is the number of those references Go has dropped and
	// the next Pump will release.
	PendingRefs int
	// PendingPosts is the number of functions posted and not yet run.
	PendingPosts int
	// LuaBytes is the Lua heap in use, LuaPeakBytes its highest value
	// since New or the last Reset (what Options.MemoryLimit caps).
	LuaBytes, LuaPeakBytes uint64

	// LiveObjects is the number of slots holding Go objects Lua holds by
	// reference: one per object and view (an object pushed plainly and
	// through AsView is two userdata and two slots); PeakObjects the most
	// since New or the last Reset.
	LiveObjects, PeakObjects int
	// ObjectPushes counts Go objects pushed by reference; CacheHits the
	// pushes that found the object's slot alive (same object, same view);
	// both since New or the last Reset.
	ObjectPushes, CacheHits uint64
	// SlotCapacity is the size of the slot table.
	SlotCapacity int
	// PinnedObjects is the number of live objects whose numeric and
	// boolean fields C reads and writes in place: pinned in Go memory
	// (runtime.Pinner) from their first field access, or from their push
	// once scripts used the fields of their type, until Lua releases
	// them.
	PinnedObjects int
	// LiveStructs is the number of non-blittable struct values Lua holds
	// by value (one Go companion copy each, released after Lua collects
	// the userdata). Blittable ones live in Lua memory and are not counted.
	LiveStructs int
	// CopyBytes is what Go memory zlua keeps for scripts is charged
	// against Options.MemoryLimit, which compares LuaBytes + CopyBytes with
	// it: the struct copies a script's calls make (Go functions' results,
	// nested struct fields read), each its type's size plus the bytes it
	// reaches through strings, slices, maps and interfaces (not pointers),
	// and the objects zlua builds from a script's tables (a table assigned
	// to a pointer field) that the script then holds, each what its
	// conversion built, given back when Lua collects the userdata; and
	// the script's writes into Go fields (a string or table stored in an
	// object's field, a table in a copy's pointer field) that built 256
	// bytes or more, each what it built, given back when the field is
	// written again or once Go has collected what it built. Under a limit
	// a copy is counted exactly; without one CopyBytes counts at most
	// 1024 values of each and no writes. The host's own pushes and
	// objects are not charged.
	CopyBytes uint64
	// Yields counts the times zlua yielded the calling goroutine to the
	// Go scheduler (runtime.Gosched) while Lua kept calling Go: at the
	// return of an API call once 4 ms of calls went by since the last
	// yield, or inside a call after 7 ms, so that a long run inside Lua
	// passes through the scheduler as Go code would (docs/ARCHITECTURE.md,
	// "Yielding to the Go scheduler").
	Yields uint64
}

// Stats returns the Env's counters. The figures of the Lua state and its
// objects (LuaBytes, LuaPeakBytes, the object and slot counts, CopyBytes)
// start again with the new state a Reset makes; GoCalls, Panics and
// Yields count over the Env's whole life. It is safe to call from any goroutine,
// also while the owner runs Lua code or the Env is reset or closed (a
// metrics goroutine): the counters are atomics, read one by one, so while
// the owner runs they need not agree with each other exactly. The object
// counters (LiveObjects, PeakObjects, ObjectPushes, CacheHits) are
// published by the owner when a call returns, when Lua's collection
// released objects and every 1024 pushes: while a call runs they may lag
// by up to that many pushes.
func (e *Env) Stats() Stats {
	if e.g == nil {
		return Stats{}
	}
	s := e.g.Stats()
	o := s.Objects
	return Stats{LiveFuncs: s.LiveFuncs, GoCalls: s.Calls, Panics: s.Panics,
		LiveRefs: s.LiveRefs, PendingRefs: s.PendingRefs,
		PendingPosts: e.posted.Len(),
		LuaBytes:     s.LuaBytes, LuaPeakBytes: s.LuaPeakBytes,
		LiveObjects: o.Live, PeakObjects: o.Peak, ObjectPushes: o.Pushes,
		CacheHits: o.Hits, SlotCapacity: o.Capacity, LiveStructs: s.LiveStructs,
		PinnedObjects: o.Pinned, CopyBytes: s.CopyBytes, Yields: s.Yields}
}
