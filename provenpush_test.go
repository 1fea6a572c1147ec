package zlua_test

import (
	"slices"
	"testing"

	"github.com/zlua-go/zlua"
)

type provenEnt struct{ HP int }

func (p *provenEnt) Position() (float64, float64) { return 0, 0 }
func (p *provenEnt) Move(dx, dy float64)          {}
func (p *provenEnt) Neighbour() *provenEnt        { return p }
func (p *provenEnt) Damage(n int) bool            { p.HP -= n; return p.HP > 0 }

// TestMethodSentinelsOfATypeShareNoProvenEntry checks that the closures of
// one type's methods, made one after the other, stay in the proven-address
// cache together when a script calls them in turn (the frame's
// Position/Move/Neighbour/Damage): the cache indexes addresses by their
// low bits, where a multiplicative hash put them in two entries and three
// calls of four took the full check.
func TestMethodSentinelsOfATypeShareNoProvenEntry(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("e", &provenEnt{HP: 100}))
	must(t, e.DoString(`for i = 1, 3 do local x, y = e:Position(); e:Move(1, 0); local o = e:Neighbour(); o:Damage(1) end`))
	fn, _ := zlua.ProvenAddrs(e)
	if len(fn) < 4 {
		t.Fatalf("%d method sentinels in the proven-address cache after calling 4 methods, want 4: %#x", len(fn), fn)
	}
}

// TestPushedObjectsEnterTheProvenCache checks that an object pushed to Lua,
// new or found in the identity cache, is in the proven-address cache
// before any call uses it: the first method call or comparison on an
// object a Go function just returned finds it there.
func TestPushedObjectsEnterTheProvenCache(t *testing.T) {
	e := newEnv(t)
	objs := []*provenEnt{{HP: 1}, {HP: 2}, {HP: 3}}
	must(t, e.SetGlobal("get", func(i int) *provenEnt { return objs[i] }))
	for _, script := range []string{"a, b, c = get(0), get(1), get(2)", "a, b, c = nil, nil, nil; x = get(1)"} {
		must(t, e.DoString(script))
		_, ud := zlua.ProvenAddrs(e)
		own := zlua.OwnAddrs(e)
		if len(own) == 0 {
			t.Fatal("no userdata proved by address")
		}
		for _, p := range own {
			if !slices.Contains(ud, p) {
				t.Errorf("after %q: pushed userdata %#x not in the proven cache %#x", script, p, ud)
			}
		}
	}
}
