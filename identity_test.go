package zlua_test

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

// collectLua drops what scripts hold and collects fully (LuaJIT traces
// keep the objects they were recorded with alive until flushed).
const collectLua = `
if jit then jit.flush() end; collectgarbage(); collectgarbage()`

func TestTwoViewsAreTwoUserdata(t *testing.T) {
	e := newEnv(t)
	p := &Player{Name: "ann"}
	must(t, e.SetGlobal("plain", p))
	must(t, e.SetGlobal("mover", zlua.AsView[Mover](p)))
	must(t, e.SetGlobal("mover2", zlua.AsView[Mover](p)))
	must(t, e.SetGlobal("named", zlua.AsView[Named](p)))
	run(t, e, `
		assert(not rawequal(plain, mover), "a view shares the plain userdata")
		assert(not rawequal(mover, named), "two views share a userdata")
		assert(rawequal(mover, mover2), "same view, two userdata")
		assert(plain == mover and mover == named, "== compares the objects")
	`)
	if got := e.Stats().LiveObjects; got != 3 {
		t.Errorf("LiveObjects = %d, want 3 (one slot per view)", got)
	}
}

// pushWatched pushes a new Player as global name and returns a flag set
// when Go collects it. It runs in its own frame so no local keeps it.
func pushWatched(t *testing.T, e *zlua.Env, name string) *atomic.Bool {
	fired := new(atomic.Bool)
	p := &Player{Name: name}
	runtime.AddCleanup(p, func(f *atomic.Bool) { f.Store(true) }, fired)
	must(t, e.SetGlobal(name, p))
	return fired
}

func TestLuaHoldingAnObjectKeepsItAlive(t *testing.T) {
	e := newEnv(t)
	base := e.Stats().LiveObjects
	fired := pushWatched(t, e, "held")
	for i := 0; i < 5; i++ {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if fired.Load() {
		t.Fatal("Go collected an object Lua holds")
	}
	run(t, e, `assert(held.Name == "held")`)
	run(t, e, "held = nil; "+collectLua)
	must(t, e.Pump())
	if got := e.Stats().LiveObjects; got != base {
		t.Errorf("LiveObjects = %d after Lua dropped the object, want %d", got, base)
	}
	for i := 0; i < 100 && !fired.Load(); i++ {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if !fired.Load() {
		t.Error("the object stayed alive after Lua dropped it and its slot was released")
	}
}

func TestManyObjectsReuseSlots(t *testing.T) {
	n := 1_000_000
	if raceEnabled || testing.Short() {
		n = 100_000 // the race detector makes 10^6 take minutes
	}
	e := newEnv(t)
	base := e.Stats()
	must(t, e.SetGlobal("mk", func(i int) *Monster { return &Monster{HP: i} }))
	must(t, e.SetGlobal("n", n))
	run(t, e, `
		for i = 1, n do
			local m = mk(i)
			if m.HP ~= i then error("wrong object") end
		end
	`+collectLua)
	must(t, e.Pump())
	s := e.Stats()
	if s.LiveObjects != base.LiveObjects {
		t.Errorf("LiveObjects = %d after %d objects were collected, want %d", s.LiveObjects, n, base.LiveObjects)
	}
	if s.ObjectPushes-base.ObjectPushes != uint64(n) {
		t.Errorf("ObjectPushes grew by %d, want %d", s.ObjectPushes-base.ObjectPushes, n)
	}
	// Slots are reused while the script runs: no more were ever live than
	// Lua's collector let accumulate, and the table is no bigger than twice
	// that peak.
	if s.PeakObjects >= n || s.SlotCapacity > max(2*s.PeakObjects, 1024) {
		t.Errorf("peak %d, capacity %d for %d objects: slots not reused", s.PeakObjects, s.SlotCapacity, n)
	}
	// A second round fits in the same table.
	run(t, e, `for i = 1, n do local m = mk(i) end`+collectLua)
	must(t, e.Pump())
	if s2 := e.Stats(); s2.LiveObjects != base.LiveObjects || s2.SlotCapacity > max(2*s2.PeakObjects, 1024) {
		t.Errorf("second round: %+v", s2)
	}
	t.Logf("%d objects: peak %d live, slot capacity %d", n, s.PeakObjects, s.SlotCapacity)
}

// playerRef is a defined pointer type: a Go function returning one hands
// Lua an object whose Go type is playerRef, not *Player.
type playerRef *Player

// TestReturnedObjectsKeepTypeAndIdentity covers the results of func() *T
// shapes, which go to C without a push program: a new object, the same
// object again (one userdata), a defined pointer type (its own type
// when it comes back to Go), and the object given back to Go unchanged.
func TestReturnedObjectsKeepTypeAndIdentity(t *testing.T) {
	e := newEnv(t)
	p := &Player{Name: "ann", HP: 3}
	var made []*Player
	must(t, e.SetGlobal("spawn", func() *Player { q := &Player{HP: 1}; made = append(made, q); return q }))
	must(t, e.SetGlobal("get", func() *Player { return p }))
	must(t, e.SetGlobal("ref", func() playerRef { return playerRef(p) }))
	var back []any
	must(t, e.SetGlobal("keep", func(x any) { back = append(back, x) }))
	must(t, e.SetGlobal("same", func(a *Player, b *Player) bool { return a == b }))
	run(t, e, `
		local a, b = spawn(), spawn()
		assert(not rawequal(a, b) and a:Health() == 1)
		assert(rawequal(get(), get()) and get().Name == "ann")
		assert(rawequal(ref(), ref()), "a defined pointer type keeps its identity")
		assert(not rawequal(ref(), get()), "another Go type is another binding")
		assert(same(get(), get()))
		keep(a); keep(get()); keep(ref())
	`)
	if len(back) != 3 || back[0] != any(made[0]) || back[1] != any(p) {
		t.Fatalf("objects came back as %#v", back)
	}
	if r, ok := back[2].(playerRef); !ok || (*Player)(r) != p {
		t.Fatalf("defined pointer type came back as %T %v", back[2], back[2])
	}
}

// TestObjectCountersDuringACall: the owner publishes the object counters
// in batches; a Stats read inside a long call (here by a Go function the
// script calls) lags by less than 1024 pushes, and once the call returned
// they are exact.
func TestObjectCountersDuringACall(t *testing.T) {
	e := newEnv(t)
	p := &Player{Name: "ann"}
	must(t, e.SetGlobal("get", func() *Player { return p }))
	must(t, e.SetGlobal("mk", func() *Monster { return &Monster{} }))
	var mid []zlua.Stats
	must(t, e.SetGlobal("snap", func() { mid = append(mid, e.Stats()) }))
	base := e.Stats()
	run(t, e, `
		snap()
		local keep = {}
		pp = get() -- held, so its slot stays live
		for i = 1, 2999 do local o = get() end
		snap()
		for i = 1, 2500 do keep[i] = mk() end
		snap()
		held = keep
	`)
	pushes := func(s zlua.Stats) int { return int(s.ObjectPushes - base.ObjectPushes) }
	if got := pushes(mid[1]); got > 3000 || got < 3000-1023 {
		t.Errorf("ObjectPushes grew by %d after 3000 pushes in the call, want within 1023 of it", got)
	}
	if got := mid[2].LiveObjects - base.LiveObjects; got > 2501 || got < 2501-1023 {
		t.Errorf("LiveObjects grew by %d after 2501 objects in the call, want within 1023 of it", got)
	}
	s := e.Stats()
	if pushes(s) != 5500 || s.CacheHits-base.CacheHits != 2999 || s.LiveObjects-base.LiveObjects != 2501 ||
		s.PeakObjects < s.LiveObjects {
		t.Errorf("after the call: pushes +%d, hits +%d, live +%d, peak %d; want 5500, 2999, 2501, ≥ live",
			pushes(s), s.CacheHits-base.CacheHits, s.LiveObjects-base.LiveObjects, s.PeakObjects)
	}
	run(t, e, "held, pp = nil, nil"+collectLua)
	must(t, e.Pump())
	if s := e.Stats(); s.LiveObjects != base.LiveObjects {
		t.Errorf("LiveObjects = %d after everything was collected, want %d", s.LiveObjects, base.LiveObjects)
	}
}
