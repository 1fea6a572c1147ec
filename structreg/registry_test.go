package structreg

import (
	"reflect"
	"testing"

	"github.com/zlua-go/zlua/cgo"
)

// states is a stand-in for the C side of the companion table.
type states struct {
	st    map[uint32]byte
	queue []uint32
}

func (s *states) ReserveCompanions(uint32) bool    { return true }
func (s *states) CompanionState(i uint32) byte     { return s.st[i] }
func (s *states) ArmCompanion(i uint32)            { s.st[i] = 0 }
func (s *states) FreedCompanions(f func([]uint32)) { f(s.queue); s.queue = nil }
func (s *states) HasFreedCompanions() bool         { return len(s.queue) > 0 }
func (s *states) collect(i uint32)                 { s.st[i] = 2; s.queue = append(s.queue, i) }
func (s *states) create(i uint32)                  { s.st[i] = 1 }

func TestRegistryLifecycle(t *testing.T) {
	c := &states{st: map[uint32]byte{}}
	r := New(c)
	a, ga, _ := r.Add("a")
	b, _, _ := r.Add("b")
	c.create(a) // b's program "raised": no userdata
	if r.Live() != 2 {
		t.Fatalf("Live = %d", r.Live())
	}
	r.Drain()
	if v, ok := r.Get(a, ga); !ok || v != "a" {
		t.Fatalf("Get(a) = %v, %v", v, ok)
	}
	r.Settle() // b never got its userdata
	if _, ok := r.Get(b, 0); ok || r.Live() != 1 {
		t.Fatalf("b not released by Settle (live %d)", r.Live())
	}
	c.collect(a)
	r.Drain()
	if _, ok := r.Get(a, ga); ok || r.Live() != 0 {
		t.Fatal("a not released after __gc")
	}
	a2, ga2, _ := r.Add("c")
	if a2 != b && a2 != a || ga2 == 0 && a2 == a {
		t.Fatalf("slot %d gen %d not reused with a new generation", a2, ga2)
	}
	if _, ok := r.Get(0, 0); ok {
		t.Fatal("slot 0 is valid")
	}
	c.create(a2)
	if r.Close() != 1 || r.Peak() != 2 {
		t.Fatalf("Close/Peak")
	}
}

type Inner struct{ A int16 }

type blit struct {
	X float32
	Inner
	Arr [2]uint8
	B   bool `lua:"b"`
	H   int  `lua:"-"`
	u   int
}

type nonblit struct {
	S string
	N int
}

func TestLayout(t *testing.T) {
	l := LayoutOf(reflect.TypeFor[blit]())
	if !l.Blittable || l.Name != "blit" {
		t.Fatalf("layout %+v", l)
	}
	want := map[string]int{"X": cgo.SvF32, "Inner": 0, "Arr": 0, "b": cgo.SvBool, "A": cgo.SvI16}
	if len(l.Fields) != len(want) {
		t.Fatalf("fields %v", l.Fields)
	}
	for name, k := range want {
		f := l.Fields[name]
		if f == nil || f.Kind != k {
			t.Fatalf("field %s = %+v, want kind %d", name, f, k)
		}
	}
	if off := l.Fields["A"].Offset; off != reflect.TypeFor[blit]().Field(1).Offset {
		t.Fatalf("promoted offset %d", off)
	}
	if LayoutOf(reflect.TypeFor[blit]()) != l {
		t.Fatal("layout not cached")
	}
	n := LayoutOf(reflect.TypeFor[nonblit]())
	if n.Blittable || n.Fields["N"].Kind != 0 {
		t.Fatalf("nonblit %+v", n)
	}
	for _, c := range []struct {
		v    any
		want bool
	}{{[3]float64{}, true}, {"", false}, {[]int{}, false}, {struct{ P *int }{}, false}, {complex(1, 2), false}} {
		if got := Blittable(reflect.TypeOf(c.v)); got != c.want {
			t.Errorf("Blittable(%T) = %v", c.v, got)
		}
	}
}

// A long call that makes many companions keeps the unarmed list short:
// slots whose userdata exists or was collected leave it, a slot whose
// program raised stays and is released at Settle. Nothing armed: the list
// grows (amortized), and Settle releases them all.
func TestUnarmedCompanionsStayBoundedInALongCall(t *testing.T) {
	c := &states{st: map[uint32]byte{}}
	r := New(c)
	var never uint32
	for i := 0; i < 100_000; i++ {
		idx, _, err := r.Add(i)
		if err != nil {
			t.Fatal(err)
		}
		if i == 10 {
			never = idx
			continue
		}
		c.create(idx)
		if i%2 == 0 {
			c.collect(idx)
			r.Drain()
		}
	}
	if n := cap(r.unarmed); n > 4*minPrune {
		t.Errorf("unarmed list capacity %d after 100000 companions, want at most %d", n, 4*minPrune)
	}
	r.Settle()
	if r.slots[never].live {
		t.Error("the never-armed companion is still live after Settle")
	}
	if r.Live() != 50_000 {
		t.Errorf("Live = %d, want 50000", r.Live())
	}
	for i := 0; i < 10*minPrune; i++ {
		if _, _, err := r.Add(i); err != nil {
			t.Fatal(err)
		}
	}
	if len(r.unarmed) != 10*minPrune {
		t.Errorf("unarmed list holds %d of %d unarmed companions", len(r.unarmed), 10*minPrune)
	}
	r.Settle()
	if r.Live() != 50_000 {
		t.Errorf("Live = %d after Settle of the unarmed ones, want 50000", r.Live())
	}
}
