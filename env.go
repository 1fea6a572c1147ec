package zlua

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/zlua-go/zlua/callbackgate"
	"github.com/zlua-go/zlua/cgo"
	"github.com/zlua-go/zlua/lua"
)

// Options configure New. The zero value gives the build's backend (Lua 5.4,
// or LuaJIT with the build tag luajit), all standard libraries and the
// zlua prelude.
type Options struct{}

// Env is one Lua state with everything zlua keeps for it. An Env is used by
// one goroutine at a time.
type Env struct {
	g       *callbackgate.Gate
	created []uintptr // where New was called, for leak reports
}

// Backend names the linked Lua implementation, e.g. "Lua 5.4.4" or
// "LuaJIT 2.1.0-beta3".
const Backend = cgo.Backend

// New creates an Env: the state, the standard libraries, the prelude
// (the global zlua table). Close releases it.
func New(opts Options) (*Env, error) {
	g, err := callbackgate.New()
	if err != nil {
		return nil, fmt.Errorf("zlua: new state: %w", err)
	}
	e := &Env{g: g, created: make([]uintptr, 16)}
	e.created = e.created[:runtime.Callers(2, e.created)]
	if err := e.init(); err != nil {
		g.Close()
		return nil, err
	}
	openEnvs.Store(e, struct{}{})
	return e, nil
}

// init follows the lifecycle order of the design: libraries, prelude, then
// the prelude's Go-provided fields.
func (e *Env) init() error {
	g := e.g
	g.Enter()
	defer g.Exit()
	t := g.Current()
	g.S.ProgReset()
	if err := g.S.Commit(); err != nil {
		return err
	}
	if st, _ := g.S.Run(t, cgo.OpOpenLibs, 0, 0, 0); st != cgo.OK {
		return fmt.Errorf("zlua: open libraries: %w", g.ErrorFromTop(t, st))
	}
	if st := g.S.DoString(t, lua.Prelude, "=zlualib", "t"); st != cgo.OK {
		return fmt.Errorf("zlua: prelude: %w", g.ErrorFromTop(t, st))
	}
	if err := e.setField("zlua", "backend", Backend); err != nil {
		return fmt.Errorf("zlua: prelude: %w", err)
	}
	// Registries and the metatable cache, then the root table (seed 004
	// §7.1 steps 4 to 6).
	if err := g.InitObjects(); err != nil {
		return fmt.Errorf("zlua: object registry: %w", err)
	}
	if err := e.DoString(RootTable + " = {}"); err != nil {
		return fmt.Errorf("zlua: root table: %w", err)
	}
	return nil
}

// Close closes the Lua state, running every pending __gc, and releases all
// Go values Lua held. It is idempotent. It returns ErrBusy when called while
// Lua code of this Env is running.
func (e *Env) Close() error {
	if e.g.Closed() {
		return nil
	}
	if e.g.Depth() > 0 {
		return ErrBusy
	}
	e.g.Close()
	leakedSlots.Add(int64(e.g.LeakedSlots()))
	openEnvs.Delete(e)
	return nil
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
	// GoCalls counts Lua→Go calls; Panics the Go panics recovered.
	GoCalls, Panics uint64
	// PendingRefs is the number of Lua references released by Go and
	// waiting for the Env's next call to free them.
	PendingRefs int

	// LiveObjects is the number of Go objects Lua holds by reference (one
	// slot each, whatever the number of views); PeakObjects the most ever.
	LiveObjects, PeakObjects int
	// ObjectPushes counts Go objects pushed by reference; CacheHits the
	// pushes that found the object's slot alive (same object, same view).
	ObjectPushes, CacheHits uint64
	// SlotCapacity is the size of the slot table.
	SlotCapacity int
}

// Stats returns the Env's counters.
func (e *Env) Stats() Stats {
	s := e.g.Stats()
	o := e.g.ObjectStats()
	return Stats{LiveFuncs: s.LiveFuncs, GoCalls: s.Calls, Panics: s.Panics,
		PendingRefs: e.g.PendingUnrefs(),
		LiveObjects: o.Live, PeakObjects: o.Peak, ObjectPushes: o.Pushes,
		CacheHits: o.Hits, SlotCapacity: o.Capacity}
}

// Pump reclaims what Lua and Go released since the last call: function ids
// of collected Go closures, Lua references dropped by Go, and the slots of
// Go objects whose userdata Lua collected (their objects become
// collectable by Go). Env methods do the same when they return to the
// outermost caller; a game loop calls Pump once per frame so idle Envs
// release too.
func (e *Env) Pump() error {
	if e.g.Closed() {
		return ErrClosed
	}
	if e.g.Depth() == 0 {
		e.g.Settle()
	} else {
		e.g.DrainObjects()
	}
	return nil
}
