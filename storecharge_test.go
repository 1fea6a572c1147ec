package zlua_test

import (
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

// A copy with a pointer field: a table written there is an object zlua
// builds and the copy keeps.
type chargeLink struct {
	Text string
	Next *chargeEntity
}

// storeEnv is chargeObjEnv with a host root object and a copy maker.
func storeEnv(t *testing.T) (*zlua.Env, *chargeEntity) {
	t.Helper()
	e := chargeObjEnv(t)
	root := &chargeEntity{Name: "root"}
	must(t, e.SetGlobal("root", root))
	must(t, e.SetGlobal("mklink", func() chargeLink { return chargeLink{Text: "link"} }))
	return e, root
}

// settleStores drops what the script kept and lets Lua, then Go, collect:
// a store's charge goes with the Go memory it built.
func settleStores(t *testing.T, e *zlua.Env) {
	t.Helper()
	run(t, e, `keep = nil collectgarbage() collectgarbage()`)
	must(t, e.Pump())
	runtime.GC()
	run(t, e, `local x = 1`)
}

// Go memory a script's stores build and Go keeps counts toward the limit
// (probe Q: each of these loops kept about 1 GB under 16 MiB): a string
// written into host objects, a table into a host object's pointer field,
// a chain of objects hanging from one host object, a table into a copy's
// pointer field, and a built object stored into a second field.
func TestStoresCountTowardTheMemoryLimit(t *testing.T) {
	const setup = `local s = string.rep("s", 65536) keep = {} `
	for name, tc := range map[string]struct {
		loop string
		held bool // what the loop built stays held by the host's root
	}{
		"string into host objects":       {loop: `for i = 1, 6400 do local x = spawn(); x.Name = s .. i; keep[i] = x end`},
		"bytes into host objects":        {loop: `for i = 1, 6400 do local x = spawn(); x.Data = s .. i; keep[i] = x end`},
		"an inline struct":               {loop: `for i = 1, 6400 do local x = spawn(); x.Info = {Tags = {s .. i, "t"}, Note = s .. i}; keep[i] = x end`},
		"table into a host object":       {loop: `for i = 1, 6400 do local x = spawn(); x.Owner = {Name = s .. i}; keep[i] = x end`},
		"a chain under a host object":    {loop: `local cur = root for i = 1, 6400 do cur.Owner = {Name = s .. i}; cur = cur.Owner end`, held: true},
		"table into a copy's pointer":    {loop: `for i = 1, 6400 do local m = mklink(); m.Next = {Name = s .. i}; keep[i] = m end`},
		"a built object stored again":    {loop: `for i = 1, 6400 do local x, y = spawn(), spawn(); x.Owner = {Name = s .. i}; y.Owner = x.Owner; x.Owner = nil; keep[i] = y end`},
		"a built object read back, kept": {loop: `local x = spawn() for i = 1, 6400 do x.Owner = {Name = s .. i}; keep[i] = x.Owner end`},
	} {
		t.Run(name, func(t *testing.T) {
			e, root := storeEnv(t)
			defer func() { must(t, e.Close()) }()
			mustReachTheLimit(t, e, setup+tc.loop)
			settleStores(t, e)
			if tc.held {
				if e.Stats().CopyBytes < 1<<20 {
					t.Errorf("the chain the root holds is no longer charged: %d", e.Stats().CopyBytes)
				}
				run(t, e, `root.Owner = nil`)
				runtime.KeepAlive(root)
				settleStores(t, e)
			}
			if st := e.Stats(); st.CopyBytes != 0 {
				t.Errorf("after Lua and Go collected: CopyBytes %d", st.CopyBytes)
			}
		})
	}
}

// A field's charge follows what it holds: written again, the old charge
// goes at once, so rewriting a field never exhausts the limit; a store
// that does not fit is refused with the memory error and leaves the field
// as it was; without a limit nothing is charged.
func TestStoreChargesFollowTheField(t *testing.T) {
	e, _ := storeEnv(t)
	defer func() { must(t, e.Close()) }()
	run(t, e, `x = spawn() x.Name = string.rep("a", 300000)`)
	if got := e.Stats().CopyBytes; got != 300000 {
		t.Errorf("a 300000-byte string stored: CopyBytes %d", got)
	}
	run(t, e, `x.Name = "small"`)
	if got := e.Stats().CopyBytes; got != 0 {
		t.Errorf("the field written again with a small string: CopyBytes %d", got)
	}
	// read back in a later call, the built object is charged to the
	// script's userdata: the field written again gives back only its own
	run(t, e, `x.Owner = {Name = string.rep("o", 200000)}`)
	must(t, e.Pump())
	run(t, e, `held = x.Owner x.Owner = nil`)
	if got := e.Stats().CopyBytes; got < 200000 || got >= 300000 {
		t.Errorf("a built object the script holds, its field cleared: CopyBytes %d", got)
	}
	run(t, e, `held = nil`)
	// 2000 rewrites of 64 KiB: 128 MB through one field under 4 MiB
	run(t, e, `local s = string.rep("r", 65536) for i = 1, 2000 do x.Name = s .. i end
		for i = 1, 2000 do x.Owner = {Name = s .. i} end`)
	// the refused store: two fields hold 1.8 MB, the third does not fit
	var ok bool
	var msg, name string
	must(t, e.Eval(`(function()
		local big = string.rep("b", 900000)
		x.Owner = nil x.Name = big .. 1 collectgarbage()
		y = spawn() y.Name = big .. 2 collectgarbage()
		z = spawn()
		local ok, err = pcall(function() z.Name = big .. 3 end)
		return ok, err, z.Name
	end)()`, &ok, &msg, &name))
	if ok || name != "holder" {
		t.Errorf("a store over the limit: ok %v (%q), the field reads %q", ok, msg, name)
	}
	if st := e.Stats(); st.LuaBytes+st.CopyBytes > 4<<20 {
		t.Errorf("LuaBytes %d + CopyBytes %d above the 4 MiB limit", st.LuaBytes, st.CopyBytes)
	}

	free, err := zlua.New(zlua.Options{Libs: zlua.LibsSafe})
	must(t, err)
	defer func() { must(t, free.Close()) }()
	must(t, free.SetGlobal("spawn", func() *chargeEntity { return &chargeEntity{} }))
	run(t, free, `x = spawn() x.Name = string.rep("a", 300000) x.Owner = {Name = string.rep("b", 300000)}`)
	if got := free.Stats().CopyBytes; got != 0 {
		t.Errorf("no limit: CopyBytes %d", got)
	}
}

// A finalizer that writes a Go field while a store makes room (LibsAll:
// the collection runs it) is refused, so the charges the store read stay
// right: after it, CopyBytes is exactly what the fields hold.
func TestAStoreMakingRoomRefusesStoresFromFinalizers(t *testing.T) {
	e, err := zlua.New(zlua.Options{MemoryLimit: 8 << 20})
	must(t, err)
	defer func() { must(t, e.Close()) }()
	must(t, e.SetGlobal("spawn", func() *chargeEntity { return &chargeEntity{Name: "holder"} }))
	must(t, e.SetGlobal("bigstr", func(n int) string { return strings.Repeat("b", n) }))
	var ok, ran bool
	var name string
	must(t, e.Eval(`(function()
		local function gcobj(f)
			if newproxy then local p = newproxy(true) getmetatable(p).__gc = f return p end
			return setmetatable({}, {__gc = f})
		end
		local zs = bigstr(2000000)
		x = spawn()
		ys = {}
		for i = 1, 3 do ys[i] = spawn() ys[i].Name = bigstr(1500000) collectgarbage() end
		local function drop() gcobj(function() ran = true x.Name = bigstr(300000) end) end
		drop()
		local function clobber() local a, b, c, d, e, f, g, h = 1, 2, 3, 4, 5, 6, 7, 8 return a end
		clobber()
		local z = spawn()
		local ok = pcall(function() z.Name = zs end)
		return ok, ran, x.Name
	end)()`, &ok, &ran, &name))
	if ok || !ran || name != "holder" {
		t.Errorf("the store over the limit ok %v; a finalizer's store while it made room (ran %v): x.Name has %d bytes", ok, ran, len(name))
	}
	if got := e.Stats().CopyBytes; got != 3*1500000 {
		t.Errorf("CopyBytes %d, want the three fields' %d", got, 3*1500000)
	}
}

// Probe R: what a store's charge waits on is only memory its conversion
// made. A pointer-shaped struct held by an interface (here naming memory
// Go does not manage) and the runtime's static box of an empty string are
// not roots: the first crashed the process in weak.Make, the second kept
// a charge forever. Objects built inside a stored value (nested, in a
// slice or map) that a script reads back are charged to it.
func TestStoreChargesWaitOnlyOnWhatTheyBuilt(t *testing.T) {
	mem, err := syscall.Mmap(-1, 0, 4096, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	must(t, err)
	defer func() { must(t, syscall.Munmap(mem)) }()
	e, _ := storeEnv(t)
	defer func() { must(t, e.Close()) }()
	must(t, e.SetGlobal("cp", chargeHandle{P: &mem[0]}))
	run(t, e, `keep = {}
		for i = 1, 3 do local x = spawn() x.IA = {A = cp, Note = string.rep("n", 1000) .. i} keep[#keep + 1] = x end
		for i = 1, 3 do local x = spawn() x.IA = {A = "", Note = string.rep("e", 1000) .. i} keep[#keep + 1] = x end`)
	if got := e.Stats().CopyBytes; got < 6000 {
		t.Errorf("six stores of 1000 bytes: CopyBytes %d", got)
	}
	settleStores(t, e)
	if got := e.Stats().CopyBytes; got != 0 {
		t.Errorf("dropped: CopyBytes %d", got)
	}
	for name, chunk := range map[string]string{
		"nested":         `local x = spawn() for i = 1, 6400 do x.Owner = {Owner = {Name = s .. i}}; keep[i] = x.Owner.Owner; x.Owner = nil end`,
		"beside a slice": `local x = spawn() for i = 1, 6400 do x.Info = {Tags = {s .. i}}; x.Owner = {Owner = {Name = s .. i}}; keep[i] = x.Owner.Owner; x.Owner = nil end`,
	} {
		t.Run(name, func(t *testing.T) {
			e, _ := storeEnv(t)
			defer func() { must(t, e.Close()) }()
			mustReachTheLimit(t, e, `local s = string.rep("s", 65536) keep = {} `+chunk)
		})
	}
}

// A script storing into objects it drops cannot make the host collect at
// will (probe R: 200 forced collections in 17 s under a 1 MiB limit): a
// forced collection waits ten times as long as the last one took, and at
// least 10 ms; past that its stores are refused until Go collects.
func TestStoresForceGoCollectionsRarely(t *testing.T) {
	e, _ := storeEnv(t)
	defer func() { must(t, e.Close()) }()
	// with Go's collector off, only forced collections free what the
	// stores built
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	err := e.DoString(`local s = string.rep("c", 131072)
		for i = 1, 2000 do local x = spawn() x.Name = s .. i end`)
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	forced := after.NumForcedGC - before.NumForcedGC
	if limit := uint32(time.Since(start)/(10*time.Millisecond)) + 2; forced > limit {
		t.Errorf("%d forced collections in %v (err %v)", forced, time.Since(start), err)
	}
}

// A script whose stores outrun Go's own collections, pacing itself, is
// not refused: a host with a small heap collects in a few milliseconds,
// and the next forced collection waits ten times that, not a second (probe
// V F5: a map of 11.8 MB rebuilt each call under 16 MiB was refused 38
// times in 40 calls 100 ms apart). Each burst here stores 3 MiB into
// objects it drops, under 4 MiB, with Go's collector off (one Lua string
// stored again and again: each store is a Go copy, and LuaJIT, which
// reports a refused allocation without collecting first, meets no
// garbage of Lua's).
func TestStoresForcedCollectionsKeepUpWithAPacedScript(t *testing.T) {
	e, _ := storeEnv(t)
	defer func() { must(t, e.Close()) }()
	must(t, e.SetGlobal("pause", func() { time.Sleep(150 * time.Millisecond) }))
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	run(t, e, `local s = string.rep("p", 131072)
		for burst = 1, 4 do
			for i = 1, 24 do local x = spawn() x.Name = s end
			pause()
		end`)
}
