package bench

import (
	"fmt"
	"testing"

	"github.com/zlua-go/zlua"
)

// The crossing rows (docs/PERFORMANCE.md): one behaviour per entity,
// written in the ways a script and a Go API can split it between Lua and
// Go, to show what a Lua↔Go crossing costs and what avoiding one saves.
// Each frame moves every entity by its velocity, bounces it at the bounds
// and takes one hit point.

// crossEnt is the entity of the crossing rows.
type crossEnt struct {
	X, VX float64
	HP    int
}

// GetX, SetX, GetVX and SetVX are the getter/setter API.
func (e *crossEnt) GetX() float64   { return e.X }
func (e *crossEnt) SetX(x float64)  { e.X = x }
func (e *crossEnt) GetVX() float64  { return e.VX }
func (e *crossEnt) SetVX(v float64) { e.VX = v }

// Hit takes n hit points (and heals a dead entity, so the rows run
// forever).
func (e *crossEnt) Hit(n int) {
	if e.HP -= n; e.HP <= 0 {
		e.HP = 1 << 30
	}
}

// Step is the whole behaviour as one method.
func (e *crossEnt) Step(dt float64) {
	e.X += e.VX * dt
	if e.X > 200 || e.X < 0 {
		e.VX = -e.VX
	}
	e.Hit(1)
}

// crossWorld holds the entities for the batch row.
type crossWorld struct{ ents []*crossEnt }

// StepAll steps every entity: one crossing per frame.
func (w *crossWorld) StepAll(dt float64) {
	for _, e := range w.ents {
		e.Step(dt)
	}
}

// crossingRows are the variants, from the most crossings per entity to
// the fewest. %s is the per-entity body, run for e = ents[i].
var crossingRows = []struct{ name, body string }{
	{"Getters", `e:SetX(e:GetX() + e:GetVX() * dt)
		local x = e:GetX()
		if x > 200 or x < 0 then e:SetVX(-e:GetVX()) end
		e:Hit(1)`},
	{"Fields", `e.X = e.X + e.VX * dt
		if e.X > 200 or e.X < 0 then e.VX = -e.VX end
		e:Hit(1)`},
	{"FieldsOnly", `e.X = e.X + e.VX * dt
		if e.X > 200 or e.X < 0 then e.VX = -e.VX end
		local hp = e.HP - 1
		if hp <= 0 then hp = 1073741824 end
		e.HP = hp`},
	{"Step", `e:Step(dt)`},
	{"LuaTables", `e.x = e.x + e.vx * dt
		if e.x > 200 or e.x < 0 then e.vx = -e.vx end
		local hp = e.hp - 1
		if hp <= 0 then hp = 1073741824 end
		e.hp = hp`},
}

const crossN = 1000

// The Crossing rows run each variant over 1000 entities (zlua only: the
// rows compare ways of writing the same code); ns/op and cpu-ns/op are one
// frame, cpu-ns/entity the thread CPU time per entity (steadier than wall
// time on a loaded machine) and crossings/entity the Lua→Go calls.
func BenchmarkCrossing_Getters(b *testing.B)    { crossingScript(b, 0) }
func BenchmarkCrossing_Fields(b *testing.B)     { crossingScript(b, 1) }
func BenchmarkCrossing_FieldsOnly(b *testing.B) { crossingScript(b, 2) }
func BenchmarkCrossing_Step(b *testing.B)       { crossingScript(b, 3) }
func BenchmarkCrossing_LuaTables(b *testing.B)  { crossingScript(b, 4) }

// BenchmarkCrossing_Batch: Go steps every entity in one call per frame.
func BenchmarkCrossing_Batch(b *testing.B) {
	b.Run("zlua", func(b *testing.B) {
		e, err := zlua.New(zlua.Options{})
		must(b, err)
		defer e.Close()
		w := &crossWorld{}
		for i := 0; i < crossN; i++ {
			w.ents = append(w.ents, &crossEnt{X: float64(i % 200), VX: 1, HP: 1 << 30})
		}
		must(b, e.SetGlobal("world", w))
		crossingFrames(b, e, `function frame(dt) world:StepAll(dt) end`)
	})
}

// BenchmarkCrossing_GoDriven: Go calls a Lua handler once per entity (the
// other direction: one Go→Lua call each). Only Go holds the entities, so
// each call may push a new userdata (the last one was collected) that must
// be pinned again; BenchmarkCrossing_GoDrivenHeld keeps them in a Lua
// table too.
func BenchmarkCrossing_GoDriven(b *testing.B) {
	b.Run("zlua", func(b *testing.B) { crossingGoDriven(b, false) })
}

// BenchmarkCrossing_GoDrivenHeld is GoDriven with Lua holding the objects.
func BenchmarkCrossing_GoDrivenHeld(b *testing.B) {
	b.Run("zlua", func(b *testing.B) { crossingGoDriven(b, true) })
}

// crossingScript runs crossingRows[i] as frame(dt) over Lua's ents.
func crossingScript(b *testing.B, i int) {
	row := crossingRows[i]
	b.Run("zlua", func(b *testing.B) {
		e, err := zlua.New(zlua.Options{})
		must(b, err)
		defer e.Close()
		ents := make([]any, crossN)
		for i := range ents {
			ents[i] = &crossEnt{X: float64(i % 200), VX: 1, HP: 1 << 30}
		}
		must(b, e.DoString(`ents = {}`))
		if row.name == "LuaTables" {
			must(b, e.DoString(fmt.Sprintf(`for i = 1, %d do ents[i] = {x = (i - 1) %% 200, vx = 1, hp = 1073741824} end`, crossN)))
		} else {
			must(b, e.SetGlobal("ents", ents))
		}
		crossingFrames(b, e, `function frame(dt)
			for i = 1, #ents do
				local e = ents[i]
				`+row.body+`
			end
		end`)
	})
}

// crossingGoDriven runs the GoDriven rows.
func crossingGoDriven(b *testing.B, held bool) {
	{
		e, err := zlua.New(zlua.Options{})
		must(b, err)
		defer e.Close()
		must(b, e.DoString(`function update(e)
			e.X = e.X + e.VX * 0.016
			if e.X > 200 or e.X < 0 then e.VX = -e.VX end
			e:Hit(1)
		end`))
		var update func(any) error
		must(b, e.GetFunction("update", &update))
		ents := make([]*crossEnt, crossN)
		for i := range ents {
			ents[i] = &crossEnt{X: float64(i % 200), VX: 1, HP: 1 << 30}
		}
		if held {
			must(b, e.SetGlobal("ents", ents))
		}
		frame := func() {
			for _, x := range ents {
				if err := update(x); err != nil {
					b.Fatal(err)
				}
			}
		}
		frame()
		c0 := e.Stats().GoCalls
		b.ReportAllocs()
		b.ResetTimer()
		cpu := startCPU(b)
		for i := 0; i < b.N; i++ {
			frame()
		}
		crossingMetrics(b, cpu, e.Stats().GoCalls-c0)
	}
}

// crossingFrames defines frame(dt) with script and runs b.N frames.
func crossingFrames(b *testing.B, e *zlua.Env, script string) {
	must(b, e.DoString(script))
	var frame func(float64) error
	must(b, e.GetFunction("frame", &frame))
	must(b, frame(0.016)) // pins the objects, binds the types
	c0 := e.Stats().GoCalls
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPU(b)
	for i := 0; i < b.N; i++ {
		if err := frame(0.016); err != nil {
			b.Fatal(err)
		}
	}
	crossingMetrics(b, cpu, e.Stats().GoCalls-c0)
}

func crossingMetrics(b *testing.B, cpu *cpuClock, calls uint64) {
	cpu.report()
	b.StopTimer()
	b.ReportMetric(float64(cpu.thread)/float64(b.N)/crossN, "cpu-ns/entity")
	b.ReportMetric(float64(calls)/float64(b.N)/crossN, "crossings/entity")
}
