package zlua_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// TestHeldObjectCallsPassTheHeldUserdata: a typed func called with an
// object Lua holds passes the userdata Lua holds (rawequal to it, its
// fields and methods working) and counts a cache hit per call.
func TestHeldObjectCallsPassTheHeldUserdata(t *testing.T) {
	e := newEnv(t)
	mobs := []*Mob{{I: 1}, {I: 2}}
	must(t, e.SetGlobal("mobs", mobs))
	run(t, e, `function same(m, i) m.F64 = m.F64 + m.I return rawequal(m, mobs[i]) end`)
	var same func(any, int) (bool, error)
	must(t, e.GetFunction("same", &same))
	var update func(any) error
	run(t, e, `function update(m) m.F64 = m.F64 + m.I end`)
	must(t, e.GetFunction("update", &update))
	hits, held := e.Stats().CacheHits, zlua.HeldCalls(e)
	for round := 0; round < 3; round++ {
		for _, m := range mobs {
			must(t, update(m))
		}
	}
	if got := e.Stats().CacheHits - hits; got != 6 {
		t.Errorf("CacheHits grew by %d over 6 calls with held objects, want 6", got)
	}
	if got := zlua.HeldCalls(e) - held; got != 6 {
		t.Errorf("%d of 6 calls passed their object from the cache, want 6", got)
	}
	if mobs[0].F64 != 3 || mobs[1].F64 != 6 {
		t.Errorf("F64 = %v, %v after 3 updates each, want 3, 6", mobs[0].F64, mobs[1].F64)
	}
	for i, m := range mobs {
		if ok, err := same(m, i+1); err != nil || !ok {
			t.Errorf("same(mobs[%d]) = %v, %v: want the userdata Lua holds", i, ok, err)
		}
	}
	if u := zlua.Unsettled(e); u != "" {
		t.Errorf("the calls left %s", u)
	}
}

// TestHeldObjectsTheCacheLostArePushedAnew: an object whose slot Go keeps
// (found earlier in the same outermost call) but whose userdata Lua
// collected is pushed as a new userdata, which works like the first.
func TestHeldObjectsTheCacheLostArePushedAnew(t *testing.T) {
	e := newEnv(t)
	m := &Mob{I: 5}
	run(t, e, `function update(m) m.F64 = m.F64 + m.I return m.I end`)
	var update func(any) (int, error)
	must(t, e.GetFunction("update", &update))
	must(t, e.SetGlobal("get", func() *Mob { return m }))
	must(t, e.SetGlobal("viaGo", func() (int, error) { return update(m) }))
	must(t, e.SetGlobal("keep", m))
	pushes := e.Stats().ObjectPushes
	// get() hands the held object to Lua again (its slot now kept until
	// the call returns), the script drops and collects its userdata, then
	// Go calls update with it: the cache misses, and the object is pushed
	// anew; the second call finds the new userdata.
	run(t, e, `local o = get() o.F64 = 1 o = nil keep = nil
		collectgarbage() collectgarbage()
		assert(viaGo() == 5)
		assert(viaGo() == 5)`)
	if n := zlua.HeldCalls(e); n != 1 {
		t.Errorf("%d calls passed the object from the cache, want 1 (the second viaGo)", n)
	}
	if m.F64 != 11 {
		t.Errorf("F64 = %v, want 11", m.F64)
	}
	if got := e.Stats().ObjectPushes - pushes; got != 3 {
		t.Errorf("ObjectPushes grew by %d, want 3", got)
	}
	run(t, e, `collectgarbage() collectgarbage()`)
	must(t, e.Pump())
	if n := e.Stats().LiveObjects; n != 0 {
		t.Errorf("LiveObjects = %d after the userdata were collected, want 0", n)
	}
}

// TestHeldObjectsGetTheirAddressAtTheCall: an object pushed before its
// type's first field access, and held since, gets its address when a call
// passes it after that access: its fields are then served in C.
func TestHeldObjectsGetTheirAddressAtTheCall(t *testing.T) {
	e := newEnv(t)
	mobs := []*Mob{{I: 1}, {I: 2}}
	must(t, e.SetGlobal("mobs", mobs)) // userdata without an address
	run(t, e, `function update(m) m.F64 = m.F64 + m.I end`)
	var update func(any) error
	must(t, e.GetFunction("update", &update))
	must(t, update(&Mob{I: 3})) // the type's first field access: pinned lazily
	before := e.Stats().GoCalls
	for round := 0; round < 3; round++ {
		for _, m := range mobs {
			must(t, update(m))
		}
	}
	if n := e.Stats().GoCalls - before; n != 0 {
		t.Errorf("%d Go calls for 6 updates of held objects, want 0", n)
	}
	if mobs[0].F64 != 3 || mobs[1].F64 != 6 {
		t.Errorf("F64 = %v, %v, want 3, 6", mobs[0].F64, mobs[1].F64)
	}
}

// TestHeldObjectCallErrors: a call with a held object that raises reports
// the script's error and leaves the stack and the gate as they were.
func TestHeldObjectCallErrors(t *testing.T) {
	e := newEnv(t)
	m := &Mob{I: 1}
	must(t, e.SetGlobal("m", m))
	run(t, e, `function bad(x) error("no " .. x.I) end`)
	var bad func(any) error
	must(t, e.GetFunction("bad", &bad))
	top := zlua.StackTop(e)
	for i := 0; i < 3; i++ {
		if err := bad(m); err == nil || !strings.Contains(err.Error(), "no 1") {
			t.Fatalf("bad(m) = %v, want the script's error", err)
		}
	}
	if got := zlua.StackTop(e); got != top {
		t.Errorf("stack top %d after 3 failed calls, want %d", got, top)
	}
	if u := zlua.Unsettled(e); u != "" {
		t.Errorf("the calls left %s", u)
	}
}

// TestHeldObjectsWithASecondArgument: the typed funcs of an object and a
// number or a second object pass held objects from the cache too (one
// cache hit per object), and other arguments through the push program.
func TestHeldObjectsWithASecondArgument(t *testing.T) {
	e := newEnv(t)
	a, b := &Mob{I: 1}, &Mob{I: 2}
	must(t, e.SetGlobal("mobs", []*Mob{a, b}))
	run(t, e, `
		function step(m, dt) m.F64 = m.F64 + dt end
		function bump(m, n) m.I = m.I + n end
		function hit(x, y)
			assert(rawequal(x, mobs[1]) and rawequal(y, mobs[2]))
			y.F64 = y.F64 + x.I
		end
		function named(m, s) m.F64 = m.F64 + #s end`)
	var step func(any, float64) error
	var bump func(any, int)
	var hit func(any, any) error
	var named func(any, any) error
	must(t, e.GetFunction("step", &step))
	must(t, e.GetFunction("bump", &bump))
	must(t, e.GetFunction("hit", &hit))
	must(t, e.GetFunction("named", &named))
	hits, held := e.Stats().CacheHits, zlua.HeldCalls(e)
	must(t, step(a, 0.5))
	bump(a, 2)
	must(t, hit(a, b))
	if got := zlua.HeldCalls(e) - held; got != 3 {
		t.Errorf("%d of 3 calls passed their objects from the cache", got)
	}
	if got := e.Stats().CacheHits - hits; got != 4 {
		t.Errorf("CacheHits grew by %d over 4 held objects passed, want 4", got)
	}
	must(t, named(a, "four")) // a string: the push program
	if got := zlua.HeldCalls(e) - held; got != 3 {
		t.Errorf("a call with a string argument went through the cache path")
	}
	if a.F64 != 4.5 || a.I != 3 || b.F64 != 3 {
		t.Errorf("a = %+v, b = %+v; want F64 4.5, I 3 and F64 3", *a, *b)
	}
	if err := hit(b, a); err == nil || !strings.Contains(err.Error(), "assertion failed") {
		t.Errorf("hit(b, a) = %v, want the script's assertion", err)
	}
	if u := zlua.Unsettled(e); u != "" {
		t.Errorf("the calls left %s", u)
	}
}

// anyTwin is any under another name: typed funcs spelled with it are made
// by reflect.MakeFunc.
type anyTwin interface{}

// TestHeldDelegatesMatchReflect: the typed funcs of an object and one
// more argument give what their reflect-made twins give, whatever the
// arguments (held objects, new ones, nil, strings, numbers), raised errors
// and panics included; with held objects they allocate nothing.
func TestHeldDelegatesMatchReflect(t *testing.T) {
	e := newEnv(t)
	held := &Mob{I: 7}
	must(t, e.SetGlobal("held", held))
	run(t, e, `seen = ""
		local function d(v)
			if type(v) == "userdata" then return "Mob" .. v.I .. (rawequal(v, held) and "*" or "") end
			return type(v) .. ":" .. tostring(v)
		end
		function ok(a, b) seen = d(a) .. "," .. d(b) end
		function bad(a, b) error("refused " .. d(a) .. " " .. d(b), 0) end`)
	call := func(f func() error) (s string) {
		defer func() {
			if r := recover(); r != nil {
				s = fmt.Sprint("panic: ", r)
			}
		}()
		return fmt.Sprint(f())
	}
	args := [][2]any{{held, 0.5}, {&Mob{I: 2}, 1.0}, {nil, 2.0}, {"s", 3.0}, {held, held}, {held, "x"}}
	for _, fn := range []string{"ok", "bad"} {
		for _, a := range args {
			fast := map[string]func() error{
				"(any, float64) error": func() error {
					x, _ := a[1].(float64)
					return get[func(any, float64) error](t, e, fn)(a[0], x)
				},
				"(any, float64)": func() error { x, _ := a[1].(float64); get[func(any, float64)](t, e, fn)(a[0], x); return nil },
				"(any, int) error": func() error {
					x, _ := a[1].(float64)
					return get[func(any, int) error](t, e, fn)(a[0], int(x))
				},
				"(any, any) error": func() error { return get[func(any, any) error](t, e, fn)(a[0], a[1]) },
				"(any, any)":       func() error { get[func(any, any)](t, e, fn)(a[0], a[1]); return nil },
			}
			refl := map[string]func() error{
				"(any, float64) error": func() error {
					x, _ := a[1].(float64)
					return get[func(anyTwin, float64) error](t, e, fn)(a[0], x)
				},
				"(any, float64)": func() error { x, _ := a[1].(float64); get[func(anyTwin, float64)](t, e, fn)(a[0], x); return nil },
				"(any, int) error": func() error {
					x, _ := a[1].(float64)
					return get[func(anyTwin, int) error](t, e, fn)(a[0], int(x))
				},
				"(any, any) error": func() error { return get[func(anyTwin, anyTwin) error](t, e, fn)(a[0], a[1]) },
				"(any, any)":       func() error { get[func(anyTwin, anyTwin)](t, e, fn)(a[0], a[1]); return nil },
			}
			for name, f := range fast {
				run(t, e, `seen = ""`)
				ra := call(f)
				sa := global[string](t, e, "seen")
				run(t, e, `seen = ""`)
				rb := call(refl[name])
				if sb := global[string](t, e, "seen"); ra != rb || sa != sb {
					t.Errorf("%s %s %v: %q (seen %q), reflect-made %q (seen %q)", name, fn, a, ra, sa, rb, sb)
				}
			}
		}
	}
	if raceEnabled {
		return
	}
	fa := get[func(any, float64) error](t, e, "ok")
	aa := get[func(any, any)](t, e, "ok")
	if n := testing.AllocsPerRun(200, func() { _ = fa(held, 1); aa(held, held) }); n != 0 {
		t.Errorf("%.1f allocations per 2 calls with a held object, want 0", n)
	}
}
