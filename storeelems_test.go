package zlua_test

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// elemHolder has containers a script reaches by reference.
type elemHolder struct {
	M  map[string]string     `lua:",ref"`
	T  []string              `lua:",ref"`
	A  map[string]any        `lua:",ref"`
	KI map[string]int        `lua:",ref"`
	P  []*chargeEntity       `lua:",ref"`
	SK map[elemKey]int       `lua:",ref"`
	AK map[[2]string]int     `lua:",ref"`
	PK map[*chargeEntity]int `lua:",ref"`
}

// elemKey is a struct map key.
type elemKey struct{ S string }

// elemEnv is chargeEnv (4 MiB) with host containers lent by reference
// (hm, hk: maps; hs: a slice through its pointer, which can grow) and a
// holder of ref fields (o).
type elemEnv struct {
	e  *zlua.Env
	hm map[string]string
	hk map[string]int
	hs []string
	o  *elemHolder
}

func newElemEnv(t *testing.T) *elemEnv {
	t.Helper()
	x := &elemEnv{e: chargeEnv(t), hm: map[string]string{}, hk: map[string]int{}, hs: []string{"first"}, o: &elemHolder{}}
	must(t, x.e.SetGlobal("hm", zlua.ByRef(x.hm)))
	must(t, x.e.SetGlobal("hk", zlua.ByRef(x.hk)))
	must(t, x.e.SetGlobal("hs", zlua.ByRef(&x.hs)))
	must(t, x.e.SetGlobal("o", x.o))
	return x
}

// Element writes into containers a script reaches by reference keep Go
// copies of its strings and tables where Go holds them: each of these
// loops kept about 390 MB under 16 MiB (probe U p6, and host-lent
// containers) and stops with Lua's memory error now. Once the script
// empties what it filled (host containers the host still holds), the
// charges go back to 0.
func TestElementWritesCountTowardTheMemoryLimit(t *testing.T) {
	const setup = `local s = string.rep("e", 65536) `
	for name, tc := range map[string]struct{ fill, empty string }{
		"host map, new keys": {fill: `for i = 1, 6400 do hm["k" .. i] = s .. i end`,
			empty: `for i = 1, 6400 do hm["k" .. i] = nil end hm = nil`},
		"host map, big keys": {fill: `for i = 1, 6400 do hk[s .. i] = i end`,
			empty: `for i = 1, 6400 do hk[s .. i] = nil end hk = nil`},
		"host slice, appended": {fill: `for i = 1, 6400 do hs[#hs + 1] = s .. i end`,
			empty: `for i = 1, #hs do hs[i] = "" end hs = nil`},
		"ref map field": {fill: `local m = o.M for i = 1, 6400 do m["k" .. i] = s .. i end`,
			empty: `o.M = {}`},
		"ref slice field, appended": {fill: `local t = o.T for i = 1, 6400 do t[#t + 1] = s .. i end`,
			empty: `o.T = {}`},
		"ref map of any, tables": {fill: `local a = o.A for i = 1, 6400 do a["k" .. i] = {x = s .. i} end`,
			empty: `o.A = {}`},
		// keys built from tables (probe V F2)
		"struct keys": {fill: `local m = o.SK for i = 1, 6400 do m[{S = s .. i}] = i end`, empty: `o.SK = {}`},
		"array keys":  {fill: `local m = o.AK for i = 1, 6400 do m[{s .. i, "x"}] = i end`, empty: `o.AK = {}`},
		"object keys": {fill: `local m = o.PK for i = 1, 6400 do m[{Name = s .. i}] = i end`, empty: `o.PK = {}`},
	} {
		t.Run(name, func(t *testing.T) {
			x := newElemEnv(t)
			defer func() { must(t, x.e.Close()) }()
			mustReachTheLimit(t, x.e, setup+tc.fill)
			run(t, x.e, setup+tc.empty)
			// the containers' own charges go with them (storecont.go)
			x.hs, x.hm, x.hk = nil, nil, nil
			mustSettleToZero(t, x.e)
			runtime.KeepAlive(x)
		})
	}
}

// contSlack bounds the containers' own charges in these tests
// (storecont.go): their entries at an estimate each, and the small values
// in them, up to 255 bytes each.
const contSlack = 32 << 10

// nearBytes checks that CopyBytes got is want plus at most contSlack.
func nearBytes(t *testing.T, what string, got uint64, want uint64) {
	t.Helper()
	if got < want || got > want+contSlack {
		t.Errorf("%s: CopyBytes %d, want %d (+ at most %d for the containers)", what, got, want, contSlack)
	}
}

// An element's charge follows what it holds: written again or deleted,
// its old charge goes at once, so rewriting elements never exhausts the
// limit; an append that moves the slice moves its elements' charges; a
// write that does not fit is refused with the memory error and leaves the
// element as it was; without a limit nothing is charged.
func TestElementChargesFollowTheElement(t *testing.T) {
	x := newElemEnv(t)
	defer func() { must(t, x.e.Close()) }()
	e := x.e
	// 2000 rewrites of 64 KiB through one key, one index, one big key:
	// 128 MB each under 4 MiB
	run(t, e, `local s = string.rep("r", 65536)
		for i = 1, 2000 do hm.k = s .. i end
		for i = 1, 2000 do hs[1] = s .. i end
		for i = 1, 2000 do hk[s] = i end
		for i = 1, 2000 do hm["d" .. i] = s .. i; hm["d" .. i] = nil end`)
	nearBytes(t, "one key, one element and one big key hold 64 KiB each", e.Stats().CopyBytes, 2*(65536+4)+65536)
	run(t, e, `hm.k = nil hs[1] = "x" hk[string.rep("r", 65536)] = nil`)
	nearBytes(t, "the three written again or deleted", e.Stats().CopyBytes, 0)
	// entries the host deletes give their charges back once Go collected
	// them, big keys included
	run(t, e, `local s = string.rep("k", 65536) for i = 1, 20 do hk[s .. i] = i; hm["v" .. i] = s .. i end`)
	if got := e.Stats().CopyBytes; got < 40*65536 {
		t.Errorf("20 big keys and 20 big values: CopyBytes %d", got)
	}
	clear(x.hk)
	clear(x.hm)
	settleStores(t, e)
	nearBytes(t, "the host deleted the entries", e.Stats().CopyBytes, 0)
	// 40 elements appended (the array moves several times), then 40 small
	// ones: written with small strings at once, the 40 give back their
	// charges (with Go's
	// collector off, only the charge each write finds at its element's
	// address can go)
	gc := debug.SetGCPercent(-1)
	run(t, e, `local s = string.rep("g", 20000) local t = o.T
		for i = 1, 40 do t[#t + 1] = s .. string.format("%03d", i) end`)
	nearBytes(t, "40 elements appended", e.Stats().CopyBytes, 40*20003)
	// 40 small appends move the array again
	run(t, e, `local t = o.T for i = 1, 40 do t[#t + 1] = "tiny" end
		for i = 1, 40 do t[i] = "small" end`)
	debug.SetGCPercent(gc)
	nearBytes(t, "the 40 moved elements written with small strings", e.Stats().CopyBytes, 0)
	// each written again 20 times: only the 40 live strings stay charged
	run(t, e, `local s = string.rep("g", 20000) local t = o.T
		for r = 1, 20 do for i = 1, 40 do t[i] = s .. string.format("%03d", r) end end`)
	nearBytes(t, "40 elements after rewrites", e.Stats().CopyBytes, 40*20003)
	run(t, e, `o.T = {}`)
	settleStores(t, e)
	// the refused write: two entries hold 2.2 MB (each store a Go copy of
	// one Lua string), the third does not fit
	var ok bool
	var msg string
	must(t, e.Eval(`(function()
		local big = string.rep("b", 1100000)
		hm.a = big
		hs[1] = big
		local ok, err = pcall(function() hm.c = big end)
		bigs = {big, ok, err}
		return ok, err
	end)()`, &ok, &msg))
	if ok || !strings.Contains(msg, "not enough memory") {
		t.Errorf("a write over the limit: ok %v, %q", ok, msg)
	}
	if _, ok := x.hm["c"]; ok {
		t.Error("the refused entry is in the map")
	}
	must(t, e.Eval(`(function()
		local ok, err = pcall(function() hs[2] = bigs[1] end)
		return ok, err
	end)()`, &ok, &msg))
	if ok || !strings.Contains(msg, "not enough memory") || len(x.hs) != 1 {
		t.Errorf("an append over the limit: ok %v, %q, len %d", ok, msg, len(x.hs))
	}
	// refused, a write into a nil map field leaves it nil
	must(t, e.Eval(`(function()
		local ok, err = pcall(function() o.M.c = bigs[1] end)
		return ok, err
	end)()`, &ok, &msg))
	if ok || !strings.Contains(msg, "not enough memory") || x.o.M != nil {
		t.Errorf("a nil map field written over the limit: ok %v, %q, made %v", ok, msg, x.o.M != nil)
	}
	if st := e.Stats(); st.LuaBytes+st.CopyBytes > 4<<20 {
		t.Errorf("LuaBytes %d + CopyBytes %d above the 4 MiB limit", st.LuaBytes, st.CopyBytes)
	}

	free, err := zlua.New(zlua.Options{Libs: zlua.LibsSafe})
	must(t, err)
	defer func() { must(t, free.Close()) }()
	fm, fs := map[string]string{}, []string{}
	must(t, free.SetGlobal("hm", zlua.ByRef(fm)))
	must(t, free.SetGlobal("hs", zlua.ByRef(&fs)))
	run(t, free, `hm.k = string.rep("a", 300000) hs[1] = string.rep("b", 300000)`)
	if got := free.Stats().CopyBytes; got != 0 || len(fm["k"]) != 300000 || len(fs) != 1 {
		t.Errorf("no limit: CopyBytes %d, map %d, slice %d", got, len(fm["k"]), len(fs))
	}
}

// An object a store built keeps its charge wherever the script moves it:
// read back, its field cleared, stored into a map, a slice or another
// field, and its userdata dropped, it was charged nothing while the new
// holder kept it (probe V F3: 211 MB under 16 MiB, fields too). A byte
// slice stored from a string is charged its length once (F6: twice).
func TestStoredObjectsKeepTheirChargeWhereverTheyMove(t *testing.T) {
	const setup = `local s = string.rep("m", 65536) local x = spawn() `
	for name, loop := range map[string]string{
		"into a map":    `local m = o.A for i = 1, 6400 do x.Owner = {Name = s .. i}; local v = x.Owner; x.Owner = nil; m["k" .. i] = v end`,
		"into a slice":  `local t = o.P for i = 1, 6400 do x.Owner = {Name = s .. i}; local v = x.Owner; x.Owner = nil; t[#t + 1] = v end`,
		"into a field":  `keep = {} for i = 1, 6400 do x.Owner = {Name = s .. i}; local v = x.Owner; x.Owner = nil; local y = spawn(); y.Owner = v; keep[i] = y end`,
		"into an array": `local m = o.A for i = 1, 6400 do x.Owner = {Name = s .. i}; local v = x.Owner; x.Owner = nil; m["k" .. i] = {v} end`,
	} {
		t.Run(name, func(t *testing.T) {
			x := newElemEnv(t)
			defer func() { must(t, x.e.Close()) }()
			must(t, x.e.SetGlobal("spawn", func() *chargeEntity { return &chargeEntity{Name: "holder"} }))
			mustReachTheLimit(t, x.e, setup+loop)
		})
	}
	e, _ := storeEnv(t)
	defer func() { must(t, e.Close()) }()
	run(t, e, `x = spawn() x.Data = string.rep("b", 300000)`)
	if got := e.Stats().CopyBytes; got != 300000 {
		t.Errorf("300000 bytes stored into a []byte field: CopyBytes %d", got)
	}
}

// A host that truncates the slice it lent (s = s[:0]) between calls makes
// the script's appends land where charged elements were: the stale
// charges are given back there, not kept beside the new ones (probe V F4:
// after nine rounds of 100 × 64 KiB, 10 MB stayed charged for good and
// every later fill was refused).
func TestAppendsOverATruncatedSliceReplaceItsCharges(t *testing.T) {
	x := newElemEnv(t)
	defer func() { must(t, x.e.Close()) }()
	x.hs = make([]string, 0, 64)
	must(t, x.e.SetGlobal("hs", zlua.ByRef(&x.hs)))
	for round := 0; round < 10; round++ {
		run(t, x.e, `local s = string.rep("t", 65536) for i = 1, 40 do hs[#hs + 1] = s end`)
		if got := x.e.Stats().CopyBytes; got != 40*65536 {
			t.Fatalf("round %d: CopyBytes %d for the 40 elements held", round, got)
		}
		x.hs = x.hs[:0]
	}
}
