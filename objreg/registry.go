package objreg

import (
	"errors"
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/zlua-go/zlua/internal/idlist"
)

// InitialSlots is the slot table's initial capacity; it doubles when full.
const InitialSlots = 1024

// ErrNoMemory reports that the C side of the slot table could not grow.
var ErrNoMemory = errors.New("objreg: not enough memory for object slots")

// Counts is the C side of the slot table: live userdata per slot and the
// queue of slots whose last userdata was collected.
type Counts interface {
	// ReserveSlots makes slot n addressable; false when it cannot grow.
	ReserveSlots(n uint32) bool
	// SlotCount returns the number of live userdata of slot.
	SlotCount(slot uint32) uint32
	// FreedSlots calls f with queued slots and empties the queue.
	FreedSlots(f func(slots []uint32))
	// HasFreedSlots reports whether slots wait in the queue (checked first
	// so an empty queue costs no closure).
	HasFreedSlots() bool
}

// Key identifies an object with identity seen through one binding: its
// address in the low 48 bits, the binding (type and view) above. One word,
// so the identity map takes the runtime's fast 64-bit path.
type Key uint64

// MakeKey returns the key of the object at ptr pushed with binding; ok is
// false when either does not fit (an address above 2^48, which Go heap
// objects never have, or more than 65535 bindings): such a push simply
// gets no identity.
func MakeKey(ptr unsafe.Pointer, binding uint32) (k Key, ok bool) {
	p := uint64(uintptr(ptr))
	if p>>48 != 0 || binding>>16 != 0 {
		return 0, false
	}
	return Key(p | uint64(binding)<<48), true
}

// Slot is one entry of the slot table (16 bytes): the data word of the
// object's interface value, its generation, and its binding id with the
// slot's flags. The object's dynamic type is its binding's, kept once per
// binding by the registry (Registry.Val rebuilds the interface value).
type Slot struct {
	// ptr is the object's data word: for pointers, maps and channels the
	// object itself, for a slice by reference its boxed header. Holding
	// it here is what keeps the object alive.
	ptr unsafe.Pointer
	// Gen is the slot's generation; it changes on every release.
	Gen  uint32
	bits uint32 // binding id (low 28 bits) | flags
}

// Slot flags, above the binding id in Slot.bits.
const (
	fKeyed   = 1 << 28 // in the identity index
	fLive    = 1 << 29
	fPending = 1 << 30 // found by Lookup since the last Settle
	fPinned  = 1 << 31 // pins[slot] pins the object (see Pin)

	// MaxBinding is the largest binding id a slot can hold.
	MaxBinding = 1<<28 - 1
)

// Ptr returns the object's data word: for pointers, maps and channels the
// object's address (its identity, and the receiver of fast method calls).
func (s *Slot) Ptr() unsafe.Pointer { return s.ptr }

// key is the identity of a keyed slot's object (see MakeKey).
func (s *Slot) key() Key { return Key(uint64(uintptr(s.ptr)) | uint64(s.bits&MaxBinding)<<48) }

// Stats are the registry's counters.
type Stats struct {
	Live, Peak   int    // slots holding an object now, and the most ever
	Pushes, Hits uint64 // objects pushed, and pushes served by a live slot
	Capacity     int    // slots allocated
	Pinned       int    // live slots whose object is pinned (see Pin)
}

// Registry is the slot table and identity map of one Lua state. It is used
// by one goroutine at a time, except Stats, which any goroutine may call.
type Registry struct {
	c     Counts
	slots []Slot
	// pins parallels slots once an object was pinned (nil before, so a
	// registry that never pins pays nothing per slot). A Pinner outlives
	// the objects of its slot: one that unpinned keeps its backing store,
	// so pinning the slot's next object allocates nothing.
	pins []runtime.Pinner
	free []uint32
	ids  index // identity: Key → slot, keyed slots only
	// types holds, per binding id, the type word of that binding's
	// objects (a binding has one concrete type): what Val puts back
	// beside a slot's data word.
	types   []unsafe.Pointer
	pending []uint32 // slots found by Lookup since the last Settle
	unarmed []uint32 // slots added since the last Settle

	// Counters. The owner counts pushes, hits and live slots in plain
	// fields (an atomic add costs ≈ 8 ns, more than the rest of a cached
	// lookup) and publishes them to the atomics Stats reads from any
	// goroutine: at Settle, after a Drain released slots, at Close, and
	// every statsEvery pushes, so a long call's figures lag by less than
	// that. capacity and pinned change rarely and are stored directly.
	nLive, nPeak                 int64
	nHits, nAdds                 uint64
	dirty                        bool // a counter changed since the last publish
	live, peak, capacity, pinned atomic.Int64
	hits, adds                   atomic.Uint64
}

// New returns an empty registry whose C side is c. Slot 0 is never used, so
// a zero slot index is invalid.
func New(c Counts) *Registry {
	r := &Registry{c: c}
	r.slots = make([]Slot, 1, InitialSlots)
	r.capacity.Store(InitialSlots)
	return r
}

// Lookup returns the live slot of key and keeps it live until the next
// Settle: the program it is handed to may run later, and meanwhile the
// slot's current userdata, if only the weak cache refers to it, may be
// collected (or already was: its release may be queued).
func (r *Registry) Lookup(key Key) (slot, gen uint32, ok bool) {
	i := r.ids.find(r.slots, key)
	if i < 0 {
		return 0, 0, false
	}
	slot = r.ids.t[i]
	s := &r.slots[slot]
	if s.bits&fPending == 0 {
		s.bits |= fPending
		r.pending = append(r.pending, slot)
	}
	r.nHits++
	r.dirty = true
	if r.nHits%statsEvery == 0 {
		r.publish()
	}
	return slot, s.Gen, true
}

// Held returns the live slot of key like Lookup, without keeping it: for
// a caller whose C side pushes the slot's userdata from the identity cache
// in the same crossing that reads it (no Lua code runs between), and
// finds nothing on a miss. A hit is counted with Hit.
func (r *Registry) Held(key Key) (slot, gen uint32, ok bool) {
	i := r.ids.find(r.slots, key)
	if i < 0 {
		return 0, 0, false
	}
	slot = r.ids.t[i]
	return slot, r.slots[slot].Gen, true
}

// Hit counts n pushes of slots found by Held and served from the cache,
// and publishes the count (Stats is exact between calls, as after Settle).
func (r *Registry) Hit(n int) {
	r.nHits += uint64(n)
	r.hits.Store(r.nHits)
}

// errBinding reports a binding id beyond MaxBinding.
var errBinding = errors.New("objreg: too many bindings")

// Add stores val in a new slot, handed to a program. val is a pointer,
// map, channel or slice; every val of one binding has the same dynamic
// type. When keyed, val is pointer-shaped (pointer, map, channel), key is
// MakeKey of its address and binding, and key maps to the slot until it
// is released.
func (r *Registry) Add(key Key, keyed bool, val any, binding uint32) (slot, gen uint32, err error) {
	if binding > MaxBinding {
		return 0, 0, errBinding
	}
	word := (*[2]unsafe.Pointer)(unsafe.Pointer(&val))
	if int(binding) >= len(r.types) {
		r.types = append(r.types, make([]unsafe.Pointer, int(binding)+1-len(r.types))...)
	}
	if t := r.types[binding]; t != word[0] {
		if t != nil {
			panic("objreg: binding used with two types")
		}
		r.types[binding] = word[0]
	}
	if n := len(r.free); n > 0 {
		slot = r.free[n-1]
		r.free = r.free[:n-1]
	} else {
		if len(r.slots) == cap(r.slots) {
			grown := make([]Slot, len(r.slots), 2*cap(r.slots))
			copy(grown, r.slots)
			r.slots = grown
			r.capacity.Store(int64(cap(grown)))
			if r.pins != nil {
				pins := make([]runtime.Pinner, cap(r.slots))
				copy(pins, r.pins)
				r.pins = pins
			}
		}
		slot = uint32(len(r.slots))
		if !r.c.ReserveSlots(slot) {
			return 0, 0, ErrNoMemory
		}
		r.slots = r.slots[:slot+1]
	}
	s := &r.slots[slot]
	s.ptr, s.bits = word[1], binding|fLive
	if keyed {
		if s.key() != key {
			panic("objreg: Add of a key that is not the object's address")
		}
		s.bits |= fKeyed
		r.ids.set(r.slots, key, slot)
	}
	// No userdata yet: if the program raises before creating it, only
	// Settle can tell (the slot never reaches the release queue).
	if len(r.unarmed) == cap(r.unarmed) && len(r.unarmed) >= minPrune {
		r.pruneUnarmed()
	}
	r.unarmed = append(r.unarmed, slot)
	r.nAdds++
	if r.nLive++; r.nLive > r.nPeak {
		r.nPeak = r.nLive
	}
	r.dirty = true
	if r.nAdds%statsEvery == 0 {
		r.publish()
	}
	return slot, s.Gen, nil
}

// minPrune is the length of the unarmed list from which Add, instead of
// growing it, first drops the slots it no longer needs to watch.
const minPrune = 256

// pruneUnarmed drops from the unarmed list the slots whose userdata
// exists (a count above 0: their __gc will queue them) and the slots
// already released (a reused slot was listed again by its new Add). What
// stays is live with no userdata counted: a program not yet run, one
// that raised, or a userdata collected and queued for Drain. Without it a
// long call that makes many objects (a loop in one script calling a Go
// constructor) grows the list by one entry per object until the
// outermost Settle.
func (r *Registry) pruneUnarmed() {
	r.unarmed = idlist.Prune(r.unarmed, func(i uint32) bool {
		return r.slots[i].bits&fLive != 0 && r.c.SlotCount(i) == 0
	})
}

// Get returns the live slot with generation gen, or nil when it was
// released (a stale or resurrected userdata).
func (r *Registry) Get(slot, gen uint32) *Slot {
	if slot == 0 || int(slot) >= len(r.slots) {
		return nil
	}
	s := &r.slots[slot]
	if s.bits&fLive == 0 || s.Gen != gen {
		return nil
	}
	return s
}

// Val returns the object of the live slot s (from Get) as the interface
// value it was added as. It allocates nothing: the data word and the
// binding's type word are put back together.
func (r *Registry) Val(s *Slot) any {
	var v any
	w := (*[2]unsafe.Pointer)(unsafe.Pointer(&v))
	w[0], w[1] = r.types[s.bits&MaxBinding], s.ptr
	return v
}

// Pin pins the object of the live slot s (from Get, with no push in
// between), a pointer, so that C may keep its address (the fields C
// serves are read and written through it), and returns that address. The
// object stays pinned until the slot is released (or the registry
// closed). Pinning a pinned slot does nothing.
func (r *Registry) Pin(s *Slot) unsafe.Pointer {
	slot := (uintptr(unsafe.Pointer(s)) - uintptr(unsafe.Pointer(&r.slots[0]))) / unsafe.Sizeof(Slot{})
	if slot >= uintptr(len(r.slots)) || &r.slots[slot] != s {
		panic("objreg: Pin of a slot from an older table") // s must come from Get just before
	}
	if s.bits&fPinned == 0 {
		if r.pins == nil {
			r.pins = make([]runtime.Pinner, cap(r.slots))
		}
		r.pins[slot].Pin(s.ptr)
		s.bits |= fPinned
		r.pinned.Add(1)
		livePins.Add(1)
	}
	return s.Ptr()
}

// livePins counts the objects pinned by every registry of the process.
var livePins atomic.Int64

// LivePins returns the number of objects pinned by all registries now: 0
// once every slot that pinned was released or its registry closed (tests
// check it for leaks).
func LivePins() int64 { return livePins.Load() }

// unpin ends the pin of slot i, if any.
func (r *Registry) unpin(i uint32, s *Slot) {
	if s.bits&fPinned != 0 {
		r.pins[i].Unpin()
		s.bits &^= fPinned
		r.pinned.Add(-1)
		livePins.Add(-1)
	}
}

// Drain releases the slots whose last userdata was collected, except
// slots found by Lookup since the last Settle: the program they were
// handed to may not have run yet. A slot from Add reaches the queue only
// after its program made its userdata, so Drain is safe while programs run
// (at any depth).
func (r *Registry) Drain() { r.drain(false) }

func (r *Registry) drain(all bool) {
	if !r.c.HasFreedSlots() {
		return
	}
	r.c.FreedSlots(func(slots []uint32) {
		for _, i := range slots {
			s := &r.slots[i]
			if s.bits&fLive != 0 && (all || s.bits&fPending == 0) && r.c.SlotCount(i) == 0 {
				r.release(i, s)
			}
		}
	})
	if r.dirty {
		r.publish()
	}
}

// Quiet reports that Settle has nothing to do but drain the C queue
// (which the caller checks itself): no slot was handed out or found, and
// no counter changed, since the last Settle.
func (r *Registry) Quiet() bool { return len(r.pending) == 0 && len(r.unarmed) == 0 && !r.dirty }

// Settle drains the release queue and releases slots handed to programs
// whose userdata was never created. Call it only when no push program can
// be running: then a live slot without userdata is garbage.
func (r *Registry) Settle() {
	r.drain(true)
	for _, list := range [2][]uint32{r.pending, r.unarmed} {
		for _, i := range list {
			s := &r.slots[i]
			s.bits &^= fPending
			if s.bits&fLive != 0 && r.c.SlotCount(i) == 0 {
				r.release(i, s)
			}
		}
	}
	r.pending, r.unarmed = r.pending[:0], r.unarmed[:0]
	if r.dirty {
		r.publish()
	}
}

// PendingLen is how many slots Lookup found since the last Settle.
func (r *Registry) PendingLen() int { return len(r.pending) }

// SettlePending ends what Lookup began since the last Settle: the found
// slots are no longer kept, and those whose userdata Lua collected
// meanwhile are released. Call it only when no push can be under way
// (cgo State.Pushing false): a long call that hands many objects back and
// forth would otherwise keep every one of them, and its Go object, until
// it returned (probe A3-F1).
func (r *Registry) SettlePending() {
	for _, i := range r.pending {
		s := &r.slots[i]
		s.bits &^= fPending
		if s.bits&fLive != 0 && r.c.SlotCount(i) == 0 {
			r.release(i, s)
		}
	}
	r.pending = r.pending[:0]
	if r.dirty {
		r.publish()
	}
}

func (r *Registry) release(i uint32, s *Slot) {
	if s.bits&fKeyed != 0 {
		r.ids.remove(r.slots, s.key(), i)
	}
	r.unpin(i, s)
	*s = Slot{Gen: s.Gen + 1}
	r.free = append(r.free, i)
	r.nLive--
	r.dirty = true
}

// statsEvery bounds how many pushes Stats may lag behind during a call.
const statsEvery = 1024

// publish stores the owner's counters where Stats reads them.
//
// Only the counters that changed are stored: a sync/atomic store is a
// locked instruction on amd64 (about twenty cycles), and the common
// outermost call, one that passed Lua an object it already holds, changed
// only the hits. The owner is the only writer, so its loads read back what
// it stored last.
func (r *Registry) publish() {
	if r.live.Load() != r.nLive {
		r.live.Store(r.nLive)
	}
	if r.peak.Load() != r.nPeak {
		r.peak.Store(r.nPeak)
	}
	if r.hits.Load() != r.nHits {
		r.hits.Store(r.nHits)
	}
	if r.adds.Load() != r.nAdds {
		r.adds.Store(r.nAdds)
	}
	r.dirty = false
}

// Close drops every object and returns how many slots were still live
// after the final drain (each one a slot Lua's collection never released).
func (r *Registry) Close() (leaked int) {
	r.Settle()
	leaked = int(r.nLive)
	for i := range r.slots {
		r.unpin(uint32(i), &r.slots[i])
	}
	r.slots, r.pins = make([]Slot, 1), nil
	r.capacity.Store(1)
	r.free, r.pending, r.unarmed = nil, nil, nil
	r.ids.clear()
	r.types = nil
	r.nLive = 0
	r.publish()
	return leaked
}

// Stats returns the registry's counters. Safe from any goroutine; the
// counters are read one by one, not as one snapshot, and while the owner
// runs a call Live, Peak, Pushes and Hits may lag by up to statsEvery
// pushes (see publish).
func (r *Registry) Stats() Stats {
	hits := r.hits.Load()
	return Stats{Live: int(r.live.Load()), Peak: int(r.peak.Load()),
		Pushes: hits + r.adds.Load(), Hits: hits, Capacity: int(r.capacity.Load()),
		Pinned: int(r.pinned.Load())}
}
