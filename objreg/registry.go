package objreg

import (
	"errors"
	"runtime"
	"sync/atomic"
	"unsafe"
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

// Slot is one entry of the slot table (32 bytes).
type Slot struct {
	// Val is the object; holding it here is what keeps it alive.
	Val any
	// Binding is the binding id the slot was pushed with.
	Binding uint32
	// Gen is the slot's generation; it changes on every release.
	Gen uint32

	keyed   bool
	live    bool
	pending bool
	pinned  bool // pins[slot] pins Val (see Pin)
}

// Ptr returns the data word of Val: for pointers, maps and channels the
// object's address (its identity, and the receiver of fast method calls).
func (s *Slot) Ptr() unsafe.Pointer { return (*[2]unsafe.Pointer)(unsafe.Pointer(&s.Val))[1] }

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
	pins    []runtime.Pinner
	free    []uint32
	ids     map[Key]uint32
	pending []uint32 // slots found by Lookup since the last Settle
	unarmed []uint32 // slots added since the last Settle

	// Counters, written by the owner and read by Stats from anywhere.
	// Pushes is hits + adds, so a cached push costs one atomic add.
	live, peak, capacity, pinned atomic.Int64
	hits, adds                   atomic.Uint64
}

// New returns an empty registry whose C side is c. Slot 0 is never used, so
// a zero slot index is invalid.
func New(c Counts) *Registry {
	r := &Registry{c: c, ids: make(map[Key]uint32)}
	r.slots = make([]Slot, 1, InitialSlots)
	r.capacity.Store(InitialSlots)
	return r
}

// Lookup returns the live slot of key and keeps it live until the next
// Settle: the program it is handed to may run later, and meanwhile the
// slot's current userdata, if only the weak cache refers to it, may be
// collected (or already was: its release may be queued).
func (r *Registry) Lookup(key Key) (slot, gen uint32, ok bool) {
	slot, ok = r.ids[key]
	if !ok {
		return 0, 0, false
	}
	s := &r.slots[slot]
	if !s.pending {
		s.pending = true
		r.pending = append(r.pending, slot)
	}
	r.hits.Add(1)
	return slot, s.Gen, true
}

// Add stores val in a new slot, handed to a program. When keyed, val is
// pointer-shaped (pointer, map, channel), key is MakeKey of its address
// and binding, and key maps to the slot until it is released.
func (r *Registry) Add(key Key, keyed bool, val any, binding uint32) (slot, gen uint32, err error) {
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
	s.Val, s.Binding = val, binding
	s.keyed, s.live = keyed, true
	if keyed {
		r.ids[key] = slot
	}
	// No userdata yet: if the program raises before creating it, only
	// Settle can tell (the slot never reaches the release queue).
	r.unarmed = append(r.unarmed, slot)
	r.adds.Add(1)
	if live := r.live.Add(1); live > r.peak.Load() {
		r.peak.Store(live)
	}
	return slot, s.Gen, nil
}

// Get returns the live slot with generation gen, or nil when it was
// released (a stale or resurrected userdata).
func (r *Registry) Get(slot, gen uint32) *Slot {
	if slot == 0 || int(slot) >= len(r.slots) {
		return nil
	}
	s := &r.slots[slot]
	if !s.live || s.Gen != gen {
		return nil
	}
	return s
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
	if !s.pinned {
		if r.pins == nil {
			r.pins = make([]runtime.Pinner, cap(r.slots))
		}
		r.pins[slot].Pin(s.Val)
		s.pinned = true
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
	if s.pinned {
		r.pins[i].Unpin()
		s.pinned = false
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
			if s.live && (all || !s.pending) && r.c.SlotCount(i) == 0 {
				r.release(i, s)
			}
		}
	})
}

// Quiet reports that Settle has nothing to do but drain the C queue
// (which the caller checks itself): no slot was handed out or found since
// the last Settle.
func (r *Registry) Quiet() bool { return len(r.pending) == 0 && len(r.unarmed) == 0 }

// Settle drains the release queue and releases slots handed to programs
// whose userdata was never created. Call it only when no push program can
// be running: then a live slot without userdata is garbage.
func (r *Registry) Settle() {
	r.drain(true)
	for _, list := range [2][]uint32{r.pending, r.unarmed} {
		for _, i := range list {
			s := &r.slots[i]
			s.pending = false
			if s.live && r.c.SlotCount(i) == 0 {
				r.release(i, s)
			}
		}
	}
	r.pending, r.unarmed = r.pending[:0], r.unarmed[:0]
}

func (r *Registry) release(i uint32, s *Slot) {
	if s.keyed {
		if key, _ := MakeKey(s.Ptr(), s.Binding); r.ids[key] == i {
			delete(r.ids, key)
		}
	}
	r.unpin(i, s)
	*s = Slot{Gen: s.Gen + 1}
	r.free = append(r.free, i)
	r.live.Add(-1)
}

// Close drops every object and returns how many slots were still live
// after the final drain (each one a slot Lua's collection never released).
func (r *Registry) Close() (leaked int) {
	r.Settle()
	leaked = int(r.live.Load())
	for i := range r.slots {
		r.unpin(uint32(i), &r.slots[i])
	}
	r.slots, r.pins = make([]Slot, 1), nil
	r.capacity.Store(1)
	r.free, r.pending, r.unarmed = nil, nil, nil
	clear(r.ids)
	r.live.Store(0)
	return leaked
}

// Stats returns the registry's counters. Safe from any goroutine; the
// counters are read one by one, not as one snapshot.
func (r *Registry) Stats() Stats {
	hits := r.hits.Load()
	return Stats{Live: int(r.live.Load()), Peak: int(r.peak.Load()),
		Pushes: hits + r.adds.Load(), Hits: hits, Capacity: int(r.capacity.Load()),
		Pinned: int(r.pinned.Load())}
}
