package objreg

import (
	"testing"
	"unsafe"
)

// fakeCounts plays the C side: userdata counts per slot and the queue.
type fakeCounts struct {
	count map[uint32]uint32
	queue []uint32
}

func (f *fakeCounts) ReserveSlots(uint32) bool     { return true }
func (f *fakeCounts) SlotCount(slot uint32) uint32 { return f.count[slot] }
func (f *fakeCounts) FreedSlots(fn func([]uint32)) { fn(f.queue); f.queue = nil }
func (f *fakeCounts) HasFreedSlots() bool          { return len(f.queue) > 0 }
func (f *fakeCounts) create(slot uint32)           { f.count[slot]++ }
func (f *fakeCounts) collect(slot uint32) {
	if f.count[slot]--; f.count[slot] == 0 {
		f.queue = append(f.queue, slot)
	}
}

func newFake() (*Registry, *fakeCounts) {
	c := &fakeCounts{count: map[uint32]uint32{}}
	return New(c), c
}

func TestSlotLifecycle(t *testing.T) {
	r, c := newFake()
	x := new(int)
	key, _ := MakeKey(unsafe.Pointer(x), 1)
	slot, gen, err := r.Add(key, true, x, 1)
	if err != nil || slot != 1 {
		t.Fatalf("Add = %d, %v", slot, err)
	}
	c.create(slot)
	if s, g, ok := r.Lookup(key); !ok || s != slot || g != gen {
		t.Fatalf("Lookup = %d %d %v", s, g, ok)
	}
	r.Settle() // the programs ran
	c.collect(slot)
	r.Drain()
	if r.Get(slot, gen) != nil || r.Stats().Live != 0 {
		t.Fatal("slot still live after its userdata was collected")
	}
	if _, _, ok := r.Lookup(key); ok {
		t.Fatal("identity entry survived the release")
	}
	slot2, gen2, _ := r.Add(key, true, x, 1)
	if slot2 != slot || gen2 == gen {
		t.Errorf("reuse: slot %d gen %d, want slot %d with a new generation", slot2, gen2, slot)
	}
}

func TestSlotOfARaisedProgramIsReleasedAtSettle(t *testing.T) {
	r, _ := newFake()
	x := new(int)
	slot, gen, _ := r.Add(0, false, x, 1)
	r.Drain() // never queued: Drain cannot know
	if r.Get(slot, gen) == nil {
		t.Fatal("Drain released a slot whose program may still run")
	}
	r.Settle() // no userdata was ever created
	if r.Get(slot, gen) != nil || r.Stats().Live != 0 {
		t.Fatal("Settle kept a slot without userdata")
	}
}

func TestFoundSlotWaitsForSettle(t *testing.T) {
	r, c := newFake()
	x := new(int)
	key, _ := MakeKey(unsafe.Pointer(x), 1)
	slot, gen, _ := r.Add(key, true, x, 1)
	c.create(slot)
	r.Settle()
	if _, _, ok := r.Lookup(key); !ok { // pushed again...
		t.Fatal("Lookup missed a live slot")
	}
	c.collect(slot) // ...and the old userdata dies before the program runs
	r.Drain()
	if r.Get(slot, gen) == nil {
		t.Fatal("Drain released a slot whose program has not run")
	}
	c.create(slot) // the program made the new userdata
	r.Settle()
	if r.Get(slot, gen) == nil {
		t.Fatal("Settle released a slot with a live userdata")
	}
	c.collect(slot)
	r.Drain()
	if r.Get(slot, gen) != nil {
		t.Fatal("slot not released after Settle")
	}
}

func TestSlotTableDoubles(t *testing.T) {
	r, _ := newFake()
	for i := 0; i < InitialSlots; i++ {
		r.Add(0, false, i, 1)
	}
	if got := r.Stats().Capacity; got != 2*InitialSlots {
		t.Errorf("capacity %d after %d adds, want %d", got, InitialSlots, 2*InitialSlots)
	}
	if leaked := r.Close(); leaked != 0 {
		t.Errorf("Close reported %d leaked slots that never had userdata", leaked)
	}
}

// A pinned object stays pinned while the table grows, and is unpinned
// when its slot is released and when the registry closes.
func TestPinsFollowSlots(t *testing.T) {
	r, c := newFake()
	base := LivePins()
	type obj struct{ n int }
	first := &obj{1}
	slot, gen, _ := r.Add(0, false, first, 1)
	c.create(slot)
	if p := r.Pin(r.Get(slot, gen)); p != unsafe.Pointer(first) {
		t.Fatalf("Pin = %p, want the object's address %p", p, first)
	}
	r.Pin(r.Get(slot, gen)) // again: nothing more
	if r.Stats().Pinned != 1 || LivePins() != base+1 {
		t.Fatalf("pinned %d, live pins %d", r.Stats().Pinned, LivePins()-base)
	}
	var keep []uint32
	for i := 0; i < 3*InitialSlots; i++ { // grows the table twice
		s, g, _ := r.Add(0, false, &obj{i}, 1)
		c.create(s)
		if i%100 == 0 {
			r.Pin(r.Get(s, g))
			keep = append(keep, s)
		}
	}
	r.Settle()
	if r.Stats().Pinned != 1+len(keep) || r.slots[slot].bits&fPinned == 0 {
		t.Fatalf("pinned %d after growth", r.Stats().Pinned)
	}
	c.collect(slot)
	r.Drain()
	if r.Stats().Pinned != len(keep) || LivePins() != base+int64(len(keep)) {
		t.Fatalf("released slot still pinned: %d", r.Stats().Pinned)
	}
	if leaked := r.Close(); leaked != 3*InitialSlots {
		t.Fatalf("Close leaked %d", leaked)
	}
	if LivePins() != base {
		t.Fatalf("%d pins left after Close", LivePins()-base)
	}
}

// A long call that makes many objects (a script loop calling a Go
// constructor) does not grow the list of slots Settle must check by one
// entry per object: armed and released slots leave it, while a slot whose
// userdata was never made stays and is released at Settle.
func TestUnarmedListStaysBoundedInALongCall(t *testing.T) {
	r, c := newFake()
	objs := make([]*int, 100_000)
	var never uint32
	for i := range objs {
		objs[i] = new(int)
		key, _ := MakeKey(unsafe.Pointer(objs[i]), 1)
		slot, _, err := r.Add(key, true, objs[i], 1)
		if err != nil {
			t.Fatal(err)
		}
		if i == 10 {
			never = slot // its program raised: no userdata
			continue
		}
		c.create(slot)
		if i%2 == 0 { // half collected at once, drained at the next Go entry
			c.collect(slot)
			r.Drain()
		}
	}
	if n := cap(r.unarmed); n > 4*minPrune {
		t.Errorf("unarmed list capacity %d after %d objects, want at most %d", n, len(objs), 4*minPrune)
	}
	found := false
	for _, s := range r.unarmed {
		found = found || s == never
	}
	if !found {
		t.Fatal("the never-armed slot left the unarmed list")
	}
	r.Settle()
	if s := &r.slots[never]; s.bits&fLive != 0 {
		t.Error("the never-armed slot is still live after Settle")
	}
	if live := r.Stats().Live; live != len(objs)/2 { // the odd ones
		t.Errorf("live slots %d, want %d", live, len(objs)/2)
	}
}

// Pushes of many new objects in one program (none armed until it runs)
// still cost amortized constant time: the list grows instead of being
// scanned again on every Add.
func TestUnarmedListGrowsWhenNothingIsArmed(t *testing.T) {
	r, _ := newFake()
	objs := make([]*int, 10*minPrune)
	for i := range objs {
		objs[i] = new(int)
		key, _ := MakeKey(unsafe.Pointer(objs[i]), 1)
		if _, _, err := r.Add(key, true, objs[i], 1); err != nil {
			t.Fatal(err)
		}
	}
	if len(r.unarmed) != len(objs) || cap(r.unarmed) > 4*len(objs) {
		t.Errorf("unarmed len %d cap %d for %d unarmed slots", len(r.unarmed), cap(r.unarmed), len(objs))
	}
	r.Settle()
	if r.Stats().Live != 0 {
		t.Errorf("%d slots live after Settle", r.Stats().Live)
	}
}
