package zlua_test

import (
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
	} {
		t.Run(name, func(t *testing.T) {
			e := chargeEnv(t)
			defer func() { must(t, e.Close()) }()
			must(t, e.SetGlobal("c", tc.lend()))
			mustReachTheLimit(t, e, tc.chunk)
		})
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
	if got := e.Stats().CopyBytes; got != 0 {
		t.Errorf("the script deleted what it added: CopyBytes %d", got)
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
	if got := e.Stats().CopyBytes; got != 0 {
		t.Errorf("the host and the script dropped the slice: CopyBytes %d", got)
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
