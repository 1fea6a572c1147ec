package bench

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"testing"
	"time"
)

// The frame workloads: a headless game-server loop. N entities run a Lua
// behaviour each frame; then 1% of them despawn and as many spawn, and
// the host delivers those events to Lua handlers (on_despawn, on_spawn)
// through function handles; zlua's frame ends with Pump. Two behaviours:
//
//   - methods (Frame_Entities*): read the position, move, look up a
//     neighbour (the same entity pushed again: an identity-cache hit for
//     zlua) and damage it: four method calls and one == per entity.
//   - fields (Frame_Fields*): e.X = e.X + e.VX*dt, a bounds check on e.X
//     (bouncing off 0 and 200), a read of e.HP and one e:Hit(1).
//
// Each is implemented three ways (frame_impl_test.go): native (entities
// are C structs in userdata with lua_CFunction methods and C
// __index/__newindex, bench/native), zlua (Go structs: exported fields and
// methods) and gopher-lua (LUserData with Go methods and a hand-written
// __index/__newindex switch). All run the same Lua script.
//
// The rows must run a fixed number of frames (make bench uses -benchtime
// 200x): gopher-lua never drops deleted keys from a table's pairs() order,
// so the churn makes its frames slower the more frames have run, and a
// time-based benchtime runs ten times more frames at 1k entities than at
// 10k.

// Entity is a game object owned by Go.
type Entity struct {
	ID       int
	X, Y, VX float64
	HP       int
	world    *world
	index    int
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
func (e *Entity) Damage(n int) bool { e.HP -= n; e.world.hits++; return e.HP > 0 }

// Hit lowers HP (the field-style behaviour's one method call).
func (e *Entity) Hit(n int) { e.HP -= n; e.world.hits++ }

// world is the Go entity set of the zlua and gopher-lua rows (the native
// rows keep the same set in C, with the same initial values).
type world struct {
	ents   []*Entity
	nextID int
	hits   int // Damage and Hit calls
}

func (w *world) spawn() *Entity {
	w.nextID++
	id := w.nextID
	e := &Entity{ID: id, HP: 1 << 30, world: w, index: len(w.ents), X: float64(id % 200), VX: float64(10 + id%10)}
	w.ents = append(w.ents, e)
	return e
}

// despawn removes the entity at i (swap with the last).
func (w *world) despawn(i int) *Entity {
	e := w.ents[i]
	last := w.ents[len(w.ents)-1]
	w.ents[i], last.index = last, i
	w.ents = w.ents[:len(w.ents)-1]
	return e
}

// digest sums the world's state for the cross-check of implementations.
func (w *world) digest() frameDigest {
	d := frameDigest{Hits: w.hits, Len: len(w.ents)}
	for _, e := range w.ents {
		d.SumX += e.X
		d.SumHP += float64(e.HP)
	}
	return d
}

// The Lua side is the same for both behaviours; only the loop body differs.
const frameScript = `
ents, count, events = {}, 0, 0
function on_spawn(e) ents[e] = true; count = count + 1 end
function on_despawn(e) ents[e] = nil; count = count - 1; events = events + 1 end
function frame(dt)
	for e in pairs(ents) do
%s
	end
end`

const methodsBody = `
		local x, y = e:Position()
		if x > 100 then e:Move(-dt, 0) else e:Move(dt, 0) end
		local other = e:Neighbour()
		if other ~= e then other:Damage(1) end`

const fieldsBody = `
		e.X = e.X + e.VX * dt
		if e.X < 0 or e.X > 200 then e.VX = -e.VX end
		if e.HP > 0 then e:Hit(1) end`

// frameBehaviour is one of the two behaviours.
type frameBehaviour struct {
	fields bool   // field-style (Frame_Fields*) rather than methods
	script string // the whole Lua script
}

var (
	methodsFrame = frameBehaviour{fields: false, script: fmt.Sprintf(frameScript, methodsBody)}
	fieldsFrame  = frameBehaviour{fields: true, script: fmt.Sprintf(frameScript, fieldsBody)}
)

// frameDT is the frame's time step.
const frameDT = 0.016

// churn is the number of entities that despawn (and spawn) per frame.
func churn(n int) int { return max(n/100, 1) }

// churnIndex is the index of the k-th entity despawned in frame f, in a
// world of n entities.
func churnIndex(f, k, n int) int { return (f*7919 + k*104729) % n }

// frameSim is one implementation of a frame workload, set up with its
// entities and its Lua script loaded.
type frameSim interface {
	// frame runs frame number f: the Lua frame(dt), the churn events and
	// the implementation's end-of-frame work (zlua: Pump).
	frame(f int) error
	// digest reads the state the three implementations must agree on.
	digest() (frameDigest, error)
	close()
}

// frameDigest is what the implementations of a workload must agree on
// after the same frames: damage dealt, entities alive (in the host world
// and as counted by the Lua handlers) and sums of their state.
type frameDigest struct {
	Hits, Len, LuaCount int
	SumX, SumHP         float64
}

// agrees reports whether d and o describe the same state (X sums compared
// to a relative 1e-9: the Lua VMs round alike, the order of sums may not).
func (d frameDigest) agrees(o frameDigest) bool {
	return d.Hits == o.Hits && d.Len == o.Len && d.LuaCount == o.LuaCount && d.SumHP == o.SumHP &&
		math.Abs(d.SumX-o.SumX) <= 1e-9*math.Max(1, math.Abs(d.SumX))
}

// statsReporter is implemented by sims with extra metrics (zlua's slot and
// cache figures).
type statsReporter interface{ reportStats(b *testing.B) }

// frameImpl names a constructor of a frameSim.
type frameImpl struct {
	name string
	open func(bh frameBehaviour, n int) (frameSim, error)
	// methodsOnly: a variant whose entities have no fields in Lua, run by
	// the method-style Frame rows only
	methodsOnly bool
}

// runs reports whether the implementation runs behaviour bh.
func (impl frameImpl) runs(bh frameBehaviour) bool { return !bh.fields || !impl.methodsOnly }

var frameImpls = []frameImpl{
	{name: "native", open: openNativeFrame},
	{name: "zlua", open: openZluaFrame},
	{name: "gopherlua", open: openGopherFrame},
	{name: "zluaNoLeaf", open: openZluaNoLeafFrame}, // a variant: methods not declared leaf
	// a variant of the method-style frame: the entity's fields hidden
	// from Lua, as the native and gopher-lua entities of that frame have
	// none (the field-style frame needs them: not run there)
	{name: "zluaMethods", open: openZluaMethodsFrame, methodsOnly: true},
}

// BenchmarkFrame_Entities1k and BenchmarkFrame_Entities10k run the
// method-style frame; BenchmarkFrame_Fields1k and BenchmarkFrame_Fields10k
// the field-style one. ns/op and cpu-ns/op are one frame; run them with a
// fixed frame count (-benchtime 200x).
func BenchmarkFrame_Entities1k(b *testing.B)  { benchFrame(b, methodsFrame, 1000) }
func BenchmarkFrame_Entities10k(b *testing.B) { benchFrame(b, methodsFrame, 10000) }
func BenchmarkFrame_Fields1k(b *testing.B)    { benchFrame(b, fieldsFrame, 1000) }
func BenchmarkFrame_Fields10k(b *testing.B)   { benchFrame(b, fieldsFrame, 10000) }

func benchFrame(b *testing.B, bh frameBehaviour, n int) {
	for _, impl := range frameImpls {
		if !impl.runs(bh) {
			continue
		}
		b.Run(impl.name, func(b *testing.B) { runFrames(b, impl, bh, n) })
	}
}

// runFrames times b.N frames of a fresh sim and checks afterwards that
// every frame did its work (each entity dealt one hit per frame, the Lua
// handlers saw every event).
func runFrames(b *testing.B, impl frameImpl, bh frameBehaviour, n int) {
	sim, err := impl.open(bh, n)
	must(b, err)
	defer sim.close()
	before, err := sim.digest()
	must(b, err)
	frames := make([]time.Duration, 0, b.N)
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPU(b)
	defer cpu.report()
	for f := 0; f < b.N; f++ {
		t0 := time.Now()
		if err := sim.frame(f); err != nil {
			b.Fatal(err)
		}
		frames = append(frames, time.Since(t0))
	}
	cpu.report()
	b.StopTimer()
	runtime.ReadMemStats(&ms1)
	frameStats(b, frames, ms1.Mallocs-ms0.Mallocs)
	after, err := sim.digest()
	must(b, err)
	if hits := after.Hits - before.Hits; hits != b.N*n || after.Len != n || after.LuaCount != n {
		b.Fatalf("%s: after %d frames: %d hits (want %d), %d entities, Lua counts %d (want %d)",
			impl.name, b.N, hits, b.N*n, after.Len, after.LuaCount, n)
	}
	if r, ok := sim.(statsReporter); ok {
		r.reportStats(b)
	}
}

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

// TestFrameImplementationsAgree runs both behaviours for a few frames on
// the three implementations and compares their state: the rows of a
// Frame_ benchmark measure the same work.
func TestFrameImplementationsAgree(t *testing.T) {
	const n, frames = 300, 7
	for _, bh := range []frameBehaviour{methodsFrame, fieldsFrame} {
		var want frameDigest
		for i, impl := range frameImpls {
			if !impl.runs(bh) {
				continue
			}
			sim, err := impl.open(bh, n)
			if err != nil {
				t.Fatalf("fields=%v %s: %v", bh.fields, impl.name, err)
			}
			for f := 0; f < frames; f++ {
				if err := sim.frame(f); err != nil {
					t.Fatalf("fields=%v %s: frame %d: %v", bh.fields, impl.name, f, err)
				}
			}
			got, err := sim.digest()
			sim.close()
			if err != nil {
				t.Fatalf("fields=%v %s: %v", bh.fields, impl.name, err)
			}
			if got.Hits != n*frames || got.Len != n || got.LuaCount != n {
				t.Errorf("fields=%v %s: %+v, want %d hits and %d entities", bh.fields, impl.name, got, n*frames, n)
			}
			if i == 0 {
				want = got
			} else if !got.agrees(want) {
				t.Errorf("fields=%v %s: %+v, %s had %+v", bh.fields, impl.name, got, frameImpls[0].name, want)
			}
		}
	}
}
