package zlua

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// The allocation-failure sweep: every scenario runs with the Lua allocator
// failing from its k-th growing allocation on, for k = 1, 2, ... until the
// scenario completes without reaching the failure. Each run must end with
// an error or a success, never a crash (an unprotected raise aborts the
// process), with the stack balanced, the Env usable once allocations work
// again, and nothing leaked after a full collection and Pump. Failing every
// allocation from k on (not only the k-th) is needed because Lua 5.4 retries
// a failed allocation after an emergency collection.

type sweepHero struct{ HP int }

// sweepVec is blittable (fields served in C); sweepRecord is not (a
// companion holds it).
type sweepVec struct{ X, Y float64 }

type sweepRecord struct {
	Name string
	Tags []string
}

func (h *sweepHero) Heal(n int) int { h.HP += n; return h.HP }

// sweepLeaf's methods are leaf methods: on LuaJIT its metatable building
// makes the FFI closures, its calls leave results and errors waiting in
// C for the closure (jitleaf.c).
type sweepLeaf struct{ X, Y float64 }

func (l *sweepLeaf) Move(dx, dy float64)     { l.X += dx; l.Y += dy }
func (l *sweepLeaf) Pos() (float64, float64) { return l.X, l.Y }
func (l *sweepLeaf) Check(n int) (bool, error) {
	if n < 0 {
		return false, errSweep
	}
	return n > 0, nil
}

func init() {
	if err := Leaf[*sweepLeaf]("Move", "Pos", "Check"); err != nil {
		panic(err)
	}
}

// sweepConfig decodes from tables and pushes with AsTable.
type sweepConfig struct {
	Name    string
	Spawn   sweepVec
	Boss    *sweepRecord
	Waves   []sweepVec
	ByName  map[string]sweepVec
	Extra   map[string]any
	Handler func(int) int
}

var errSweep = errors.New("sweep error")

type sweepScenario struct {
	name   string
	closes bool               // the scenario ends by closing the Env
	setup  func(e *Env) error // runs with working allocations
	run    func(e *Env) error // runs with the failing allocator
}

var sweepScenarios = []sweepScenario{
	{"push objects", false, func(e *Env) error { return nil }, func(e *Env) error {
		h := &sweepHero{}
		if err := e.SetGlobal("hero", h); err != nil {
			return err
		}
		if err := e.SetGlobal("heroes", []any{h, &sweepHero{}, map[string]any{"h": h}}); err != nil {
			return err
		}
		return e.DoString(`assert(hero:Heal(2) == 2); hero = nil; heroes = nil`)
	}},
	{"objects returned by Go functions", false, func(e *Env) error {
		// new objects and cache hits go to C as the call's result, without
		// a push program: a failed userdata must not leak its slot
		held := &sweepHero{HP: 7}
		if err := e.SetGlobal("spawn", func() *sweepHero { return &sweepHero{} }); err != nil {
			return err
		}
		return e.SetGlobal("held", func() *sweepHero { return held })
	}, func(e *Env) error {
		return e.DoString(`local t = {} for i = 1, 20 do t[i] = spawn() end
			assert(held() == held() and held().HP == 7); t = nil`)
	}},
	{"Go functions with strings", false, func(e *Env) error {
		return e.SetGlobal("shout", func(s string) string { return strings.ToUpper(s) + "!" })
	}, func(e *Env) error {
		if err := e.DoString(`local t = {} for i = 1, 20 do t[i] = shout("hey" .. i) end s = table.concat(t)`); err != nil {
			return err
		}
		var s string
		return e.Global("s", &s)
	}},
	{"leaf methods", false, func(e *Env) error { return nil }, func(e *Env) error {
		if err := e.SetGlobal("leaf", &sweepLeaf{}); err != nil {
			return err
		}
		return e.DoString(`for i = 1, 200 do
				leaf:Move(1, 0.5)
				local x, y = leaf:Pos()
				assert(x == i and y == i / 2 and leaf:Check(i) == true)
				assert(not pcall(leaf.Check, leaf, -1))
				assert(not pcall(leaf.Move, leaf, "x", 1))
			end
			leaf = nil`)
	}},
	{"errors across the gate", false, func(e *Env) error {
		if err := e.SetGlobal("fail", func() error { return errSweep }); err != nil {
			return err
		}
		return e.SetGlobal("boom", func() { panic("sweep panic") })
	}, func(e *Env) error {
		if err := e.DoString(`for i = 1, 5 do pcall(fail); pcall(boom); pcall(error, {}) end`); err != nil {
			return err
		}
		if err := e.DoString(`boom()`); err == nil {
			return fmt.Errorf("uncaught panic not reported")
		}
		err := e.DoString(`error(setmetatable({}, {__tostring = function() return "obj" end}))`)
		var le *LuaError
		if errors.As(err, &le) && le.Message == "obj" {
			return nil // the error this step raises on purpose
		}
		if err == nil {
			return fmt.Errorf("error object not raised")
		}
		return err
	}},
	{"function handles", false, func(e *Env) error {
		return e.DoString(`function add(a, b) return a + b end
			function greet(s) return "hi " .. s, {s} end`)
	}, func(e *Env) error {
		var add func(int, int) (int, error)
		if err := e.GetFunction("add", &add); err != nil {
			return err
		}
		if _, err := add(1, 2); err != nil {
			return err
		}
		var greet *Function
		if err := e.GetFunction("greet", &greet); err != nil {
			return err
		}
		if _, err := greet.Call("orc"); err != nil {
			return err
		}
		greet.Release()
		return e.Pump()
	}},
	{"ByVal and Opaque", false, func(e *Env) error {
		if err := e.SetGlobal("lenOf", func(r sweepRecord) int { return len(r.Tags) }); err != nil {
			return err
		}
		return e.DoString(`function nudge(h)
				local v = zlua.get_opaquevalue(h)
				v.X = v.X + 1
				zlua.set_opaquevalue(h, v)
				return v.X
			end`)
	}, func(e *Env) error {
		if err := e.SetGlobal("v", sweepVec{X: 1, Y: 2}); err != nil {
			return err
		}
		// the same type again: SetGlobal's one-step ByVal program
		if err := e.SetGlobal("v2", sweepVec{X: 3, Y: 4}); err != nil {
			return err
		}
		if err := e.DoString(`assert(v2.X == 3 and v2.Y == 4); v2 = nil`); err != nil {
			return err
		}
		if err := e.SetGlobal("rec", sweepRecord{Name: "orc", Tags: []string{"a", "b"}}); err != nil {
			return err
		}
		if err := e.DoString(`v.X = v.Y * 2; assert(lenOf(rec) == 2 and rec.Name == "orc"); rec = nil; v = nil`); err != nil {
			return err
		}
		var nudge *Function
		if err := e.GetFunction("nudge", &nudge); err != nil {
			return err
		}
		p := &sweepVec{X: 1}
		_, err := nudge.Call(Opaque(p))
		nudge.Release()
		return err
	}},
	{"fields, equality and caches served in C", false, func(e *Env) error {
		if err := e.SetGlobal("hero", &sweepHero{HP: 1}); err != nil {
			return err
		}
		return e.DoString(`assert(hero.HP == 1)`) // pinned: C serves HP from here on
	}, func(e *Env) error {
		h := &sweepHero{HP: 5}
		if err := e.SetGlobal("heroes", h); err != nil {
			return err
		}
		if err := e.SetGlobal("rec", sweepRecord{Name: "orc"}); err != nil {
			return err
		}
		if err := e.DoString(`
			for i = 1, 20 do
				hero.HP = hero.HP + heroes.HP
				local t = {hero == heroes, hero == hero, rec.Name .. i}
				rec.Name = "elf"
			end
			assert(not pcall(function() hero.HP = 1.5 end))
			heroes = nil; rec = nil`); err != nil {
			return err
		}
		return e.Global("hero", &h)
	}},
	{"decode tables and AsTable", false, func(e *Env) error {
		if err := e.SetGlobal("configure", func(c sweepConfig) int { return len(c.Waves) + c.Handler(1) }); err != nil {
			return err
		}
		return e.DoString(`function make(n) return {name = "w" .. n, waves = {{x = n}}, boss = {tags = {"b"}}} end`)
	}, func(e *Env) error {
		if err := e.DoString(`cfg = {name = "arena", spawn = {x = 1, y = 2}, boss = {name = "orc", tags = {"big"}},
				waves = {{x = 1}, {y = 2}}, byName = {a = {x = 3}}, extra = {deep = {list = {1, {k = "v"}}}},
				handler = function(n) return n + 1 end}
			assert(configure(cfg) == 4)
			assert(not pcall(configure, {waves = {{x = "bad"}}}))`); err != nil {
			return err
		}
		var c sweepConfig
		if err := e.Global("cfg", &c); err != nil {
			return err
		}
		if err := e.SetGlobal("copy", AsTable(&c)); err != nil {
			return err
		}
		if err := e.DoString(`assert(copy.Boss.Tags[1] == "big" and copy.ByName.a.X == 3 and copy.Handler(2) == 3); copy = nil; cfg = nil`); err != nil {
			return err
		}
		var mk func(int) (*sweepConfig, error)
		if err := e.GetFunction("make", &mk); err != nil {
			return err
		}
		_, err := mk(2)
		return err
	}},
	{"Close", true, func(e *Env) error {
		if err := e.SetGlobal("hero", &sweepHero{}); err != nil {
			return err
		}
		if err := e.SetGlobal("f", func() {}); err != nil {
			return err
		}
		var h *Function
		if err := e.DoString(`function lf() end; setmetatable({}, {__gc = function() local t = {} for i = 1, 100 do t[i] = {} end end})`); err != nil {
			return err
		}
		return e.GetFunction("lf", &h)
	}, func(e *Env) error { return e.Close() }},
	{"Reset", false, func(e *Env) error { return e.DoString(`x = 1`) }, func(e *Env) error {
		e.Reset(func(e *Env) error { return e.DoString(`y = 2`) })
		return e.Pump()
	}},
	{"tables", false, func(e *Env) error {
		return e.DoString(`Shop = setmetatable({items = {sword = 10}}, {__index = {buy = function(self, k) return self.items[k] end}})`)
	}, func(e *Env) error {
		tb, err := e.NewTable()
		if err != nil {
			return err
		}
		defer tb.Release()
		for i := 1; i <= 8; i++ {
			if err := tb.Set(i, map[string]any{"n": i, "name": "item"}); err != nil {
				return err
			}
		}
		if err := tb.Set("shout", strings.ToUpper); err != nil {
			return err
		}
		if n, err := tb.Len(); err != nil || n != 8 {
			return fmt.Errorf("len %d: %w", n, err)
		}
		var sub *Table
		if err := tb.Get(3, &sub); err != nil {
			return err
		}
		sub.Release()
		if err := tb.ForEach(func(k, v any) error {
			if t, ok := v.(*Table); ok {
				t.Release()
			}
			return nil
		}); err != nil {
			return err
		}
		var price int
		if err := e.Global("Shop.items.sword", &price); err != nil {
			return err
		}
		if err := e.SetGlobal("Shop.items.axe", 7); err != nil {
			return err
		}
		var shop *Table
		if err := e.Global("Shop", &shop); err != nil {
			return err
		}
		defer shop.Release()
		var buy func(string) (int, error)
		if err := shop.Method("buy", &buy); err != nil {
			return err
		}
		if _, err := buy("axe"); err != nil {
			return err
		}
		return e.Eval(`#Shop.items`, &price)
	}},
	{"threads and limited calls", false, func(e *Env) error {
		if err := e.SetGlobal("wait", func(s float64) error { return Yield(s, "waiting") }); err != nil {
			return err
		}
		return e.DoString(`function script(cfg) local got = wait(cfg.delay) local x = coroutine.yield({got, cfg.name}) return x .. "!" end
			function fails() wait(1) error("boom", 0) end
			function update(dt) local t = {} for i = 1, 20 do t[i] = {dt} end return #t end
			co = coroutine.create(function(a) return coroutine.yield(a) end)
			function many() return select("#", coroutine.yield()) end`)
	}, func(e *Env) error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		var script, fails, update, many *Function
		for name, f := range map[string]**Function{"script": &script, "fails": &fails, "update": &update, "many": &many} {
			if err := e.GetFunction(name, f); err != nil {
				return err
			}
			defer (*f).Release()
		}
		th, err := e.NewThread(script)
		if err != nil {
			return err
		}
		defer th.Release()
		if _, err := th.Resume(map[string]any{"delay": 0.5, "name": "bob"}); err != nil {
			return err
		}
		if _, err := th.ResumeContext(ctx, "woke"); err != nil {
			return err
		}
		if _, err := th.Resume("done"); err != nil {
			return err
		}
		// A suspended thread's stack grows for many arguments.
		wide, err := e.NewThread(many)
		if err != nil {
			return err
		}
		defer wide.Release()
		if _, err := wide.Resume(); err != nil {
			return err
		}
		args := make([]any, 300)
		for i := range args {
			args[i] = i
		}
		if _, err := wide.Resume(args...); err != nil {
			return err
		}
		bad, err := e.NewThread(fails)
		if err != nil {
			return err
		}
		defer bad.Release()
		if _, err := bad.Resume(); err != nil {
			return err
		}
		if _, err := bad.Resume(); err == nil || err.Error() != "boom" {
			if err == nil {
				err = errors.New("failing thread returned")
			}
			return err
		}
		var co *Thread
		if err := e.Global("co", &co); err != nil {
			return err
		}
		defer co.Release()
		out, err := co.ResumeContext(ctx, co)
		if err != nil {
			return err
		}
		self, ok := out[0].(*Thread)
		if !ok {
			return fmt.Errorf("thread yielded %v", out)
		}
		self.Release()
		if _, err := update.CallContext(ctx, 0.25); err != nil {
			return err
		}
		var typed func(context.Context, float64) error
		if err := e.GetFunction("update", &typed); err != nil {
			return err
		}
		return typed(ctx, 0.5)
	}},
	{"require", false, func(e *Env) error {
		return e.Preload("util", map[string]any{"add": func(a, b int) int { return a + b }})
	}, func(e *Env) error {
		if err := e.DoString(`local m = require("game.items"); assert(m.price("sword") == 10)
			assert(require("util").add(1, 2) == 3)
			assert(not pcall(require, "missing.module"))`); err != nil {
			return err
		}
		f, err := e.LoadString("chunk", "return ...")
		if err != nil {
			return err
		}
		defer f.Release()
		_, err = f.Call(1, "two")
		return err
	}},
}

// sweepBag has a slice field scripts append to through the object.
type sweepBag struct {
	Items []string       `lua:"items,ref"`
	Count map[string]int `lua:"count,ref"`
}

func init() {
	sweepScenarios = append(sweepScenarios, sweepScenario{"operators and collections", false, func(e *Env) error {
		return e.SetGlobal("vec", func(x, y float64) sweepVec { return sweepVec{x, y} })
	}, func(e *Env) error {
		if err := e.SetGlobal("before", sweepVec{1, 1}); err != nil {
			return err
		}
		err := Metamethods[sweepVec](e, map[string]any{
			"__add":      func(a, b sweepVec) sweepVec { return sweepVec{a.X + b.X, a.Y + b.Y} },
			"__eq":       func(a, b sweepVec) bool { return a == b },
			"__tostring": func(a sweepVec) string { return fmt.Sprint(a.X, ",", a.Y) },
		})
		if err != nil {
			return err
		}
		bag := &sweepBag{}
		if err := e.SetGlobal("bag", bag); err != nil {
			return err
		}
		if err := e.SetGlobal("inv", ByRef(map[string]int{"a": 1, "b": 2})); err != nil {
			return err
		}
		return e.DoString(`
			assert(before + vec(1, 2) == vec(2, 3) and tostring(before) == "1,1")
			for k, v in pairs(inv) do bag.items[#bag.items + 1] = k; bag.count[k] = v end
			local n = 0
			for i, v in ipairs(bag.items) do n = n + bag.count[v] end
			assert(n == 3 and #bag.items == 2)
			before, bag, inv = nil, nil, nil`)
	}})
}

// sweepOptions are the Options of the scenarios that need some.
var sweepOptions = map[string]Options{
	"require": {Modules: sweepModules},
}

// sweepModules is the module tree the require scenario loads.
var sweepModules = fstest.MapFS{
	"game/init.lua":  {Data: []byte(`return {greet = function(s) return "hi " .. s end}`)},
	"game/items.lua": {Data: []byte(`local g = require("game"); return {price = function(k) return #g.greet(k) + 2 end}`)},
}

func TestAllocationFailureSweep(t *testing.T) {
	for _, sc := range sweepScenarios {
		t.Run(sc.name, func(t *testing.T) {
			// A run without failures says what a finished scenario keeps
			// (bindings and their method functions are cached per state).
			ref, _, _ := sweepOnce(t, sc, 0, Stats{})
			runs, errs := 0, 0
			for k := uint64(1); ; k++ {
				_, done, failed := sweepOnce(t, sc, k, ref)
				runs++
				if failed {
					errs++
				}
				if done || t.Failed() {
					break
				}
				if k > 100000 {
					t.Fatal("scenario never completed")
				}
			}
			t.Logf("%d runs, %d ended in an error, 0 crashes", runs, errs)
		})
	}
}

// sweepOnce runs sc with allocations failing from the k-th on (k = 0: no
// failure) and returns the stats left after cleanup. done reports that the
// scenario finished before reaching the failure. Leaks are judged against
// ref, the stats of a run without failure.
func sweepOnce(t *testing.T, sc sweepScenario, k uint64, ref Stats) (left Stats, done, failed bool) {
	t.Helper()
	e, err := New(sweepOptions[sc.name])
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := e.Close(); err != nil {
			t.Errorf("k=%d: Close: %v", k, err)
		}
	}()
	if err := sc.setup(e); err != nil {
		t.Fatalf("setup: %v", err)
	}
	if err := e.Pump(); err != nil {
		t.Fatalf("setup: %v", err)
	}
	s := e.g.S
	start := s.AllocCount()
	s.FailAllocAt(k)
	e.testFailAt = k // carried into a state rebuilt by Reset
	runErr := sc.run(e)
	e.testFailAt = 0
	var reached bool
	switch {
	case e.g.Closed():
		reached = k > 0
	case e.g.S != s: // rebuilt by Reset: the new state's count
		reached = k > 0 && e.g.S.AllocCount() >= k
	default:
		reached = k > 0 && s.AllocCount()-start >= k
	}
	if sc.closes {
		if runErr != nil || !e.g.Closed() {
			t.Fatalf("k=%d: Close under failing allocations: %v", k, runErr)
		}
		return Stats{}, k > 0 && s.AllocCount() < start+k, false
	}
	if e.g.Closed() { // a Reset whose rebuild failed closes the Env
		if runErr == nil || !reached {
			t.Fatalf("k=%d: Env closed without a reported failure (%v)", k, runErr)
		}
		return Stats{}, false, true
	}
	e.g.S.FailAllocAt(0)
	if !reached && runErr != nil {
		t.Fatalf("k=%d: scenario failed without an allocation failure: %v", k, runErr)
	}
	if top := e.stackTop(); top != 0 {
		t.Fatalf("k=%d: stack top %d after the run", k, top)
	}
	// Usable again, and nothing leaked once everything is dropped.
	runtime.GC()
	if err := e.DoString(`hero, heroes, s, v, rec, cfg, copy, before, bag, inv, leaf = nil; collectgarbage(); collectgarbage()`); err != nil {
		t.Fatalf("k=%d: Env unusable after the failure: %v", k, err)
	}
	if err := e.Pump(); err != nil && !e.g.Closed() {
		t.Fatalf("k=%d: Pump: %v", k, err)
	}
	st := e.Stats()
	// Dropped handles are released by cleanups, which run on their own
	// goroutine after a GC: give them time before judging.
	for deadline := time.Now().Add(5 * time.Second); k > 0 && st.LiveRefs > ref.LiveRefs && time.Now().Before(deadline); st = e.Stats() {
		runtime.GC()
		time.Sleep(time.Millisecond)
		if err := e.Pump(); err != nil {
			t.Fatalf("k=%d: Pump: %v", k, err)
		}
	}
	if k > 0 && (st.LiveObjects > ref.LiveObjects || st.LiveFuncs > ref.LiveFuncs ||
		st.LiveRefs > ref.LiveRefs || st.LiveStructs > ref.LiveStructs) {
		t.Fatalf("k=%d: leaked: objects %d (%d without failure), functions %d (%d), refs %d (%d), structs %d (%d)", k,
			st.LiveObjects, ref.LiveObjects, st.LiveFuncs, ref.LiveFuncs, st.LiveRefs, ref.LiveRefs,
			st.LiveStructs, ref.LiveStructs)
	}
	return st, !reached, runErr != nil
}
