package callbackgate

import (
	"errors"
	"runtime"
	"sync/atomic"

	"github.com/zlua-go/zlua/cgo"
	"github.com/zlua-go/zlua/pump"
)

var (
	// ErrReleased reports the use of a handle (Function, Table) after
	// Release.
	ErrReleased = errors.New("zlua: handle released")
	// ErrStale reports a handle of a state that was reset or closed.
	ErrStale = errors.New("zlua: handle belongs to a reset or closed Env")

	// ErrCopied reports the use of a copy of a handle struct (a Function,
	// Table or Thread dereferenced into a value, a field or a map): only
	// the handle the Env made, used through its pointer, holds the value.
	ErrCopied = errors.New("zlua: handle copied by value (keep and use the pointer the Env returned)")

	errZeroHandle = errors.New("zlua: handle not made by an Env")
)

// ErrZeroHandle is the refusal of a handle's zero value (not made by an
// Env), for the public API to name the operation in (as its other
// refusals).
var ErrZeroHandle = errZeroHandle

// luaRef is a registry reference owned by a Go handle: while the handle
// is reachable Lua keeps the value alive. Dropping the handle queues the
// ref for release on the Env's goroutine (Pump); release does it at once.
// Every handle kind (Function, Table) is built on one.
type luaRef struct {
	g        *Gate
	gen      uint64 // gate generation the ref belongs to
	ref      int32
	q        *pump.Queue
	released flag // Release may race with another Release (any goroutine)
	cleanup  runtime.Cleanup
	// home is where the ref was made: a copy of the handle struct that
	// holds it (the public handles are plain structs, and vet does not
	// flag their copies) has the same ref but another address. The
	// cleanup and the released flag are the original's, so a copy used
	// after the original was released or collected would use whatever
	// Lua put in the registry slot next, and its Release would free that
	// slot a second time (probe Y1 F1): every use refuses a copy.
	home *luaRef
	// shared is the ref's owner when the handle is one of several on it
	// (the argument cache's, argcache.go): the handle has no cleanup of
	// its own, and releasing it lets go of its share (sharedRef.leave).
	shared *sharedRef
}

// sharedRef is a registry ref several handles use: the handles the
// argument cache hands out for one Lua object, one per argument read. Each
// handle is released on its own; the ref is queued when the last one is
// released and the cache dropped it, or, for handles never released, when
// the sharedRef is collected (its cleanup, made once for all of them).
type sharedRef struct {
	users   atomic.Int32 // handles not released, plus one while cached
	dropped flag
	drop    refDrop
	cleanup runtime.Cleanup
}

// newSharedRef makes the sharedRef of ref (of g's state), held by the
// cache.
func newSharedRef(g *Gate, ref int32) *sharedRef {
	s := &sharedRef{drop: refDrop{g.unrefs, ref}}
	s.users.Store(1)
	s.cleanup = track(g, s, ref)
	return s
}

// leave ends one user's share; the last one queues the ref now.
func (s *sharedRef) leave() {
	if s.users.Add(-1) == 0 && s.dropped.set() {
		s.cleanup.Stop()
		dropRef(s.drop)
	}
}

// shareRef makes r, part of a new handle, a user of s (which the cache
// holds, so its ref is live).
func shareRef(r *luaRef, g *Gate, s *sharedRef) {
	s.users.Add(1)
	*r = luaRef{g: g, gen: g.gen, ref: s.drop.ref, q: g.unrefs, home: r, shared: s}
}

// flag is a one-way atomic flag. Unlike atomic.Bool it may be copied
// (vet's copylocks), so that a copied handle reaches the check that
// refuses it (luaRef.home) rather than a vet report users cannot act on
// through the public types.
type flag struct{ v uint32 }

// load reports whether the flag was set.
func (f *flag) load() bool { return atomic.LoadUint32(&f.v) != 0 }

// set sets the flag; it reports whether this call did.
func (f *flag) set() bool { return atomic.CompareAndSwapUint32(&f.v, 0, 1) }

// heldRefs counts, over every Env, the refs whose Go owner was neither
// released nor collected yet (tests check it returns to zero).
var heldRefs atomic.Int64

// HeldRefs returns the number of Lua references owned by Go handles and
// error values, over every Env, that were neither released nor collected:
// after the last handle is dropped and the cleanups ran it is zero, unless
// a reference was lost (a leak).
func HeldRefs() int64 { return heldRefs.Load() }

// refDrop is what a cleanup needs to give a ref back.
type refDrop struct {
	q   *pump.Queue
	ref int32
}

// dropRef is the cleanup of every owned ref: it queues the ref for the
// owner goroutine. It never touches Lua.
func dropRef(d refDrop) {
	d.q.Push(d.ref)
	heldRefs.Add(-1)
}

// own makes r hold ref (of this state), owned by owner, the handle r is
// part of: collecting owner queues the ref.
func own[T any](r *luaRef, g *Gate, owner *T, ref int32) {
	*r = luaRef{g: g, gen: g.gen, ref: ref, q: g.unrefs, cleanup: track(g, owner, ref), home: r}
}

// track counts ref as held and queues it when owner is collected.
func track[T any](g *Gate, owner *T, ref int32) runtime.Cleanup {
	g.liveRefs.Add(1)
	heldRefs.Add(1)
	return runtime.AddCleanup(owner, dropRef, refDrop{g.unrefs, ref})
}

// release queues the ref now (it is unreffed at the next Pump).
// Idempotent, from any goroutine: of two Releases racing, one queues the
// ref (two would free the registry slot twice, and two later handles
// would share it).
func (r *luaRef) release() {
	if r.g == nil || r.home != r || !r.released.set() {
		return // a copy releases nothing (see home)
	}
	if r.shared != nil {
		r.shared.leave()
		return
	}
	r.cleanup.Stop()
	dropRef(refDrop{r.q, r.ref})
}

// check reports whether the ref can still be used.
func (r *luaRef) check() error {
	switch {
	case r.g == nil:
		return errZeroHandle
	case r.home != r:
		return ErrCopied
	case r.released.load():
		return ErrReleased
	case r.g.Closed() || r.gen != r.g.gen:
		return ErrStale
	}
	return nil
}

// usable is check's part that needs no gate: nil, or why the handle
// (made by an Env) cannot be used: it was copied or released.
func (r *luaRef) usable() error {
	if r.home != r {
		return ErrCopied
	}
	if r.released.load() {
		return ErrReleased
	}
	return nil
}

// same reports whether r and o hold the same Lua value (rawequal). Handles
// of two Envs never do; a handle that cannot be used (zero, copied,
// released, stale) is an error, as for any other use. It claims r's gate.
func (r *luaRef) same(o *luaRef) (bool, error) {
	if r.g == nil || o.g == nil {
		return false, errZeroHandle
	}
	if err := r.usable(); err != nil {
		return false, err
	}
	if err := o.usable(); err != nil {
		return false, err
	}
	g := r.g
	if err := g.Enter(); err != nil {
		if err == ErrClosed {
			return false, ErrStale
		}
		return false, err
	}
	defer g.Exit()
	if err := r.check(); err != nil {
		return false, err
	}
	if o.g != g {
		return false, nil
	}
	if err := o.check(); err != nil {
		return false, err
	}
	if r.ref == o.ref {
		return true, nil
	}
	same, ok := g.S.RefsEqual(g.cur, int(r.ref), int(o.ref))
	if !ok {
		return false, ErrMemory
	}
	return same, nil
}

// Same reports whether the two tables are the same Lua table (rawequal).
func (tb *Table) Same(o *Table) (bool, error) { return tb.same(&o.luaRef) }

// Same reports whether the two handles hold the same Lua value (rawequal):
// the function, not a method binding's self.
func (f *Function) Same(o *Function) (bool, error) { return f.same(&o.luaRef) }

// Same reports whether the two handles hold the same coroutine.
func (th *Thread) Same(o *Thread) (bool, error) { return th.same(&o.luaRef) }

// put appends a push of the referenced value to g's program, refusing a
// ref of another Env or of a reset one.
func (r *luaRef) put(g *Gate, what string) error {
	if r.g == nil {
		return errZeroHandle
	}
	if r.g != g {
		return errors.New("zlua: " + what + " handle of another Env")
	}
	if err := r.check(); err != nil {
		return err
	}
	g.S.PutRef(r.ref)
	return nil
}

// refValue refs the value at absolute index idx of t (it stays there).
func (g *Gate) refValue(t cgo.Thread, idx int) (int32, error) {
	st, r := g.S.RefAt(t, idx) // one crossing: the copy and the ref
	ref, err := g.refDone(t, st, r)
	return int32(ref), err
}

// Gate returns the gate the handle belongs to.
func (r *luaRef) Gate() *Gate { return r.g }
