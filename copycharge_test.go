package zlua_test

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// Non-blittable structs: Lua holds them as small userdata naming a Go
// copy (a companion), which is charged against MemoryLimit.
type chargeBig struct{ Names [2048]string } // 32 KiB of Go per copy

type chargeHolder struct {
	ID   int
	Meta chargeBig
}

type chargeMsg struct {
	Text string
	N    int
}

// chargeEnv is an Env with a 4 MiB limit and the functions the tests
// below call: copies made while the script runs.
func chargeEnv(t *testing.T, libs ...zlua.Libs) *zlua.Env {
	t.Helper()
	l := zlua.LibsSafe
	if len(libs) > 0 {
		l = libs[0]
	}
	e, err := zlua.New(zlua.Options{Libs: l, MemoryLimit: 4 << 20})
	must(t, err)
	must(t, e.SetGlobal("mkholder", func() chargeHolder { return chargeHolder{ID: 1} }))
	must(t, e.SetGlobal("mkmsg", func() chargeMsg { return chargeMsg{Text: "hi"} }))
	must(t, e.SetGlobal("echo", func(m chargeMsg) chargeMsg { return m }))
	must(t, e.SetGlobal("bigmsg", func(n int) chargeMsg { return chargeMsg{Text: strings.Repeat("g", n)} }))
	must(t, e.SetGlobal("textlen", func(m chargeMsg) int { return len(m.Text) }))
	return e
}

// mustReachTheLimit runs chunk, which keeps Go memory zlua makes for the
// script under chargeEnv's 4 MiB limit: it must end in the memory error
// with the heap and the charges within the limit, the charges at least
// 1 MiB of it.
func mustReachTheLimit(t *testing.T, e *zlua.Env, chunk string) {
	t.Helper()
	if err := e.DoString(chunk); !errors.Is(err, zlua.ErrMemory) {
		t.Fatalf("err = %v, want a memory error", err)
	}
	st := e.Stats()
	if st.LuaBytes+st.CopyBytes > 4<<20 {
		t.Errorf("LuaBytes %d + CopyBytes %d above the 4 MiB limit", st.LuaBytes, st.CopyBytes)
	}
	if st.CopyBytes < 1<<20 {
		t.Errorf("CopyBytes = %d with the limit reached by what Go keeps", st.CopyBytes)
	}
}

// Copies a script keeps count toward the limit: each of these loops would
// hold 100 times the limit in Go memory (probe P2 F4 reached 3 GB under
// 16 MiB), and stops with Lua's memory error instead.
func TestGoCopiesCountTowardTheMemoryLimit(t *testing.T) {
	for name, chunk := range map[string]string{
		// a nested struct read from a copy is a new 32 KiB copy
		"nested": `local hv = mkholder() keep = {} for i = 1, 12800 do keep[i] = hv.Meta end`,
		// a big string written into a copy's field
		"field write": `local s = string.rep("y", 65536) keep = {} for i = 1, 6400 do local m = mkmsg(); m.Text = s .. i; keep[i] = m end`,
		// a table converted into a copy's argument, returned
		"echo": `local s = string.rep("x", 65536) keep = {} for i = 1, 6400 do keep[i] = echo({Text = s .. i, N = i}) end`,
		// a Go function's own big result
		"result": `keep = {} for i = 1, 6400 do keep[i] = bigmsg(65536) end`,
	} {
		t.Run(name, func(t *testing.T) {
			e := chargeEnv(t)
			defer func() { must(t, e.Close()) }()
			mustReachTheLimit(t, e, chunk)
			// what the script held is given back once Lua collects it
			run(t, e, `keep = nil collectgarbage() collectgarbage()`)
			e.Pump()
			if st := e.Stats(); st.CopyBytes != 0 || st.LiveStructs != 0 {
				t.Errorf("after collection: CopyBytes %d, LiveStructs %d", st.CopyBytes, st.LiveStructs)
			}
		})
	}
}

// Garbage copies do not exhaust the limit: the collector paces on their
// charges and a charge that does not fit collects first, so loops that
// make far more copies than the limit holds, keeping none or a few, end
// normally (on LuaJIT too, whose refused allocations collect nothing).
func TestGarbageCopiesDoNotExhaustTheLimit(t *testing.T) {
	for name, chunk := range map[string]string{
		"nested":     `local hv = mkholder() for i = 1, 3000 do local x = hv.Meta end`,
		"result":     `for i = 1, 3000 do local m = bigmsg(65536) end`,
		"keep a few": `keep = {} for i = 1, 3000 do keep[i % 8] = bigmsg(65536) end keep = nil`,
		// a live heap near the limit: garbage copies must be finalized
		// (uncharged) by the collector's steps, as Lua 5.4's emergency
		// collection after a refused allocation runs no finalizer
		"live heap": `live = {} for i = 1, 30000 do live[i] = {i} end
			for i = 1, 1000 do local m = echo({Text = string.rep("q", 16384), N = i}) end live = nil`,
		// overwriting one copy's field gives back what the old value reached
		"overwrite": `local m = mkmsg() for i = 1, 3000 do m.Text = string.rep("o", 65536 + i % 7) end`,
		// a script that stopped the collector (LibsAll) still gets its
		// garbage collected when a charge does not fit
		"stopped": `collectgarbage("stop") for i = 1, 300 do local m = bigmsg(65536) end collectgarbage("restart")`,
	} {
		t.Run(name, func(t *testing.T) {
			e := chargeEnv(t, zlua.LibsAll)
			defer func() { must(t, e.Close()) }()
			run(t, e, chunk)
			if st := e.Stats(); st.LuaBytes+st.CopyBytes > 4<<20 {
				t.Errorf("LuaBytes %d + CopyBytes %d above the limit", st.LuaBytes, st.CopyBytes)
			}
		})
	}
}

// A field write changes the charge by what the field reaches after it
// less before it; an overwritten copy is charged its last value only.
func TestACopysChargeFollowsItsFieldWrites(t *testing.T) {
	e := chargeEnv(t)
	defer func() { must(t, e.Close()) }()
	run(t, e, `m = mkmsg()`)
	base := e.Stats().CopyBytes
	if base == 0 {
		t.Fatal("a copy made by a Go function a script called is not charged")
	}
	run(t, e, `m.Text = string.rep("a", 100000)`)
	if got := e.Stats().CopyBytes - base; got != 100000-2 {
		t.Errorf("charge grew by %d for a 100000-byte string replacing \"hi\", want 99998", got)
	}
	run(t, e, `for i = 1, 50 do m.Text = string.rep("b", 1000 + i) end`)
	if got := e.Stats().CopyBytes - base; got != 1050-2 {
		t.Errorf("charge after overwrites is base + %d, want base + 1048", got)
	}
	// scalar writes reach nothing: no change
	run(t, e, `m.N = 7`)
	if got := e.Stats().CopyBytes - base; got != 1048 {
		t.Errorf("a number field write changed the charge to base + %d", got)
	}
}

// The host's own pushes are not charged: a struct value holding a string
// larger than the limit is pushed as before.
func TestHostPushedCopiesAreNotCharged(t *testing.T) {
	e := chargeEnv(t)
	defer func() { must(t, e.Close()) }()
	must(t, e.SetGlobal("cfg", chargeMsg{Text: strings.Repeat("c", 8<<20)}))
	if st := e.Stats(); st.CopyBytes != 0 || st.LiveStructs != 1 {
		t.Fatalf("after SetGlobal: CopyBytes %d, LiveStructs %d", st.CopyBytes, st.LiveStructs)
	}
	var n int
	must(t, e.Eval(`textlen(cfg)`, &n))
	if n != 8<<20 {
		t.Errorf("textlen(cfg) = %d", n)
	}
	if st := e.Stats(); st.CopyBytes != 0 {
		t.Errorf("passing the copy to Go charged %d bytes", st.CopyBytes)
	}
}

// A script that catches the memory error a charge raised goes on, and the
// next call from the host finds the garbage collected.
func TestACaughtCopyChargeErrorLeavesTheEnvUsable(t *testing.T) {
	e := chargeEnv(t)
	defer func() { must(t, e.Close()) }()
	var msg string
	must(t, e.Eval(`(function()
		local ok, err = pcall(function() local keep = {} for i = 1, 1000 do keep[i] = bigmsg(65536) end end)
		return tostring(ok) .. " " .. tostring(err) end)()`, &msg))
	if msg != "false not enough memory" {
		t.Fatalf("pcall returned %q", msg)
	}
	var n int
	must(t, e.Eval(`(function() local t = {} for i = 1, 20 do t[i] = bigmsg(65536) end return #t[20].Text end)()`, &n))
	if n != 65536 {
		t.Errorf("after a caught memory error: %d", n)
	}
}

// chargeEntity is a host object type with a pointer field a script can
// assign a table to: zlua then builds a new Go object.
type chargeEntity struct {
	Name  string
	Owner *chargeEntity
	Data  []byte
	Info  chargeInfo
	IA    chargeAnyNote
	Many  []*chargeEntity
}

// chargeAnyNote is an inline struct with an interface field.
type chargeAnyNote struct {
	A    any
	Note string
}

// chargeHandle is pointer-shaped: an interface holds it in place of a box.
type chargeHandle struct{ P *byte }

// chargeInfo is a struct held inline by chargeEntity.
type chargeInfo struct {
	Tags []string
	Note string
}

// chargeObjEnv is chargeEnv with functions making and passing objects.
func chargeObjEnv(t *testing.T) *zlua.Env {
	t.Helper()
	e := chargeEnv(t)
	must(t, e.SetGlobal("spawn", func() *chargeEntity { return &chargeEntity{Name: "holder"} }))
	must(t, e.SetGlobal("pecho", func(p *chargeEntity) *chargeEntity { return p }))
	must(t, e.SetGlobal("named", func(n int) *chargeEntity { return &chargeEntity{Name: strings.Repeat("h", n)} }))
	return e
}

// An object zlua built from a script's table and that the script then
// holds counts toward the limit too (probe P2 F4's owner case): keeping
// them stops with a memory error instead of holding 100 times the limit.
func TestObjectsBuiltFromTablesCountTowardTheMemoryLimit(t *testing.T) {
	for name, chunk := range map[string]string{
		"pointer field": `local s = string.rep("o", 65536) local e = spawn() keep = {}
			for i = 1, 6400 do e.Owner = {Name = s .. i}; keep[i] = e.Owner end`,
		"pointer argument returned": `local s = string.rep("p", 65536) keep = {}
			for i = 1, 6400 do keep[i] = pecho({Name = s .. i}) end`,
	} {
		t.Run(name, func(t *testing.T) {
			e := chargeObjEnv(t)
			defer func() { must(t, e.Close()) }()
			err := e.DoString(chunk)
			if !errors.Is(err, zlua.ErrMemory) {
				t.Fatalf("err = %v, want a memory error", err)
			}
			if st := e.Stats(); st.CopyBytes < 1<<20 || st.LuaBytes+st.CopyBytes > 4<<20 {
				t.Errorf("LuaBytes %d, CopyBytes %d", st.LuaBytes, st.CopyBytes)
			}
			// a stored object's charge goes once Go collects it
			run(t, e, `keep = nil collectgarbage() collectgarbage()`)
			e.Pump()
			runtime.GC()
			run(t, e, `local x = 1`)
			if st := e.Stats(); st.CopyBytes != 0 {
				t.Errorf("after collection: CopyBytes %d", st.CopyBytes)
			}
		})
	}
}

// Built objects a script drops, and the host's own objects however large,
// do not exhaust the limit.
func TestObjectChargesLeaveGarbageAndHostObjectsAlone(t *testing.T) {
	e := chargeObjEnv(t)
	defer func() { must(t, e.Close()) }()
	run(t, e, `local s = string.rep("o", 65536) local e = spawn()
		for i = 1, 2000 do e.Owner = {Name = s .. i}; local o = e.Owner end
		for i = 1, 2000 do local o = pecho({Name = s .. i}) end`)
	run(t, e, `collectgarbage() collectgarbage()`)
	e.Pump()
	runtime.GC()
	run(t, e, `local x = 1`)
	if st := e.Stats(); st.CopyBytes != 0 {
		t.Errorf("dropped built objects still charged %d bytes", st.CopyBytes)
	}
	// host objects: 64 of 1 MiB each, kept by the script, are the host's
	run(t, e, `keep = {} for i = 1, 64 do keep[i] = named(1048576) end`)
	if st := e.Stats(); st.CopyBytes != 0 {
		t.Errorf("host objects charged %d bytes", st.CopyBytes)
	}
	// a built object pushed twice is charged once for the script's
	// userdata, and once for the field that holds it (storecharge.go)
	run(t, e, `keep = nil local e = spawn() e.Owner = {Name = string.rep("t", 100000)}
		a, b = e.Owner, e.Owner`)
	if st := e.Stats(); st.CopyBytes < 200000 || st.CopyBytes >= 300000 {
		t.Errorf("one built object pushed twice: CopyBytes %d", st.CopyBytes)
	}
}

// BenchmarkCopyResult is a Go function returning a non-blittable struct by
// value, called from Lua: each call makes a companion, charged since the
// twenty-first round (the walk over its string, the charge in C, the
// collector's steps).
func BenchmarkCopyResult(b *testing.B) {
	for name, limit := range map[string]int64{"nolimit": 0, "limit": 64 << 20} {
		b.Run(name, func(b *testing.B) {
			e, err := zlua.New(zlua.Options{MemoryLimit: limit})
			must(b, err)
			defer e.Close()
			must(b, e.SetGlobal("mkmsg", func() chargeMsg { return chargeMsg{Text: "a short name", N: 1} }))
			must(b, e.DoString(`function loop(n) local m for i = 1, n do m = mkmsg() end return m.N end`))
			var loop func(int) (int, error)
			must(b, e.GetFunction("loop", &loop))
			b.ReportAllocs()
			b.ResetTimer()
			if _, err := loop(b.N); err != nil {
				b.Fatal(err)
			}
		})
	}
}

type chargeCyclic struct{ M map[string]any }

type chargeShared struct{ S []string }

// The charge's walk is bounded whatever a value holds: a map that holds
// itself ends it after its visit budget; a slice of a million strings is
// sampled. A by-value result sharing a large host slice is charged what it
// reaches (results a script keeps count, shared or not; a host exposes
// such data by pointer, which is not charged).
func TestTheChargeWalkIsBounded(t *testing.T) {
	m := map[string]any{}
	m["self"] = m
	m["text"] = strings.Repeat("m", 1000)
	big := make([]string, 1<<20)
	for i := range big {
		big[i] = "shared host string"
	}
	e := chargeEnv(t)
	defer func() { must(t, e.Close()) }()
	must(t, e.SetGlobal("cyclic", func() chargeCyclic { return chargeCyclic{M: m} }))
	must(t, e.SetGlobal("shared", func() chargeShared { return chargeShared{S: big} }))
	must(t, e.SetGlobal("sharedptr", func() *chargeShared { return &chargeShared{S: big} }))
	run(t, e, `for i = 1, 100 do local c = cyclic() end keep = cyclic()`)
	if st := e.Stats(); st.CopyBytes == 0 || st.CopyBytes > 1<<20 {
		t.Errorf("a cyclic map's copy charged %d bytes", st.CopyBytes)
	}
	if err := e.DoString(`local s = shared()`); !errors.Is(err, zlua.ErrMemory) {
		t.Errorf("a 16 MiB slice by value under a 4 MiB limit: %v", err)
	}
	run(t, e, `keep = nil collectgarbage() held = sharedptr()`)
	if st := e.Stats(); st.CopyBytes != 0 {
		t.Errorf("a host object returned by pointer charged %d bytes", st.CopyBytes)
	}
}
