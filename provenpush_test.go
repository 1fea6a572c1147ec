package zlua_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/zlua-go/zlua"
	"github.com/zlua-go/zlua/cgo"
)

type provenEnt struct{ HP int }

func (p *provenEnt) Position() (float64, float64) { return 0, 0 }
func (p *provenEnt) Move(dx, dy float64)          {}
func (p *provenEnt) Neighbour() *provenEnt        { return p }
func (p *provenEnt) Damage(n int) bool            { p.HP -= n; return p.HP > 0 }

// TestProvenCachesSpreadRegularlySpacedBlocks checks that blocks
// allocated at a regular spacing, as a type's method sentinels and
// entities made in a row are, take distinct entries of the proven-address
// caches, from any base address. Hashing the address with its zero
// alignment bits put the frame benchmark's four Entity sentinels (432
// bytes apart) in two of 64 entries, and three of its four calls per
// entity took the full check; 96 and 144 bytes collided as well.
func TestProvenCachesSpreadRegularlySpacedBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, spacing := range []uintptr{64, 80, 96, 144, 160, 432} {
		for range 200 {
			base := uintptr(rng.Uint64N(1<<46)) &^ 15
			for _, fn := range []bool{true, false} {
				seen := map[int]bool{}
				for k := range uintptr(4) {
					seen[cgo.ProvenIndex(base+k*spacing, fn)] = true
				}
				if len(seen) != 4 {
					t.Fatalf("4 blocks %d bytes apart from %#x share entries of the %s cache", spacing, base,
						map[bool]string{true: "sentinel", false: "userdata"}[fn])
				}
			}
		}
	}
}

// TestPushedObjectsEnterTheProvenCache checks that an object pushed to Lua,
// new or found in the identity cache, is in the proven-address cache
// before any call uses it: the first method call or comparison on an
// object a Go function just returned finds it there. Each push is checked
// alone (two addresses may share an entry of the direct-mapped cache).
func TestPushedObjectsEnterTheProvenCache(t *testing.T) {
	e := newEnv(t)
	objs := []*provenEnt{{HP: 1}, {HP: 2}, {HP: 3}}
	must(t, e.SetGlobal("get", func(i int) *provenEnt { return objs[i] }))
	seen := map[uintptr]bool{}
	var addrB uintptr
	for _, script := range []string{"a = get(0)", "b = get(1)", "c = get(2)", "x = get(1)"} {
		must(t, e.DoString(script))
		_, ud := zlua.ProvenAddrs(e)
		var pushed []uintptr
		for _, p := range zlua.OwnAddrs(e) {
			if !seen[p] {
				pushed = append(pushed, p)
			}
		}
		switch script {
		case "b = get(1)":
			addrB = pushed[0]
		case "x = get(1)": // b's userdata again, found in the identity cache
			pushed = []uintptr{addrB}
			must(t, e.DoString("assert(rawequal(x, b))"))
		}
		if len(pushed) != 1 {
			t.Fatalf("after %q: %d new userdata proved by address, want 1", script, len(pushed))
		}
		if !slices.Contains(ud, pushed[0]) {
			t.Errorf("after %q: pushed userdata %#x not in the proven cache %#x", script, pushed[0], ud)
		}
		seen[pushed[0]] = true
	}
}
