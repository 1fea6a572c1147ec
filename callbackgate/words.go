package callbackgate

import (
	"sync/atomic"

	"github.com/zlua-go/zlua/internal/relstore"
)

// ownerWord is the gate's owner word (Gate.busy). Loads, stores and the
// claim's compare-and-swap are sync/atomic's; Release, the store that
// ends every outermost API call, orders only what came before it
// (relstore), which is all a lock release needs: the next claimer's
// compare-and-swap then sees every write the call made. On amd64 that
// spares a locked instruction per call.
type ownerWord struct{ v int32 }

// Load returns the word (sequentially consistent).
func (w *ownerWord) Load() int32 { return atomic.LoadInt32(&w.v) }

// Store sets the word (sequentially consistent): the rare transitions
// (closed, abandoned), which other goroutines read without claiming.
func (w *ownerWord) Store(v int32) { atomic.StoreInt32(&w.v, v) }

// CompareAndSwap is the claim (sequentially consistent).
func (w *ownerWord) CompareAndSwap(old, new int32) bool {
	return atomic.CompareAndSwapInt32(&w.v, old, new)
}

// Release lets go of the claim: v is gateIdle, stored with release
// ordering.
func (w *ownerWord) Release(v int32) { relstore.Int32(&w.v, v) }

// threadWord is the owner's OS thread (Gate.cbTID): a word in C memory
// (cgo.NewOwnerWord) that the trampoline sets around the outermost Go
// function Lua calls on a thread (zlua_owner_begin/end) and Hold sets for
// its session; other goroutines read it (cgo.OnThread). Its stores need
// no more than release ordering: a goroutine on another thread that reads
// an old value finds a thread that is not its own either way (the word
// only ever holds the owner's thread or 0), and the owner reads its own
// stores in program order. The word outlives every State of the gate: it
// is freed when the Gate is unreachable (New).
type threadWord struct{ p *uintptr }

// Load returns the word.
func (w threadWord) Load() uintptr { return atomic.LoadUintptr(w.p) }

// Store sets the word (sequentially consistent).
func (w threadWord) Store(v uintptr) { atomic.StoreUintptr(w.p, v) }

// Release sets the word with release ordering.
func (w threadWord) Release(v uintptr) { relstore.Uintptr(w.p, v) }

// addr is the word's address, for cgo.OnThread's atomic load in C.
func (w threadWord) addr() *uintptr { return w.p }
