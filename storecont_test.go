package zlua_test

import (
	"runtime"
	"testing"

	"github.com/zlua-go/zlua"
)

// A container a script fills with small values keeps them where Go holds
// them, each under the 256 bytes a store's own charge needs: 20 million
// integers appended, 3 million map entries, a million 255-byte strings
// held 72–297 MB under 16 MiB (probe V F1). The container's growth and
// its small values are charged (storecont.go); each of these loops now
// stops with the memory error under 4 MiB.
func TestContainersOfSmallValuesCountTowardTheMemoryLimit(t *testing.T) {
	const s255 = `local p = string.rep("q", 250) `
	for name, tc := range map[string]struct {
		lend  func() any
		chunk string
	}{
		"integers appended": {func() any { s := []int{}; return zlua.ByRef(&s) },
			`for i = 1, 1e7 do c[#c + 1] = i end`},
		"integer map entries": {func() any { return zlua.ByRef(map[int]int{}) },
			`for i = 1, 1e7 do c[i] = i end`},
		"255-byte strings appended": {func() any { s := []string{}; return zlua.ByRef(&s) },
			s255 + `for i = 1, 1e6 do c[#c + 1] = p .. string.format("%05d", i % 100000) end`},
		"255-byte keys": {func() any { return zlua.ByRef(map[string]int{}) },
			s255 + `for i = 1, 1e6 do c[p .. string.format("%05d", i)] = i end`},
		"255-byte values": {func() any { return zlua.ByRef(map[int]string{}) },
			s255 + `for i = 1, 1e6 do c[i] = p .. string.format("%05d", i % 100000) end`},
		"small maps in a map": {func() any { return zlua.ByRef(map[int]map[string]int{}) },
			`for i = 1, 1e6 do c[i] = {a = i, b = i} end`},
		"small tables in a slice": {func() any { s := []any{}; return zlua.ByRef(&s) },
			`for i = 1, 1e6 do c[#c + 1] = {i, i + 1, i + 2} end`},
		// probe V2: small objects behind pointers (F1), tables nested
		// deeper than a walk of 4 (F3), many tiny containers (F4)
		"small objects appended": {func() any { s := []*contSmall{}; return zlua.ByRef(&s) },
			`for i = 1, 1e6 do c[#c + 1] = {} end`},
		"small objects in a map": {func() any { return zlua.ByRef(map[int]*contSmall{}) },
			`for i = 1, 1e6 do c[i] = {} end`},
		"nested tables": {func() any { s := []any{}; return zlua.ByRef(&s) },
			`local t = 1 for d = 1, 15 do t = {t} end for i = 1, 1e6 do c[#c + 1] = t end`},
		"nested maps": {func() any { return zlua.ByRef(map[int]any{}) },
			`local v = {a = {b = {c = {d = {e = {f = {g = {h = 1}}}}}}}} for i = 1, 1e6 do c[i] = v end`},
		"tiny containers": {func() any { return zlua.ByRef(map[int]*contNode{}) },
			`for i = 1, 1e6 do c[i] = {} local l = c[i].L l[#l + 1] = i end`},
	} {
		t.Run(name, func(t *testing.T) {
			e := chargeEnv(t)
			defer func() { must(t, e.Close()) }()
			must(t, e.SetGlobal("c", tc.lend()))
			before := liveHeap()
			mustReachTheLimit(t, e, tc.chunk)
			// what the container holds is about what is charged
			grew := int64(liveHeap()) - int64(before)
			t.Logf("heap grew %d", grew)
			if grew > 3*(4<<20) {
				t.Errorf("the Go heap grew %d bytes under a 4 MiB limit", grew)
			}
		})
	}
}

// contSmall is a 232-byte object, under the 256 bytes a store's own
// charge needs.
type contSmall struct{ X [29]int64 }

// contNode holds a slice a script grows through a ref view.
type contNode struct {
	L []int `lua:",ref"`
}

// What the host does to a container between a script's writes, unseen by
// it, is the host's: entries it clears (or a slice it truncates) no longer
// count once the script writes again (probe V2 F5: each refill after a
// host clear was refused from the fourth on), and entries it adds are not
// the script's (F6: one write after the host added 1.5M entries was
// refused).
func TestContainersFollowWhatTheHostDid(t *testing.T) {
	e := chargeEnv(t)
	defer func() { must(t, e.Close()) }()
	m := map[int]string{}
	s := []string{}
	must(t, e.SetGlobal("m", zlua.ByRef(m)))
	must(t, e.SetGlobal("s", zlua.ByRef(&s)))
	for round := range 8 {
		run(t, e, `local p = string.rep("h", 90) for i = 1, 6000 do m[i] = p .. i; s[#s + 1] = p .. i end`)
		clear(m)
		s = s[:0]
		if got := e.Stats().CopyBytes; got > 4<<20 {
			t.Fatalf("round %d: CopyBytes %d", round, got)
		}
	}
	before := e.Stats().CopyBytes
	for i := range 200000 {
		m[i] = "host"
	}
	run(t, e, `m[-1] = "script"`)
	if got := e.Stats().CopyBytes; got > before+1024 {
		t.Errorf("one write after the host added 200,000 entries: CopyBytes %d, %d before", got, before)
	}
}

// What the host put in a container it lends is the host's: a map of a
// million entries (and a slice with room for a million more) lent to a
// script that writes a few is charged those few; the same writes without
// a limit charge nothing. Emptied by the script, or dropped by the host,
// the container's charge goes.
func TestContainersChargeOnlyWhatTheScriptAdded(t *testing.T) {
	e := chargeEnv(t)
	defer func() { must(t, e.Close()) }()
	hm := make(map[int]int, 1<<20)
	for i := range 1 << 20 {
		hm[i] = i
	}
	hs := make([]int, 0, 1<<20)
	must(t, e.SetGlobal("hm", zlua.ByRef(hm)))
	must(t, e.SetGlobal("hs", zlua.ByRef(&hs)))
	run(t, e, `for i = 1, 1000 do hm[-i] = i; hs[#hs + 1] = i end`)
	if got := e.Stats().CopyBytes; got == 0 || got > 64<<10 {
		t.Errorf("1,000 entries added to a host map of 2^20 (and appends within its capacity): CopyBytes %d", got)
	}
	run(t, e, `for i = 1, 1000 do hm[-i] = nil end`)
	if got := e.Stats().CopyBytes; got > 2*128 {
		t.Errorf("the script deleted what it added: CopyBytes %d (the two containers' records left)", got)
	}
	grown := []string{}
	must(t, e.SetGlobal("g", zlua.ByRef(&grown)))
	run(t, e, `for i = 1, 5000 do g[#g + 1] = "x" .. i end`)
	if got := e.Stats().CopyBytes; got < 5000*16 {
		t.Errorf("5,000 appends past the host's capacity: CopyBytes %d", got)
	}
	grown = nil
	run(t, e, `g = nil`)
	settleStores(t, e)
	if got := e.Stats().CopyBytes; got > 128 {
		t.Errorf("the host and the script dropped the slice: CopyBytes %d (hm's record left)", got)
	}
	free, err := zlua.New(zlua.Options{Libs: zlua.LibsSafe})
	must(t, err)
	defer func() { must(t, free.Close()) }()
	fs := []int{}
	must(t, free.SetGlobal("c", zlua.ByRef(&fs)))
	run(t, free, `for i = 1, 100000 do c[#c + 1] = i end`)
	if got := free.Stats().CopyBytes; got != 0 || len(fs) != 100000 {
		t.Errorf("no limit: CopyBytes %d, %d appended", got, len(fs))
	}
}

// liveHeap is the Go heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
