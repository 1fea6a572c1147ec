package bench

import (
	"runtime"
	"slices"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
	"github.com/zlua-go/zlua"
)

// The frame workload: a headless game-server loop. N entities (Go structs
// with methods) run a Lua behaviour each frame: read their position, move,
// look up a neighbour (an object pushed again: an identity-cache hit) and
// damage it. Each frame 1% of the entities despawn and as many spawn, and
// Go delivers those events to Lua handlers through function handles. The
// frame ends with Pump.

// Entity is a game object owned by Go.
type Entity struct {
	ID     int
	X, Y   float64
	HP     int
	world  *world
	index  int
	killed bool
}

// Position returns the entity's position.
func (e *Entity) Position() (float64, float64) { return e.X, e.Y }

// Move moves the entity by (dx, dy).
func (e *Entity) Move(dx, dy float64) { e.X += dx; e.Y += dy }

// Neighbour returns the next entity in the world.
func (e *Entity) Neighbour() *Entity {
	w := e.world
	return w.ents[(e.index+1)%len(w.ents)]
}

// Damage lowers HP; it reports whether the entity is still alive.
func (e *Entity) Damage(n int) bool { e.HP -= n; return e.HP > 0 }

type world struct {
	ents   []*Entity
	nextID int
}

func (w *world) spawn() *Entity {
	w.nextID++
	e := &Entity{ID: w.nextID, HP: 1 << 30, world: w, index: len(w.ents), X: float64(w.nextID % 200)}
	w.ents = append(w.ents, e)
	return e
}

// despawn removes the entity at i (swap with the last).
func (w *world) despawn(i int) *Entity {
	e := w.ents[i]
	last := w.ents[len(w.ents)-1]
	w.ents[i], last.index = last, i
	w.ents = w.ents[:len(w.ents)-1]
	e.killed = true
	return e
}

const behaviour = `
ents, count, events = {}, 0, 0
function on_spawn(e) ents[e] = true; count = count + 1 end
function on_despawn(e) ents[e] = nil; count = count - 1; events = events + 1 end
function frame(dt)
	for e in pairs(ents) do
		local x, y = e:Position()
		if x > 100 then e:Move(-dt, 0) else e:Move(dt, 0) end
		local other = e:Neighbour()
		if other ~= e then other:Damage(1) end
	end
end`

// frameStats reports the per-frame figures of a run.
func frameStats(b *testing.B, frames []time.Duration, mallocs uint64) {
	ns := make([]float64, len(frames))
	for i, d := range frames {
		ns[i] = float64(d.Nanoseconds())
	}
	slices.Sort(ns)
	b.ReportMetric(ns[len(ns)/2], "p50-ns/frame")
	b.ReportMetric(ns[len(ns)*99/100], "p99-ns/frame")
	b.ReportMetric(float64(mallocs)/float64(len(frames)), "go-allocs/frame")
}

func benchFrameZlua(b *testing.B, n int) {
	env, err := zlua.New(zlua.Options{PumpBudget: 10000})
	if err != nil {
		b.Fatal(err)
	}
	defer env.Close()
	if err := env.DoString(behaviour); err != nil {
		b.Fatal(err)
	}
	var frame func(float64) error
	var onSpawn, onDespawn func(*Entity) error
	for name, p := range map[string]any{"frame": &frame, "on_spawn": &onSpawn, "on_despawn": &onDespawn} {
		if err := env.GetFunction(name, p); err != nil {
			b.Fatal(err)
		}
	}
	w := &world{}
	for i := 0; i < n; i++ {
		if err := onSpawn(w.spawn()); err != nil {
			b.Fatal(err)
		}
	}
	churn := max(n/100, 1)
	frames := make([]time.Duration, 0, b.N)
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	b.ReportAllocs()
	b.ResetTimer()
	for f := 0; f < b.N; f++ {
		t0 := time.Now()
		if err := frame(0.016); err != nil {
			b.Fatal(err)
		}
		for k := 0; k < churn; k++ {
			if err := onDespawn(w.despawn((f*7919 + k*104729) % len(w.ents))); err != nil {
				b.Fatal(err)
			}
			if err := onSpawn(w.spawn()); err != nil {
				b.Fatal(err)
			}
		}
		if err := env.Pump(); err != nil {
			b.Fatal(err)
		}
		frames = append(frames, time.Since(t0))
	}
	b.StopTimer()
	runtime.ReadMemStats(&ms1)
	frameStats(b, frames, ms1.Mallocs-ms0.Mallocs)
	st := env.Stats()
	b.ReportMetric(float64(st.LiveObjects), "live-slots")
	if st.ObjectPushes > 0 {
		b.ReportMetric(100*float64(st.CacheHits)/float64(st.ObjectPushes), "cache-hit-%")
	}
}

// gopher-lua: entities are userdata whose metatable holds the same methods
// as LGFunctions; events go through CallByParam.
func benchFrameGopher(b *testing.B, n int) {
	L := lua.NewState()
	defer L.Close()
	mt := L.NewTypeMetatable("Entity")
	ud := map[*Entity]*lua.LUserData{}
	push := func(e *Entity) lua.LValue {
		u, ok := ud[e]
		if !ok {
			u = L.NewUserData()
			u.Value = e
			L.SetMetatable(u, mt)
			ud[e] = u
		}
		return u
	}
	self := func(L *lua.LState) *Entity { return L.CheckUserData(1).Value.(*Entity) }
	L.SetField(mt, "__index", L.SetFuncs(L.NewTable(), map[string]lua.LGFunction{
		"Position": func(L *lua.LState) int {
			x, y := self(L).Position()
			L.Push(lua.LNumber(x))
			L.Push(lua.LNumber(y))
			return 2
		},
		"Move": func(L *lua.LState) int {
			self(L).Move(float64(L.CheckNumber(2)), float64(L.CheckNumber(3)))
			return 0
		},
		"Neighbour": func(L *lua.LState) int { L.Push(push(self(L).Neighbour())); return 1 },
		"Damage": func(L *lua.LState) int {
			L.Push(lua.LBool(self(L).Damage(L.CheckInt(2))))
			return 1
		},
	}))
	if err := L.DoString(behaviour); err != nil {
		b.Fatal(err)
	}
	call := func(name string, args ...lua.LValue) {
		if err := L.CallByParam(lua.P{Fn: L.GetGlobal(name), NRet: 0, Protect: true}, args...); err != nil {
			b.Fatal(err)
		}
	}
	w := &world{}
	for i := 0; i < n; i++ {
		call("on_spawn", push(w.spawn()))
	}
	churn := max(n/100, 1)
	frames := make([]time.Duration, 0, b.N)
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	b.ReportAllocs()
	b.ResetTimer()
	for f := 0; f < b.N; f++ {
		t0 := time.Now()
		call("frame", lua.LNumber(0.016))
		for k := 0; k < churn; k++ {
			e := w.despawn((f*7919 + k*104729) % len(w.ents))
			call("on_despawn", push(e))
			delete(ud, e)
			call("on_spawn", push(w.spawn()))
		}
		frames = append(frames, time.Since(t0))
	}
	b.StopTimer()
	runtime.ReadMemStats(&ms1)
	frameStats(b, frames, ms1.Mallocs-ms0.Mallocs)
}

// BenchmarkFrame_Entities1k and BenchmarkFrame_Entities10k run the frame
// workload; ns/op is one frame. There is no native C row: the workload is
// Go game logic by definition.
func BenchmarkFrame_Entities1k(b *testing.B)  { benchFrame(b, 1000) }
func BenchmarkFrame_Entities10k(b *testing.B) { benchFrame(b, 10000) }

func benchFrame(b *testing.B, n int) {
	b.Run("zlua", func(b *testing.B) { benchFrameZlua(b, n) })
	b.Run("gopherlua", func(b *testing.B) { benchFrameGopher(b, n) })
}
