package zlua_test

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// Vec3 is blittable: its fields are served by C.
type Vec3 struct{ X, Y, Z float64 }

// Len has a value receiver: callable on ByVal userdata.
func (v Vec3) Len() float64 { return math.Sqrt(v.X*v.X + v.Y*v.Y + v.Z*v.Z) }

// Scale returns a scaled copy.
func (v Vec3) Scale(k float64) Vec3 { return Vec3{v.X * k, v.Y * k, v.Z * k} }

// Grow has a pointer receiver: not in the method set of Vec3 values.
func (v *Vec3) Grow() { v.X++ }

// Sample covers every field kind C serves, a nested struct and an array.
type Sample struct {
	I8    int8
	I16   int16
	I32   int32
	I64   int64
	I     int
	U8    uint8
	U16   uint16
	U32   uint32
	U64   uint64
	F32   float32
	F64   float64
	On    bool
	Pos   Vec3
	Arr   [3]int32
	Score int `lua:"score"`
	Skip  int `lua:"-"`
}

// Record is non-blittable: strings, slices and maps live in a companion.
type Record struct {
	Name string
	Tags []string
	Meta map[string]int
	At   Vec3
	N    int
}

func (r Record) Summary() string { return r.Name + ":" + strings.Join(r.Tags, ",") }

// Tinted has a String method used by tostring.
type Tinted struct{ R, G, B uint8 }

func (c Tinted) String() string { return "tint" }

func TestByValFieldsServedInC(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("v", Vec3{1, 2, 3}))
	before := e.Stats().GoCalls
	run(t, e, `local s = 0
		for i = 1, 100000 do s = s + v.X + v.Y; v.Z = i end
		assert(s == 300000, s); assert(v.Z == 100000)`)
	if got := e.Stats().GoCalls - before; got != 0 {
		t.Fatalf("10^5 field reads and writes entered Go %d times", got)
	}
}

func TestByValFieldKinds(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("s", Sample{I8: -8, I16: -16, I32: -32, I64: -64, I: 7, U8: 8, U16: 16,
		U32: 32, U64: math.MaxUint64, F32: 1.5, F64: 2.25, On: true, Pos: Vec3{1, 2, 3},
		Arr: [3]int32{4, 5, 6}, Score: 9}))
	run(t, e, `
		assert(s.I8 == -8 and s.I16 == -16 and s.I32 == -32 and s.I64 == -64 and s.I == 7)
		assert(s.U8 == 8 and s.U16 == 16 and s.U32 == 32 and s.U64 == 18446744073709551615)
		assert(s.F32 == 1.5 and s.F64 == 2.25 and s.On == true and s.score == 9)
		s.I8 = 127; s.I16 = -32768; s.I32 = 2147483647; s.I64 = 5; s.I = "12"
		s.U8 = 255; s.U16 = 65535; s.U32 = 4294967295; s.U64 = 3
		s.F32 = 0.5; s.F64 = "1.25"; s.On = false; s.score = 10
		assert(s.I == 12 and s.F64 == 1.25 and s.On == false and s.U32 == 4294967295)
		s.I64 = 2^40
		assert(s.I64 == 2^40)`)
	var got Sample
	must(t, e.Global("s", &got))
	want := Sample{I8: 127, I16: -32768, I32: math.MaxInt32, I64: 1 << 40, I: 12, U8: 255, U16: 65535,
		U32: math.MaxUint32, U64: 3, F32: 0.5, F64: 1.25, Pos: Vec3{1, 2, 3}, Arr: [3]int32{4, 5, 6}, Score: 10}
	if got != want {
		t.Fatalf("Global = %+v, want %+v", got, want)
	}
}

func TestByValFieldErrors(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("s", Sample{}))
	must(t, e.SetGlobal("v", Vec3{}))
	for _, c := range []struct{ chunk, want string }{
		{`v.X = "a"`, `(dostring):1: bad value for field 'X' of Vec3 (number expected, got string)`},
		{`v.X = v`, `bad value for field 'X' of Vec3 (number expected, got Vec3)`},
		{`s.On = 1`, `bad value for field 'On' of Sample (boolean expected, got number)`},
		{`s.I8 = 128`, `bad value for field 'I8' of Sample (number out of range for int8)`},
		{`s.U8 = -1`, `bad value for field 'U8' of Sample (number out of range for uint8)`},
		{`s.U16 = 65536`, `bad value for field 'U16' of Sample (number out of range for uint16)`},
		{`s.I32 = 1.5`, `bad value for field 'I32' of Sample (number has no integer representation)`},
		{`s.U64 = -1`, `bad value for field 'U64' of Sample (number out of range for uint64)`},
		{`s.I = {}`, `bad value for field 'I' of Sample (number expected, got table)`},
		{`s.Arr = 5`, `(dostring):1: bad value for field 'Arr' of Sample (table expected, got number)`},
		{`s.Pos = 5`, `bad value for field 'Pos' of Sample (Vec3 expected, got number)`},
		{`v.W = 1`, `(dostring):1: Vec3 has no field 'W'`},
		{`local _ = v.W`, `(dostring):1: Vec3 has no field or method 'W'`},
		{`local _ = s.Skip`, `Sample has no field or method 'Skip'`},
		{`v:Grow()`, `Vec3 has no field or method 'Grow'`},
		{`local f = v.Len; f(5)`, `calling 'Vec3:Len' on bad self (Vec3 expected, got number)`},
		{`local f = v.Len; f(s)`, `calling 'Vec3:Len' on bad self (Vec3 expected, got Sample)`},
	} {
		err := e.DoString(c.chunk)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.chunk, err, c.want)
		}
	}
}

func TestByValCopySemantics(t *testing.T) {
	e := newEnv(t)
	orig := Vec3{1, 2, 3}
	must(t, e.SetGlobal("v", orig))
	var got Vec3
	must(t, e.Register("take", func(v Vec3) float64 { v.X = 100; got = v; return v.Y }))
	run(t, e, `v.X = 9; local w = v; w.Y = 8
		assert(v.Y == 8, "same userdata") -- assignment in Lua shares the userdata
		assert(go.take(v) == 8 and v.X == 9, "callee got a copy")`)
	if orig != (Vec3{1, 2, 3}) {
		t.Fatalf("Go original changed: %+v", orig)
	}
	if got != (Vec3{100, 8, 3}) {
		t.Fatalf("callee saw %+v", got)
	}
	// Pushing twice gives two userdata; a Go result is a new copy.
	must(t, e.Register("make", func() Vec3 { return Vec3{4, 5, 6} }))
	run(t, e, `local a, b = go.make(), go.make(); a.X = 0
		assert(b.X == 4 and a ~= b and rawequal(a, a))`)
	// A pointer parameter refuses a copy.
	must(t, e.Register("grow", func(v *Vec3) { v.X++ }))
	err := e.DoString(`go.grow(v)`)
	if err == nil || !strings.Contains(err.Error(), "bad argument #1 to 'grow' (*Vec3 expected, got Vec3 value (a copy has no Go address))") {
		t.Fatalf("pointer from ByVal: %v", err)
	}
	must(t, e.Register("want", func(v Vec3) {}))
	must(t, e.SetGlobal("s", Sample{}))
	err = e.DoString(`go.want(s)`)
	if err == nil || !strings.Contains(err.Error(), "bad argument #1 to 'want' (Vec3 expected, got Sample)") {
		t.Fatalf("wrong type: %v", err)
	}
	// any receives a copy of the struct.
	var seen any
	must(t, e.Register("anyv", func(x any) { seen = x }))
	run(t, e, `go.anyv(v)`)
	if seen != (Vec3{9, 8, 3}) {
		t.Fatalf("any got %#v", seen)
	}
}

func TestByValMethodsNestedArrays(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("v", Vec3{3, 4, 0}))
	must(t, e.SetGlobal("s", Sample{Pos: Vec3{1, 2, 3}, Arr: [3]int32{7, 8, 9}}))
	must(t, e.SetGlobal("t", Tinted{1, 2, 3}))
	run(t, e, `
		assert(v:Len() == 5)
		local w = v:Scale(2); assert(w.X == 6 and w.Y == 8 and v.X == 3)
		-- nested structs read as copies: writing the copy leaves s alone
		local p = s.Pos; p.X = 100; assert(s.Pos.X == 1 and p.X == 100)
		s.Pos.X = 50; assert(s.Pos.X == 1, "s.Pos.X = ... writes a temporary copy")
		s.Pos = p; assert(s.Pos.X == 100)
		-- arrays read as table copies and are assigned whole
		local a = s.Arr; assert(type(a) == "table" and #a == 3 and a[2] == 8)
		a[2] = 0; assert(s.Arr[2] == 8)
		s.Arr = {1, 2}; assert(s.Arr[1] == 1 and s.Arr[3] == 0)
		assert(tostring(v) == "Vec3{X=3 Y=4 Z=0}", tostring(v))
		assert(tostring(t) == "tint")`)
}

func TestByValResultsAndFunctionArgs(t *testing.T) {
	e := newEnv(t)
	run(t, e, `function f(v) v.X = v.X + 1; return v end`)
	var f func(Vec3) Vec3
	must(t, e.GetFunction("f", &f))
	in := Vec3{1, 2, 3}
	if out := f(in); out != (Vec3{2, 2, 3}) || in.X != 1 {
		t.Fatalf("f = %+v (in %+v)", out, in)
	}
	var h *zlua.Function
	must(t, e.GetFunction("f", &h))
	res, err := h.Call(Vec3{5, 0, 0})
	if err != nil || len(res) != 1 || res[0] != (Vec3{6, 0, 0}) {
		t.Fatalf("Call = %v, %v", res, err)
	}
	// Slices and maps of structs copy each element by value.
	must(t, e.SetGlobal("list", []Vec3{{1, 0, 0}, {2, 0, 0}}))
	run(t, e, `assert(list[2].X == 2)`)
}

func TestNonBlittableCompanion(t *testing.T) {
	e := newEnv(t)
	base := e.Stats().LiveStructs
	must(t, e.SetGlobal("r", Record{Name: "ann", Tags: []string{"a", "b"}, Meta: map[string]int{"k": 1}, At: Vec3{1, 2, 3}, N: 4}))
	if n := e.Stats().LiveStructs; n != base+1 {
		t.Fatalf("LiveStructs = %d, want %d", n, base+1)
	}
	for i := 0; i < 20; i++ {
		runtime.GC()
	}
	run(t, e, `
		assert(r.Name == "ann" and r.Tags[2] == "b" and r.Meta.k == 1 and r.At.Y == 2 and r.N == 4)
		assert(r:Summary() == "ann:a,b")
		r.Name = "bob"; r.Tags = {"x"}; r.N = 5
		assert(r.Name == "bob" and r.Tags[1] == "x" and r.N == 5)`)
	var got Record
	must(t, e.Global("r", &got))
	if got.Name != "bob" || len(got.Tags) != 1 || got.N != 5 {
		t.Fatalf("Global = %+v", got)
	}
	err := e.DoString(`r.N = "x"`)
	if err == nil || !strings.Contains(err.Error(), "bad value for field 'N' of Record (number expected, got string)") {
		t.Fatalf("companion field error: %v", err)
	}
	run(t, e, `r = nil; collectgarbage(); collectgarbage()`)
	if n := e.Stats().LiveStructs; n != base {
		t.Fatalf("LiveStructs after collection = %d, want %d", n, base)
	}
}

func TestNonBlittableSurvivesGoGC(t *testing.T) {
	e := newEnv(t)
	mk := func(i int) Record {
		return Record{Name: strings.Repeat("n", i+1), Tags: []string{strings.Repeat("t", i+2)}}
	}
	must(t, e.Register("mk", mk))
	run(t, e, `keep = {}; for i = 0, 199 do keep[i] = go.mk(i) end`)
	for i := 0; i < 10; i++ {
		runtime.GC()
		run(t, e, `local x = {} for i = 1, 1000 do x[i] = {i} end`) // churn
	}
	run(t, e, `for i = 0, 199 do
		local r = keep[i]
		assert(r.Name == string.rep("n", i + 1) and r.Tags[1] == string.rep("t", i + 2), i)
	end
	keep = nil; collectgarbage(); collectgarbage()`)
	if n := e.Stats().LiveStructs; n != 0 {
		t.Fatalf("LiveStructs = %d after collection", n)
	}
}

func TestCompanionOfRaisingProgramIsReleased(t *testing.T) {
	e := newEnv(t)
	// The program pushing the companion raises (memory limit) before or
	// after its userdata exists; either way nothing stays live.
	for k := uint64(1); k < 8; k++ {
		zlua.FailAllocAt(e, k)
		_ = e.SetGlobal("r", Record{Name: strings.Repeat("x", 64)})
		zlua.FailAllocAt(e, 0)
	}
	run(t, e, `r = nil; collectgarbage(); collectgarbage()`)
	if n := e.Stats().LiveStructs; n != 0 {
		t.Fatalf("LiveStructs = %d", n)
	}
}

func TestByValPushAddsNoAllocation(t *testing.T) {
	e := newEnv(t)
	var i, v any = 5, Vec3{1, 2, 3}
	base := testing.AllocsPerRun(200, func() { must(t, e.SetGlobal("v", i)) })
	byVal := testing.AllocsPerRun(200, func() { must(t, e.SetGlobal("v", v)) })
	if byVal > base {
		t.Fatalf("SetGlobal of a Vec3: %v allocations, of an int: %v", byVal, base)
	}
}

func TestReleasedCompanionErrors(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("r", Record{Name: "ann"}))
	must(t, e.Register("take", func(r Record) {}))
	// A finalizer resurrects the userdata after its own __gc released it.
	run(t, e, `
		local function sentinel(fn)
			if newproxy then
				local s = newproxy(true); getmetatable(s).__gc = fn; return s
			end
			return setmetatable({}, {__gc = fn})
		end
		do
			local o = r
			r = nil
			sentinel(function() saved = o end)
		end
		if jit then jit.flush() end
		collectgarbage(); collectgarbage()
		assert(saved, "finalizer did not run")`)
	for _, chunk := range []string{`return saved.Name`, `saved.Name = "x"`, `saved:Summary()`, `go.take(saved)`, `return tostring(saved)`} {
		wantErr(t, e.DoString(chunk), "attempt to use a released object")
	}
	if n := e.Stats().LiveStructs; n != 0 {
		t.Fatalf("LiveStructs = %d", n)
	}
}

func TestByValMethodArgumentErrors(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("v", Vec3{1, 2, 3}))
	wantErr(t, e.DoString(`v:Scale("x")`), `bad argument #1 to 'Vec3:Scale' (number expected, got string)`)
	wantErr(t, e.DoString(`v.Len()`), `calling 'Vec3:Len' on bad self (Vec3 expected, got no value)`)
	wantErr(t, e.DoString(`local t = {}; t[v] = 1; return v[1]`), `Vec3 has no field or method '1'`)
}

func TestByValMetamethodsOnForeignValues(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("v", Vec3{1, 2, 3}))
	must(t, e.SetGlobal("r", Record{Name: "ann"}))
	// debug.getmetatable bypasses __metatable: the metamethods must check
	// what they are given.
	for _, c := range []struct{ chunk, want string }{
		{`debug.getmetatable(v).__index(io.stdout, "X")`, "calling 'Vec3.__index' on bad self (Vec3 expected, got FILE*)"},
		{`debug.getmetatable(v).__newindex(r, "X", 1)`, "calling 'Vec3.__newindex' on bad self (Vec3 expected, got Record)"},
		{`debug.getmetatable(v).__index(5, "X")`, "calling 'Vec3.__index' on bad self (Vec3 expected, got number)"},
		// A light userdata reaches the payload read only if the ByVal
		// check mistakes it for a full one (zlua's reads its length: 0).
		{`local a = 1; debug.getmetatable(v).__index(debug.upvalueid(function() return a end, 1), "X")`,
			"calling 'Vec3.__index' on bad self (Vec3 expected, got light userdata)"},
		{`local a = 1; debug.getmetatable(v).__newindex(debug.upvalueid(function() return a end, 1), "X", 1)`,
			"calling 'Vec3.__newindex' on bad self (Vec3 expected, got light userdata)"},
	} {
		wantErr(t, e.DoString(c.chunk), c.want)
	}
	run(t, e, `debug.getmetatable(r).__gc(v); debug.getmetatable(r).__gc(io.stdout); assert(r.Name == "ann")`)
	run(t, e, `debug.getmetatable(r).__gc(r)`)
	wantErr(t, e.DoString(`return r.Name`), "attempt to use a released object")
}

// LongNames has a field name too long for Lua 5.4 to intern: C finds it
// through the field table instead of by pointer.
type LongNames struct {
	A int32   `lua:"a_field_name_that_is_much_longer_than_forty_bytes"`
	B float32 `lua:"b"`
}

func TestByValLongFieldName(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("l", LongNames{A: 1, B: 2}))
	before := e.Stats().GoCalls
	run(t, e, `local k = "a_field_name_that_is_much_" .. "longer_than_forty_bytes"
		assert(l[k] == 1 and l.b == 2)
		l[k] = 5; l.b = 0.5
		assert(l[k] == 5 and l.b == 0.5)`)
	if n := e.Stats().GoCalls - before; n != 0 {
		t.Fatalf("%d Go calls", n)
	}
}

// vec3b has Vec3's layout but is another type.
type vec3b struct{ X, Y, Z float64 }

// TestStructPushesOfAlternatingTypes: the gate copies the bytes of the
// blittable struct type it pushed last without reflection; values of
// other types (same layout, non-blittable, OpaqueArg) pushed in between
// keep their own type and contents.
func TestStructPushesOfAlternatingTypes(t *testing.T) {
	e := newEnv(t)
	run(t, e, `function check(v, w, r, want)
		local got = tostring(v) .. " " .. tostring(w) .. " " .. tostring(r)
		assert(got == want, got)
	end`)
	var check func(v, w, r any, want string) error
	must(t, e.GetFunction("check", &check))
	for i := 0; i < 3; i++ {
		f := float64(i)
		r := Record{Name: "ann", N: i}
		must(t, check(Vec3{f, 2, 3}, vec3b{4, f, 6}, r, fmt.Sprintf(
			"Vec3{X=%d Y=2 Z=3} vec3b{X=4 Y=%d Z=6} Record{Name=ann Tags=[] Meta=map[] At={0 0 0} N=%d}", i, i, i)))
		must(t, e.SetGlobal("v", Vec3{f, f, f}))
		must(t, e.SetGlobal("w", vec3b{f, 0, 0}))
		run(t, e, fmt.Sprintf(`assert(v.X == %d and v.Z == %[1]d and w.X == %[1]d and w.Y == 0)`, i))
		run(t, e, `assert(tostring(v):sub(1, 4) == "Vec3" and tostring(w):sub(1, 5) == "vec3b")`)
	}
	must(t, e.SetGlobal("v", Vec3{1, 2, 3}))
	var f func(any) (bool, error)
	run(t, e, `function isHandle(h) return type(h) == "userdata" and getmetatable(h) == nil end`)
	must(t, e.GetFunction("isHandle", &f))
	if ok, err := f(zlua.Opaque(&Vec3{})); err != nil || !ok {
		t.Fatalf("an Opaque after a Vec3 push: %v %v", ok, err)
	}
}
