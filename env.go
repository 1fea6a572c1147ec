package zlua

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/zlua-go/zlua/callbackgate"
	"github.com/zlua-go/zlua/cgo"
	"github.com/zlua-go/zlua/lua"
)

// Options configure New. The zero value gives the build's backend (Lua 5.4,
// or LuaJIT with the build tag luajit), all standard libraries, the zlua
// prelude and no memory limit.
type Options struct {
	// MemoryLimit caps the Lua heap in bytes; 0 means no limit. An
	// allocation past it fails: Lua raises "not enough memory", which pcall
	// can catch, and an uncaught one reaches Go as an error matching
	// ErrMemory. The Env stays usable. See docs/RELIABILITY.md.
	MemoryLimit int64
	// Libs selects the standard libraries scripts get: LibsAll (the zero
	// value) or LibsSafe for untrusted scripts.
	Libs Libs
}

// Env is one Lua state with everything zlua keeps for it. An Env is used by
// one goroutine at a time.
type Env struct {
	g       *callbackgate.Gate
	created []uintptr // where New was called, for leak reports
	libs    Libs
}

// Backend names the linked Lua implementation, e.g. "Lua 5.4.4" or
// "LuaJIT 2.1.0-beta3".
const Backend = cgo.Backend

// New creates an Env: the state, the standard libraries, the prelude
// (the global zlua table). Close releases it.
func New(opts Options) (*Env, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	g, err := callbackgate.New()
	if err != nil {
		return nil, fmt.Errorf("zlua: new state: %w", err)
	}
	g.S.SetMemoryLimit(uint64(opts.MemoryLimit))
	e := &Env{g: g, created: make([]uintptr, 16), libs: opts.Libs}
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
	if st, _ := g.S.Run(t, e.libs.openOp(), 0, 0, 0); st != cgo.OK {
		return fmt.Errorf("zlua: open libraries: %w", g.ErrorFromTop(t, st))
	}
	if st := g.S.DoString(t, lua.Prelude, "=zlualib", "t"); st != cgo.OK {
		return fmt.Errorf("zlua: prelude: %w", g.ErrorFromTop(t, st))
	}
	if err := e.setField("zlua", "backend", Backend); err != nil {
		return fmt.Errorf("zlua: prelude: %w", err)
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
	openEnvs.Delete(e)
	return nil
}

// openEnvs holds the Envs not yet closed, so tests can report leaks with
// the place each was created.
var openEnvs sync.Map // *Env → struct{}

// Stats are counters of an Env.
type Stats struct {
	// LiveFuncs is the number of Go functions Lua can still reach (each
	// function value pushed counts once until Lua collects it).
	LiveFuncs int
	// GoCalls counts Lua→Go calls; Panics the Go panics recovered.
	GoCalls, Panics uint64
	// PendingRefs is the number of Lua references released by Go and
	// waiting for the Env's next call to free them.
	PendingRefs int
	// LuaBytes is the Lua heap in use, LuaPeakBytes its highest value
	// since New (what Options.MemoryLimit caps).
	LuaBytes, LuaPeakBytes uint64
}

// Stats returns the Env's counters.
func (e *Env) Stats() Stats {
	s := e.g.Stats()
	st := Stats{LiveFuncs: s.LiveFuncs, GoCalls: s.Calls, Panics: s.Panics,
		PendingRefs: e.g.PendingUnrefs()}
	if !e.g.Closed() {
		st.LuaBytes, st.LuaPeakBytes = e.g.S.MemUsed()
	}
	return st
}

// Pump reclaims what Lua and Go released since the last call: function ids
// of collected Go closures and Lua references dropped by Go. Env methods do
// the same when they return to the outermost caller; a game loop calls
// Pump once per frame so idle Envs release too.
func (e *Env) Pump() error {
	if e.g.Closed() {
		return ErrClosed
	}
	if e.g.Depth() == 0 {
		e.g.Settle()
	}
	return nil
}
