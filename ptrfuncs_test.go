package zlua_test

import (
	"errors"
	"testing"

	"github.com/zlua-go/zlua"
)

// Go functions whose first parameter is a pointer to a struct are called
// without reflection (callbackgate/ptrfuncs.go); these tests pin what
// they accept and refuse, which must be what the reflective call did. A
// released object is refused as before (TestReleasedObjectErrors' Heal is
// such a function).

func TestGoFuncTakingStructPointerAcceptsObjectAndLiveHandle(t *testing.T) {
	e := newEnv(t)
	p := &Vec3{X: 1, Y: 2}
	var got *Vec3
	must(t, e.SetGlobal("getx", func(v *Vec3) float64 { got = v; return v.X }))
	must(t, e.SetGlobal("same", func(v *Vec3) bool { return v == p }))
	must(t, e.SetGlobal("setx", func(v *Vec3, x float64) { v.X = x }))
	must(t, e.SetGlobal("addy", func(v *Vec3, d int) int { v.Y += float64(d); return int(v.Y) }))
	must(t, e.SetGlobal("isnil", func(v *Vec3) bool { return v == nil }))
	must(t, e.SetGlobal("obj", p))
	run(t, e, `
		assert(getx(obj) == 1)
		assert(same(obj))
		setx(obj, 4)
		assert(addy(obj, 3) == 5)
		assert(isnil(nil) and isnil())
		function f(h)
			assert(same(h), "a handle arrives as the pointer itself")
			setx(h, getx(h) + 1)
			return addy(h, 1)
		end`)
	if got != p || p.X != 4 || p.Y != 5 {
		t.Fatalf("through the object: got %p want %p, p = %+v", got, p, *p)
	}
	var f func(any) (int, error)
	must(t, e.GetFunction("f", &f))
	if y, err := f(zlua.Opaque(p)); err != nil || y != 6 || p.X != 5 {
		t.Fatalf("through a handle: %v, %v, p = %+v", y, err, *p)
	}
}

func TestGoFuncTakingStructPointerRefusesOtherValues(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("getx", func(v *Vec3) float64 { return v.X }))
	must(t, e.SetGlobal("setx", func(v *Vec3, x float64) { v.X = x }))
	must(t, e.SetGlobal("player", &Player{Name: "ann"}))
	must(t, e.SetGlobal("obj", &Vec3{}))
	run(t, e, `function keep(h) saved = h end
		function try(h, chunk) return load(chunk)(h) end`)
	var keep func(any) error
	must(t, e.GetFunction("keep", &keep))
	must(t, keep(zlua.Opaque(&Vec3{X: 1})))
	var try func(any, string) error
	must(t, e.GetFunction("try", &try))
	for _, c := range []struct{ chunk, want string }{
		{`getx(saved)`, "bad argument #1 to 'getx' (" + invalidHandle + ")"},
		{`getx(5)`, "bad argument #1 to 'getx' (Vec3 expected, got number)"},
		{`getx("x")`, "bad argument #1 to 'getx' (Vec3 expected, got string)"},
		{`getx(player)`, "bad argument #1 to 'getx' (Vec3 expected, got Player)"},
		{`getx(io.stdout)`, "bad argument #1 to 'getx' (Vec3 expected, got FILE*)"},
		{`getx(zlua.get_opaquevalue(...))`, "bad argument #1 to 'getx' (*Vec3 expected, got Vec3 value"},
		{`setx(obj, "no")`, "bad argument #2 to 'setx' (number expected, got string)"},
		// A copy dressed in an object's metatable is still a copy.
		{`getx(debug.setmetatable(zlua.get_opaquevalue(...), debug.getmetatable(obj)))`, "bad argument #1 to 'getx'"},
	} {
		wantErr(t, try(zlua.Opaque(&Vec3{}), c.chunk), c.want)
	}
	wantErr(t, try(zlua.Opaque(&Record{}), `getx(...)`), "bad argument #1 to 'getx' (Vec3 expected, got opaque handle of Record)")
}

func TestGoFuncTakingStructPointerPanicEndsTheCallAndItsHandles(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("boom", func(v *Vec3) float64 { panic("bang " + string(rune('0'+int(v.X)))) }))
	run(t, e, `function f(h) saved = h; return boom(h) end`)
	var f func(any) (float64, error)
	must(t, e.GetFunction("f", &f))
	_, err := f(zlua.Opaque(&Vec3{X: 7}))
	wantErr(t, err, "bang 7")
	wantErr(t, e.DoString(`boom(saved)`), "bad argument #1 to 'boom' ("+invalidHandle+")")
}

func TestGoFuncTakingStructPointerCallAllocatesNothing(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("getx", func(v *Vec3) float64 { return v.X }))
	must(t, e.SetGlobal("obj", &Vec3{X: 2}))
	run(t, e, `function f(h) return getx(h) end
		function g(_) return getx(obj) end`)
	var f func(any) (float64, error)
	must(t, e.GetFunction("f", &f))
	var g func(any) (float64, error)
	must(t, e.GetFunction("g", &g))
	p := &Vec3{X: 1}
	if n := testing.AllocsPerRun(200, func() {
		if x, err := f(zlua.Opaque(p)); err != nil || x != 1 {
			t.Fatal(x, err)
		}
	}); n != 0 {
		t.Errorf("f(zlua.Opaque(p)) with getx(h): %v allocations per call", n)
	}
	if n := testing.AllocsPerRun(200, func() {
		if x, err := g(nil); err != nil || x != 2 {
			t.Fatal(x, err)
		}
	}); n != 0 {
		t.Errorf("getx(obj): %v allocations per call", n)
	}
}

// TestTypedCallWithOpaqueArgumentNeedsNoLuaAllocation: the handle is
// pushed outside protection on the one-crossing scalar path, so pushing it
// must never allocate. On LuaJIT the first push of a light userdata in a
// new 2^39 segment allocates the segment map: zlua interns the handles'
// segment when the Env opens, so even the first handle of a fresh Env,
// with every Lua allocation failing, is pushed. Without the interning
// LuaJIT raises outside protection and aborts the process in a
// position-independent binary (make test-luajit runs this test with
// -buildmode=pie); in a default binary zlua's static marker already lies
// in that segment.
func TestTypedCallWithOpaqueArgumentNeedsNoLuaAllocation(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("getx", func(v *Vec3) float64 { return v.X }))
	run(t, e, `function f(h) return getx(h) end`)
	var f func(any) (float64, error)
	must(t, e.GetFunction("f", &f))
	zlua.FailAllocAt(e, 1)
	x, err := f(zlua.Opaque(&Vec3{X: 3}))
	zlua.FailAllocAt(e, 0)
	if err != nil || x != 3 {
		t.Fatalf("f = %v, %v", x, err)
	}
}

// TestTypedCallWithOpaqueArgumentNilAndBadTypes: the one-crossing path of
// func(any) delegates gives a nil pointer as nil and refuses what is not
// a pointer to a struct, as the push program did.
func TestTypedCallWithOpaqueArgumentNilAndBadTypes(t *testing.T) {
	e := newEnv(t)
	run(t, e, `function isnil(h) return h == nil end
		function kind(h) n = (n or 0) + 1; return type(h) == "userdata" end`)
	var isnil func(any) (bool, error)
	must(t, e.GetFunction("isnil", &isnil))
	if ok, err := isnil(zlua.Opaque((*Vec3)(nil))); err != nil || !ok {
		t.Fatalf("Opaque(nil): %v, %v", ok, err)
	}
	var kind func(any) error
	must(t, e.GetFunction("kind", &kind))
	must(t, kind(zlua.Opaque(&Vec3{})))
	n := 5
	if err := kind(zlua.Opaque(&n)); !errors.Is(err, zlua.ErrCannotPush) {
		t.Fatalf("Opaque(*int): %v", err)
	}
	if err := kind(zlua.Opaque(&zlua.Table{})); !errors.Is(err, zlua.ErrCannotPush) {
		t.Fatalf("Opaque(*Table): %v", err)
	}
	var calls int
	must(t, e.Global("n", &calls))
	if calls != 1 {
		t.Fatalf("kind ran %d times, want 1 (a refused argument must not call)", calls)
	}
}

// TestGoFuncTakingStructPointerEveryShape calls one function of each
// shape served without reflection, with checked arguments and results:
// a shape whose register layout did not match its func type would read
// the wrong values here.
func TestGoFuncTakingStructPointerEveryShape(t *testing.T) {
	e := newEnv(t)
	p := &Vec3{X: 1, Y: 2, Z: 3}
	var log []string
	note := func(v *Vec3, what string) {
		if v != p {
			t.Errorf("%s: got %p, want %p", what, v, p)
		}
		log = append(log, what)
	}
	fns := map[string]any{
		"s0":   func(v *Vec3) { note(v, "s0") },
		"se":   func(v *Vec3) error { note(v, "se"); return errors.New("se failed") },
		"si":   func(v *Vec3) int { note(v, "si"); return int(v.Z) + 40 },
		"sf":   func(v *Vec3) float64 { note(v, "sf"); return v.Y / 4 },
		"sb":   func(v *Vec3) bool { note(v, "sb"); return v.X == 1 },
		"ss":   func(v *Vec3) string { note(v, "ss"); return "vec" },
		"sff":  func(v *Vec3) (float64, float64) { note(v, "sff"); return v.X, v.Z },
		"si_":  func(v *Vec3, a int) { note(v, "si_"); v.Z += float64(a) },
		"sf_":  func(v *Vec3, a float64) { note(v, "sf_"); v.X += a },
		"ss_":  func(v *Vec3, a string) { note(v, "ss_:"+a) },
		"sff_": func(v *Vec3, a, b float64) { note(v, "sff_"); v.X, v.Y = a, b },
		"sii_": func(v *Vec3, a, b int) { note(v, "sii_"); v.Z = float64(a - b) },
		"sib":  func(v *Vec3, a int) bool { note(v, "sib"); return a > 2 },
		"sii":  func(v *Vec3, a int) int { note(v, "sii"); return a * 3 },
		"sfff": func(v *Vec3, a float64) float64 { note(v, "sfff"); return a + v.X },
		"sp":   func(v *Vec3) *Vec3 { note(v, "sp"); return v },
		"sip": func(v *Vec3, i int) *Vec3 {
			note(v, "sip")
			if i == 0 {
				return nil
			}
			return v
		},
	}
	for name, fn := range fns {
		must(t, e.SetGlobal(name, fn))
	}
	must(t, e.SetGlobal("obj", p))
	run(t, e, `
		s0(obj)
		local ok, err = pcall(se, obj); assert(not ok and tostring(err):find("se failed"), tostring(err))
		assert(si(obj) == 43)
		assert(sf(obj) == 0.5)
		assert(sb(obj) == true)
		assert(ss(obj) == "vec")
		local a, b = sff(obj); assert(a == 1 and b == 3)
		si_(obj, 4)
		sf_(obj, 0.5)
		ss_(obj, "hi")
		sff_(obj, 7, 8)
		sii_(obj, 10, 3)
		assert(sib(obj, 3) == true and sib(obj, 2) == false)
		assert(sii(obj, 5) == 15)
		assert(sfff(obj, 0.25) == 7.25)
		assert(rawequal(sp(obj), obj), "a pointer result is the object itself")
		assert(sip(obj, 0) == nil and rawequal(sip(obj, 1), obj))`)
	if *p != (Vec3{X: 7, Y: 8, Z: 7}) {
		t.Fatalf("p = %+v", *p)
	}
	if len(log) != 19 {
		t.Fatalf("calls: %v", log)
	}
	// Every shape but the string argument (copied) and the raised error
	// allocates nothing: none of them went through reflect.Value.Call.
	run(t, e, `function hot(_)
		s0(obj); si(obj); sf(obj); sb(obj); ss(obj); sff(obj); si_(obj, 0); sf_(obj, 0)
		sff_(obj, 7, 8); sii_(obj, 10, 3); sib(obj, 3); sii(obj, 5); sfff(obj, 0.25)
		sp(obj); sip(obj, 1); sip(obj, 0)
	end`)
	var hot func(any) error
	must(t, e.GetFunction("hot", &hot))
	log = make([]string, 0, 8192)
	if n := testing.AllocsPerRun(100, func() { must(t, hot(nil)) }); n != 0 {
		t.Errorf("shapes: %v allocations per round", n)
	}
	wantErr(t, e.DoString(`sii_(obj, 1, "x")`), "bad argument #3 to 'sii_' (number expected, got string)")
	wantErr(t, e.DoString(`sff_(obj, {})`), "bad argument #2 to 'sff_' (number expected, got table)")
	wantErr(t, e.DoString(`ss_(obj, nil)`), "bad argument #2 to 'ss_' (string expected, got nil)")
}

type lener interface{ Len() float64 }

// TestGoFuncTakingStructPointerNestedHandlesAndViews: inside a nested
// call both handles reach a *T function; after the nested call returns its
// handle is refused and the outer one still works; an object pushed with
// a view is still its *T.
func TestGoFuncTakingStructPointerNestedHandlesAndViews(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("getx", func(v *Vec3) float64 { return v.X }))
	inner := &Vec3{X: 2}
	var innerFn func(any) (float64, error)
	must(t, e.SetGlobal("nest", func() float64 {
		x, err := innerFn(zlua.Opaque(inner))
		if err != nil {
			panic(err)
		}
		return x
	}))
	run(t, e, `
		function outer(h)
			outerH = h
			local sum = nest()
			local ok, err = pcall(getx, innerH)
			assert(not ok and tostring(err):find("invalid opaque parameter handle"), tostring(err))
			return sum + getx(h)
		end
		function innerLua(h)
			innerH = h
			return getx(outerH) * 100 + getx(h)
		end`)
	must(t, e.GetFunction("innerLua", &innerFn))
	var outer func(any) (float64, error)
	must(t, e.GetFunction("outer", &outer))
	if x, err := outer(zlua.Opaque(&Vec3{X: 1})); err != nil || x != 103 {
		t.Fatalf("outer = %v, %v", x, err)
	}
	wantErr(t, e.DoString(`getx(outerH)`), "bad argument #1 to 'getx' ("+invalidHandle+")")
	must(t, e.SetGlobal("viewed", zlua.AsView[lener](&Vec3{X: 5})))
	run(t, e, `assert(getx(viewed) == 5)`)
}
