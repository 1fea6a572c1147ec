package structreg

import (
	"errors"
	"sync/atomic"

	"github.com/zlua-go/zlua/internal/idlist"
)

// ErrNoMemory reports that the C side of the companion table could not
// grow.
var ErrNoMemory = errors.New("structreg: not enough memory for struct companions")

// States is the C side of the companion table: one state byte per slot
// (0 no userdata yet, 1 alive, 2 collected) and the queue of collected
// slots.
type States interface {
	// ReserveCompanions makes slot n addressable; false when it cannot grow.
	ReserveCompanions(n uint32) bool
	// CompanionState returns the state byte of slot i.
	CompanionState(i uint32) byte
	// ArmCompanion sets the state byte of slot i to 0.
	ArmCompanion(i uint32)
	// FreedCompanions calls f with queued slots and empties the queue.
	FreedCompanions(f func(slots []uint32))
	// HasFreedCompanions reports whether slots wait in the queue (checked
	// first so an empty queue costs no closure).
	HasFreedCompanions() bool
}

type slot struct {
	val  any // a pointer to the companion copy
	gen  uint32
	live bool
}

// Registry holds the companions of one Lua state: the copies of
// non-blittable struct values Lua holds. Slot 0 is never used. It is used
// by one goroutine at a time.
type Registry struct {
	c       States
	slots   []slot
	free    []uint32
	unarmed []uint32 // slots added since the last Settle
	// live and peak are written by the owner and read from anywhere.
	live, peak atomic.Int64
}

// New returns an empty registry whose C side is c.
func New(c States) *Registry { return &Registry{c: c, slots: make([]slot, 1, 64)} }

// Add stores val (a pointer to the copy) in a new slot and returns its
// index and generation, for a push program that creates its userdata.
func (r *Registry) Add(val any) (idx, gen uint32, err error) {
	if n := len(r.free); n > 0 {
		idx = r.free[n-1]
		r.free = r.free[:n-1]
	} else {
		idx = uint32(len(r.slots))
		if !r.c.ReserveCompanions(idx) {
			return 0, 0, ErrNoMemory
		}
		r.slots = append(r.slots, slot{})
	}
	s := &r.slots[idx]
	s.val, s.live = val, true
	r.c.ArmCompanion(idx)
	if len(r.unarmed) == cap(r.unarmed) && len(r.unarmed) >= minPrune {
		r.pruneUnarmed()
	}
	r.unarmed = append(r.unarmed, idx)
	if live := r.live.Add(1); live > r.peak.Load() {
		r.peak.Store(live)
	}
	return idx, s.gen, nil
}

// minPrune is the length of the unarmed list from which Add, instead of
// growing it, first drops the slots it no longer needs to watch.
const minPrune = 256

// pruneUnarmed drops from the unarmed list the slots whose userdata
// exists or existed (C state 1 or 2: their __gc queues them) and the
// slots already released; what stays is live with no userdata yet. Without
// it a long call that makes many companions (a script loop calling a Go
// function that returns a non-blittable struct) grows the list by one
// entry per value until the outermost Settle. A list still mostly unarmed
// grows instead, so the scan stays amortized O(1) per Add.
func (r *Registry) pruneUnarmed() {
	r.unarmed = idlist.Prune(r.unarmed, func(i uint32) bool {
		return r.slots[i].live && r.c.CompanionState(i) == 0
	})
}

// Get returns the value of slot idx if it is live with generation gen.
func (r *Registry) Get(idx, gen uint32) (any, bool) {
	if idx == 0 || int(idx) >= len(r.slots) {
		return nil, false
	}
	s := &r.slots[idx]
	if !s.live || s.gen != gen {
		return nil, false
	}
	return s.val, true
}

func (r *Registry) release(idx uint32) {
	s := &r.slots[idx]
	if !s.live {
		return
	}
	s.val, s.live = nil, false
	s.gen++
	r.free = append(r.free, idx)
	r.live.Add(-1)
}

// Drain releases the slots whose userdata Lua collected. Safe at any
// depth: a collected userdata never comes back.
func (r *Registry) Drain() {
	if !r.c.HasFreedCompanions() {
		return
	}
	r.c.FreedCompanions(func(slots []uint32) {
		for _, i := range slots {
			if int(i) < len(r.slots) && r.c.CompanionState(i) == 2 {
				r.release(i)
			}
		}
	})
}

// Settle drains, then releases the slots added since the last Settle
// whose userdata was never created (their program raised first). Call it
// only when no push program can be running.
func (r *Registry) Settle() {
	r.Drain()
	for _, i := range r.unarmed {
		if r.slots[i].live && r.c.CompanionState(i) == 0 {
			r.release(i)
		}
	}
	r.unarmed = r.unarmed[:0]
}

// Quiet reports that Settle has nothing to do but drain the C queue
// (which the caller checks itself): no slot waits for its userdata.
func (r *Registry) Quiet() bool { return len(r.unarmed) == 0 }

// Live returns the number of companions held; Peak the most ever.
// Safe from any goroutine.
func (r *Registry) Live() int { return int(r.live.Load()) }

// Peak returns the highest number of companions held at once.
func (r *Registry) Peak() int { return int(r.peak.Load()) }

// Close releases everything after lua_close ran every __gc and returns
// how many slots were still live then (each one a leak).
func (r *Registry) Close() int {
	r.Settle()
	leaked := r.Live()
	r.slots, r.free, r.unarmed = nil, nil, nil
	r.live.Store(0)
	return leaked
}
