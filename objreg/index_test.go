package objreg

import (
	"math/rand"
	"testing"
	"unsafe"
)

// TestIndexMatchesAMap drives the identity index through random adds and
// releases (through the registry, with growth and backward-shift
// deletion) and compares every key with a Go map kept beside it.
func TestIndexMatchesAMap(t *testing.T) {
	r, c := newFake()
	rng := rand.New(rand.NewSource(1))
	objs := make([]*[3]int, 5000)
	for i := range objs {
		objs[i] = new([3]int)
	}
	want := map[Key]uint32{}
	gens := map[uint32]uint32{}
	for step := 0; step < 60000; step++ {
		o := objs[rng.Intn(len(objs))]
		binding := uint32(1 + rng.Intn(3))
		key, _ := MakeKey(unsafe.Pointer(o), binding)
		if slot, ok := want[key]; ok && rng.Intn(2) == 0 {
			c.collect(slot) // its last userdata goes: released at the next Drain
			r.Drain()
			delete(want, key)
			delete(gens, slot)
			continue
		}
		if _, ok := want[key]; ok {
			continue
		}
		slot, gen, err := r.Add(key, true, o, binding)
		if err != nil {
			t.Fatal(err)
		}
		c.create(slot)
		want[key], gens[slot] = slot, gen
		if step%1000 == 0 {
			r.Settle()
			for k, s := range want {
				if got, g, ok := r.Lookup(k); !ok || got != s || g != gens[s] {
					t.Fatalf("step %d: Lookup = %d %d %v, want slot %d gen %d", step, got, g, ok, s, gens[s])
				}
			}
			if r.ids.n != len(want) {
				t.Fatalf("step %d: index holds %d entries, want %d", step, r.ids.n, len(want))
			}
			r.Settle()
		}
	}
	for _, o := range objs[:100] { // absent keys stay absent
		key, _ := MakeKey(unsafe.Pointer(o), 4)
		if _, _, ok := r.Lookup(key); ok {
			t.Fatal("Lookup found a key never added")
		}
	}
	if r.ids.n*4 > len(r.ids.t)*3 {
		t.Fatalf("index of %d entries has only %d buckets", r.ids.n, len(r.ids.t))
	}
}

// TestIndexKeepsANewerSlotOfTheSameKey: an object pushed again while its
// old slot waits for release gets a new slot; releasing the old one must
// not drop the new entry (invariant 3 on the Go side).
func TestIndexKeepsANewerSlotOfTheSameKey(t *testing.T) {
	r, c := newFake()
	x := new(int)
	key, _ := MakeKey(unsafe.Pointer(x), 1)
	old, _, _ := r.Add(key, true, x, 1)
	c.create(old)
	r.Settle()
	newer, gen, _ := r.Add(key, true, x, 1) // as if Lookup had missed
	c.create(newer)
	r.Settle()
	c.collect(old)
	r.Drain()
	if s, g, ok := r.Lookup(key); !ok || s != newer || g != gen {
		t.Fatalf("Lookup = %d %d %v, want the newer slot %d", s, g, ok, newer)
	}
}

// TestValRebuildsTheObject checks that a slot gives back the very object
// (and its dynamic type) it was added with, for each kind a slot holds.
func TestValRebuildsTheObject(t *testing.T) {
	r, _ := newFake()
	p, m, ch, sl := new(int), map[string]int{"a": 1}, make(chan int), []int{1, 2}
	for i, v := range []any{p, m, ch, &sl, sl} {
		slot, gen, err := r.Add(0, false, v, uint32(i+1))
		if err != nil {
			t.Fatal(err)
		}
		got := r.Val(r.Get(slot, gen))
		switch want := v.(type) {
		case []int:
			if g, ok := got.([]int); !ok || &g[0] != &want[0] || len(g) != 2 {
				t.Fatalf("slice came back as %#v", got)
			}
		case map[string]int:
			if g, ok := got.(map[string]int); !ok || g["a"] != 1 {
				t.Fatalf("map came back as %#v", got)
			}
		default:
			if got != v {
				t.Fatalf("%T came back as %#v", v, got)
			}
		}
	}
	if _, _, err := r.Add(0, false, p, MaxBinding+1); err == nil {
		t.Fatal("binding beyond MaxBinding accepted")
	}
	r.Settle()
}

// TestIndexShrinksAfterABurst: the table a burst of keyed objects grew is
// given back as they are released (probe Z3-F3), and the survivors are
// still found, each at its slot, through every shrink.
func TestIndexShrinksAfterABurst(t *testing.T) {
	r, c := newFake()
	const n = 100_000
	objs := make([]*[2]int, n)
	slots := make([]uint32, n)
	keys := make([]Key, n)
	for i := range objs {
		objs[i] = new([2]int)
		keys[i], _ = MakeKey(unsafe.Pointer(objs[i]), 1)
		s, _, err := r.Add(keys[i], true, objs[i], 1)
		if err != nil {
			t.Fatal(err)
		}
		c.create(s)
		slots[i] = s
	}
	r.Settle()
	peak := len(r.ids.t)
	// release all but every 1000th, in batches, checking the survivors
	for lo := 0; lo < n; lo += 10_000 {
		for i := lo; i < lo+10_000; i++ {
			if i%1000 != 0 {
				c.collect(slots[i])
			}
		}
		r.Drain()
		for i := 0; i < n; i += 1000 {
			if s, _, ok := r.Lookup(keys[i]); !ok || s != slots[i] {
				t.Fatalf("after releasing up to %d: survivor %d = slot %d %v, want %d", lo+10_000, i, s, ok, slots[i])
			}
		}
		r.Settle()
	}
	if r.ids.n != n/1000 {
		t.Fatalf("index holds %d entries, want %d", r.ids.n, n/1000)
	}
	if len(r.ids.t) > max(minIndex, shrinkBelow*r.ids.n) {
		t.Fatalf("index of %d entries keeps %d buckets (peak %d)", r.ids.n, len(r.ids.t), peak)
	}
	for i := 1; i < 100; i++ { // released keys are gone
		if _, _, ok := r.Lookup(keys[i]); ok {
			t.Fatalf("released key %d still found", i)
		}
	}
}
