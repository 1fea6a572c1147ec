package zlua_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

const invalidHandle = "invalid opaque parameter handle"

func wantErr(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want an error containing %q", err, want)
	}
}

func TestOpaqueInsideCall(t *testing.T) {
	e := newEnv(t)
	p := &Vec3{1, 2, 3}
	var got *Vec3
	must(t, e.Register("bump", func(v *Vec3) { got = v; v.Z += 10 }))
	run(t, e, `function f(h)
		local v = zlua.get_opaquevalue(h)
		assert(v.X == 1 and v:Len() > 0)
		v.X = 7
		assert(zlua.get_opaquevalue(h).X == 1, "get returns a copy")
		zlua.set_opaquevalue(h, v)
		go.bump(h)
		return zlua.get_opaquevalue(h).Z
	end`)
	var f func(any) float64
	must(t, e.GetFunction("f", &f))
	if z := f(zlua.Opaque(p)); z != 13 {
		t.Fatalf("f = %v", z)
	}
	if got != p || *p != (Vec3{7, 2, 13}) {
		t.Fatalf("p = %+v, bump got %p want %p", *p, got, p)
	}
	// Through *Function.Call, with a non-blittable struct.
	r := &Record{Name: "ann"}
	run(t, e, `function g(h) local v = zlua.get_opaquevalue(h); v.Name = v.Name .. "!"; zlua.set_opaquevalue(h, v) end`)
	var g *zlua.Function
	must(t, e.GetFunction("g", &g))
	if _, err := g.Call(zlua.Opaque(r)); err != nil || r.Name != "ann!" {
		t.Fatalf("Call: %v, %+v", err, r)
	}
}

func TestOpaqueDeadAfterCall(t *testing.T) {
	e := newEnv(t)
	must(t, e.Register("bump", func(v *Vec3) { v.X++ }))
	run(t, e, `local up
		function keep(h)
			saved = h; up = h
			co = coroutine.create(function(x) coroutine.yield(); return zlua.get_opaquevalue(x) end)
			assert(coroutine.resume(co, h))
			assert(zlua.get_opaquevalue(h).X == 1)
		end
		function fromUpvalue() return zlua.get_opaquevalue(up) end
		function fails(h) saved = h; error("boom") end`)
	var keep, fails *zlua.Function
	must(t, e.GetFunction("keep", &keep))
	must(t, e.GetFunction("fails", &fails))
	p := &Vec3{1, 0, 0}
	if _, err := keep.Call(zlua.Opaque(p)); err != nil {
		t.Fatal(err)
	}
	wantErr(t, e.DoString(`zlua.get_opaquevalue(saved)`), invalidHandle)
	wantErr(t, e.DoString(`zlua.set_opaquevalue(saved, go_nothing)`), invalidHandle)
	wantErr(t, e.DoString(`go.bump(saved)`), "bad argument #1 to 'bump' ("+invalidHandle+")")
	wantErr(t, e.DoString(`fromUpvalue()`), invalidHandle)
	wantErr(t, e.DoString(`assert(coroutine.resume(co))`), invalidHandle)
	// After an error the handle is dead too.
	_, err := fails.Call(zlua.Opaque(p))
	wantErr(t, err, "boom")
	wantErr(t, e.DoString(`zlua.get_opaquevalue(saved)`), invalidHandle)
	// A panic in a Go function inside the call ends it the same way.
	must(t, e.Register("explode", func() { panic("bang") }))
	run(t, e, `function panics(h) saved = h; go.explode() end`)
	var panics func(any) error
	must(t, e.GetFunction("panics", &panics))
	wantErr(t, panics(zlua.Opaque(p)), "bang")
	wantErr(t, e.DoString(`zlua.get_opaquevalue(saved)`), invalidHandle)
	if *p != (Vec3{1, 0, 0}) {
		t.Fatalf("p changed: %+v", *p)
	}
}

func TestOpaqueNestedCalls(t *testing.T) {
	e := newEnv(t)
	inner := &Vec3{X: 2}
	var innerFn func(any)
	must(t, e.Register("nest", func() { innerFn(zlua.Opaque(inner)) }))
	run(t, e, `
		function outer(h)
			outerH = h
			go.nest()
			-- the inner call returned: its handle is dead, ours lives
			assert(not pcall(zlua.get_opaquevalue, innerH))
			return zlua.get_opaquevalue(h).X
		end
		function innerLua(h)
			innerH = h
			assert(zlua.get_opaquevalue(outerH).X == 1, "outer handle valid inside")
			assert(zlua.get_opaquevalue(h).X == 2)
		end`)
	must(t, e.GetFunction("innerLua", &innerFn))
	var outer func(any) (float64, error)
	must(t, e.GetFunction("outer", &outer))
	// The first call opens the gate's first handle (callAny's opaque slow
	// path); the later ones are outermost calls of its fast path, with a
	// nested call of the slow path inside.
	for i := 0; i < 3; i++ {
		x, err := outer(zlua.Opaque(&Vec3{X: 1}))
		if err != nil || x != 1 {
			t.Fatalf("call %d: outer = %v, %v", i, x, err)
		}
		wantErr(t, e.DoString(`zlua.get_opaquevalue(outerH)`), invalidHandle)
	}
}

// TestOpaqueOneArgumentCallsInARow makes many typed calls f(Opaque(p)) in
// a row, the case callAny serves in its own frame: each call's handle
// reads its own pointer, dies with its call (the next call cannot use
// it), a handle of another type is refused by a *T parameter, a nil
// pointer arrives as nil, and a closed Env is an error, not a call.
func TestOpaqueOneArgumentCallsInARow(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("getx", func(p *Vec3) float64 { return p.X }))
	run(t, e, `function f(h)
		local stale = pcall(zlua.get_opaquevalue, last)
		last = h
		if h == nil then return -1 end
		return getx(h) + (stale and 1000 or 0)
	end`)
	var f func(any) (float64, error)
	must(t, e.GetFunction("f", &f))
	v, w := &Vec3{X: 1}, &Vec3{X: 2}
	for i := 0; i < 4; i++ {
		for _, c := range []struct {
			arg  any
			want float64
		}{{zlua.Opaque(v), v.X}, {zlua.Opaque(w), w.X}, {zlua.Opaque(v), v.X}, {zlua.Opaque((*Vec3)(nil)), -1}} {
			if x, err := f(c.arg); err != nil || x != c.want {
				t.Fatalf("round %d: f = %v, %v; want %v", i, x, err, c.want)
			}
		}
		_, err := f(zlua.Opaque(&vec2{X: 3}))
		wantErr(t, err, "bad argument #1 to 'getx' (Vec3 expected, got opaque handle of vec2)")
		w.X++
		v, w = w, v
	}
	must(t, e.Close())
	if _, err := f(zlua.Opaque(v)); err == nil {
		t.Fatal("a call after Close returned no error")
	}
}

func TestOpaqueErrors(t *testing.T) {
	e := newEnv(t)
	must(t, e.Register("heal", func(p *Player) {}))
	run(t, e, `function try(h, chunk) return load(chunk)(h) end`)
	var try func(any, string) error
	must(t, e.GetFunction("try", &try))
	p := &Vec3{}
	for _, c := range []struct{ chunk, want string }{
		{`local h = ...; return h.X`, "a userdata value"},
		{`local h = ...; return h:Len()`, "a userdata value"},
		{`local h = ...; h.X = 1`, "a userdata value"},
		{`local h = ...; string.rep(h)`, "bad argument #1 to 'rep'"},
		{`local h = ...; go.heal(h)`, "bad argument #1 to 'heal' (Player expected, got opaque handle of Vec3)"},
		{`local h = ...; zlua.set_opaquevalue(h, 5)`, "bad argument #2 to 'set_opaquevalue' (Vec3 expected, got number)"},
		{`local h = ...; zlua.set_opaquevalue(h, zlua.get_opaquevalue(h), 1); return zlua.get_opaquevalue(5)`,
			"bad argument #1 to 'get_opaquevalue' (opaque handle expected, got number)"},
	} {
		wantErr(t, try(zlua.Opaque(p), c.chunk), c.want)
	}
	wantErr(t, e.DoString(`zlua.get_opaquevalue(nil)`), "bad argument #1 to 'get_opaquevalue' (opaque handle expected, got nil)")
	n := 5
	err := try(zlua.Opaque(&n), "")
	if !errors.Is(err, zlua.ErrCannotPush) {
		t.Fatalf("Opaque(*int): %v", err)
	}
	if err := try(zlua.Opaque((*Vec3)(nil)), `assert(... == nil)`); err != nil {
		t.Fatalf("Opaque(nil): %v", err)
	}
}

// vec2 has the same layout as the first two fields of Vec3 but is another
// type: a handle must never be copied out as the type pushed before it.
type vec2 struct{ X, Y float64 }

// TestOpaqueHandlesOfMixedTypes checks get_opaquevalue when handle types
// alternate within a call and between calls: each copy has its own
// handle's type and current value (the gate remembers the handle type it
// checked last and its ByVal type, so this catches a stale one), and a
// refused type stays refused right after an accepted one.
func TestOpaqueHandlesOfMixedTypes(t *testing.T) {
	e := newEnv(t)
	// c, the handle pushed last, is copied first: the gate then remembers
	// its type, and a and b are of other types or the same one.
	run(t, e, `function f(a, b, c)
		local vc = zlua.get_opaquevalue(c)
		return tostring(zlua.get_opaquevalue(a)) .. " " .. tostring(zlua.get_opaquevalue(b)) .. " " ..
			tostring(vc) .. " " .. tostring(zlua.get_opaquevalue(c))
	end`)
	var f func(a, b, c any) (string, error)
	must(t, e.GetFunction("f", &f))
	v, w, r := &Vec3{X: 1, Y: 2, Z: 3}, &vec2{X: 10, Y: 20}, &Record{Name: "ann"}
	const rec = "Record{Name=ann Tags=[] Meta=map[] At={0 0 0} N=0}"
	for i := 0; i < 3; i++ {
		vs, ws := fmt.Sprintf("Vec3{X=%d Y=2 Z=3}", i+1), "vec2{X=10 Y=20}"
		for _, c := range []struct {
			a, b, c any
			want    string
		}{
			{zlua.Opaque(v), zlua.Opaque(r), zlua.Opaque(w), vs + " " + rec + " " + ws + " " + ws},
			{zlua.Opaque(w), zlua.Opaque(v), zlua.Opaque(v), ws + " " + vs + " " + vs + " " + vs},
			{zlua.Opaque(v), zlua.Opaque(w), zlua.Opaque(r), vs + " " + ws + " " + rec + " " + rec},
		} {
			got, err := f(c.a, c.b, c.c)
			must(t, err)
			if got != c.want {
				t.Fatalf("round %d: got %q, want %q", i, got, c.want)
			}
		}
		v.X++
	}
	n := 5
	if _, err := f(zlua.Opaque(v), zlua.Opaque(&n), nil); !errors.Is(err, zlua.ErrCannotPush) {
		t.Fatalf("Opaque(*int) after Opaque(*Vec3): %v", err)
	}
	if _, err := f(zlua.Opaque(v), zlua.Opaque(&zlua.Table{}), nil); !errors.Is(err, zlua.ErrCannotPush) {
		t.Fatalf("Opaque(*Table) after Opaque(*Vec3): %v", err)
	}
}

// TestOpaqueCallResultsLeaveTheStackAsFound: a typed call f(Opaque(p))
// whose result is not a scalar (a table, a string the float64 result
// refuses, a numeric string it converts, several values) leaves it on
// the stack for the conversion; the call's end (endScalar's opaque case)
// must restore the stack top, on success and on a conversion error, and
// close the handle.
func TestOpaqueCallResultsLeaveTheStackAsFound(t *testing.T) {
	e := newEnv(t)
	run(t, e, `function f(h, ...)
		last = h
		local k = zlua.get_opaquevalue(h).X
		if k == 1 then return {} end
		if k == 2 then return "abc" end
		if k == 3 then return "2.5" end
		return k, {}, "more"
	end`)
	var f func(any) (float64, error)
	must(t, e.GetFunction("f", &f))
	if _, err := f(zlua.Opaque(&Vec3{X: 9})); err != nil { // the first handle: the slow path
		t.Fatal(err)
	}
	top := zlua.StackTop(e)
	for round := 0; round < 3; round++ {
		for k, want := range map[float64]string{1: "number expected, got table", 2: "number expected, got string", 3: "", 4: ""} {
			x, err := f(zlua.Opaque(&Vec3{X: k}))
			switch {
			case want != "":
				wantErr(t, err, want)
			case err != nil:
				t.Fatalf("k=%v: %v", k, err)
			case k == 3 && x != 2.5, k == 4 && x != 4:
				t.Fatalf("k=%v: got %v", k, x)
			}
			if got := zlua.StackTop(e); got != top {
				t.Fatalf("k=%v: stack top %d after the call, %d before", k, got, top)
			}
			wantErr(t, e.DoString(`zlua.get_opaquevalue(last)`), invalidHandle)
		}
	}
}
