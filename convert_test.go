package zlua_test

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

func TestSetGlobalGlobalRoundTrip(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name string
		in   any
		out  any // pointer to a zero value of the type to read back
		want any
	}{
		{"nilv", nil, new(any), nil},
		{"b", true, new(bool), true},
		{"i", -42, new(int), -42},
		{"i8", int8(-8), new(int8), int8(-8)},
		{"i16", int16(300), new(int16), int16(300)},
		{"i32", int32(-70000), new(int32), int32(-70000)},
		{"i64", int64(1) << 40, new(int64), int64(1) << 40},
		{"u", uint(7), new(uint), uint(7)},
		{"u8", uint8(255), new(uint8), uint8(255)},
		{"u16", uint16(65535), new(uint16), uint16(65535)},
		{"u32", uint32(1) << 31, new(uint32), uint32(1) << 31},
		{"u64", uint64(1) << 50, new(uint64), uint64(1) << 50},
		{"f32", float32(1.5), new(float32), float32(1.5)},
		{"f64", 2.25, new(float64), 2.25},
		{"s", "héllo\x00world", new(string), "héllo\x00world"},
		{"bytes", []byte("raw\xff"), new([]byte), []byte("raw\xff")},
		{"ints", []int{3, 1, 2}, new([]int), []int{3, 1, 2}},
		{"arr", [3]string{"a", "b", "c"}, new([3]string), [3]string{"a", "b", "c"}},
		{"m", map[string]int{"hp": 10, "mp": 5}, new(map[string]int), map[string]int{"hp": 10, "mp": 5}},
		{"nested", map[string][]float64{"pos": {1, 2.5}}, new(map[string][]float64), map[string][]float64{"pos": {1, 2.5}}},
		{"anyseq", []any{int64(1), "two", 3.5, true}, new(any), []any{int64(1), "two", 3.5, true}},
		{"anymap", map[string]any{"k": "v", "n": int64(2)}, new(any), map[string]any{"k": "v", "n": int64(2)}},
		{"intkeys", map[int]string{10: "ten", 20: "twenty"}, new(map[int]string), map[int]string{10: "ten", 20: "twenty"}},
	}
	for _, c := range cases {
		must(t, e.SetGlobal(c.name, c.in))
		if err := e.Global(c.name, c.out); err != nil {
			t.Errorf("%s: Global: %v", c.name, err)
			continue
		}
		got := reflect.ValueOf(c.out).Elem().Interface()
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %#v, want %#v", c.name, got, c.want)
		}
	}
	// Lua sees them as the natural Lua values.
	run(t, e, `
		assert(nilv == nil and b == true and i == -42 and f64 == 2.25)
		assert(math.type == nil or math.type(i) == "integer")
		assert(#s == 12 and bytes == "raw\255")
		assert(ints[1] == 3 and #ints == 3 and arr[3] == "c")
		assert(m.hp == 10 and nested.pos[2] == 2.5 and intkeys[20] == "twenty")
	`)
}

func TestGlobalConversionErrors(t *testing.T) {
	e := newEnv(t)
	run(t, e, `co = io.stdout; s = "text"; f = 1.5; big = 300; neg = -1; t = {1, "x"}; deep = {}; deep.self = deep`)
	cases := []struct {
		name string
		out  any
		want string
	}{
		{"s", new(int), `zlua: global "s": number expected, got string`},
		{"f", new(int), `zlua: global "f": number has no integer representation`},
		{"big", new(int8), `zlua: global "big": number out of range for int8`},
		{"neg", new(uint), `zlua: global "neg": number out of range for uint`},
		{"s", new(bool), `zlua: global "s": boolean expected, got string`},
		{"t", new([]int), `zlua: global "t": t[2]: number expected, got string`},
		{"s", new(map[string]int), `zlua: global "s": table expected, got string`},
		{"deep", new(any), `value nesting too deep`},
		{"missing", new(int), `zlua: global "missing": number expected, got nil`},
		{"co", new(any), `cannot convert a FILE* to a Go value`},
		{"s", new(chan int), `zlua: global "s": chan int expected, got string`},
	}
	for _, c := range cases {
		err := e.Global(c.name, c.out)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Global(%q, %T) = %v, want %q", c.name, c.out, err, c.want)
		}
	}
	if err := e.Global("s", 5); err == nil || !strings.Contains(err.Error(), "non-nil pointer") {
		t.Errorf("Global with a non-pointer: %v", err)
	}
}

func TestSetGlobalRefusesUnsupported(t *testing.T) {
	e := newEnv(t)
	err := e.SetGlobal("c", complex(1, 2))
	if !errors.Is(err, zlua.ErrCannotPush) || !strings.Contains(err.Error(), "complex128") {
		t.Errorf("SetGlobal(complex128) = %v", err)
	}
	cyc := []any{nil}
	cyc[0] = cyc
	if err := e.SetGlobal("cyc", cyc); err == nil || !strings.Contains(err.Error(), "nesting too deep") {
		t.Errorf("SetGlobal(cycle) = %v", err)
	}
	run(t, e, `assert(c == nil and cyc == nil)`)
}

func TestNumbersAndStringsConvertLikeLua(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("twice", func(n int) int { return 2 * n }))
	must(t, e.SetGlobal("half", func(f float64) float64 { return f / 2 }))
	must(t, e.SetGlobal("echo", func(s string) string { return s }))
	run(t, e, `
		assert(twice(21) == 42 and twice(2.0) == 4 and twice("8") == 16)
		assert(half(3) == 1.5 and half("1e2") == 50)
		assert(echo(12) == "12")
		local s = echo(1.5); assert(s == "1.5", s)
	`)
	must(t, e.SetGlobal("maxi", func() int64 { return math.MaxInt64 }))
	must(t, e.SetGlobal("nan", func() float64 { return math.NaN() }))
	run(t, e, `local n = nan(); assert(n ~= n)`)
}

func TestArgumentErrorsUseLuaWording(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("add", func(a, b int) int { return a + b }))
	must(t, e.SetGlobal("move", func(x, y float64, name string, fast bool) {}))
	must(t, e.SetGlobal("small", func(v int8) {}))
	must(t, e.SetGlobal("list", func(v []int) {}))
	cases := []struct{ chunk, want string }{
		{`add("a", 1)`, "bad argument #1 to 'add' (number expected, got string)"},
		{`add(1)`, "bad argument #2 to 'add' (number expected, got no value)"},
		{`add(1, nil)`, "bad argument #2 to 'add' (number expected, got nil)"},
		{`add(1.5, 2)`, "bad argument #1 to 'add' (number has no integer representation)"},
		{`add(io.stdout, 2)`, "bad argument #1 to 'add' (number expected, got FILE*)"},
		{`move(1, 2, {}, true)`, "bad argument #3 to 'move' (string expected, got table)"},
		{`move(1, 2, "n", 1)`, "bad argument #4 to 'move' (boolean expected, got number)"},
		{`small(200)`, "bad argument #1 to 'small' (number out of range for int8)"},
		{`list({1, "x"})`, "bad argument #1 to 'list' (element [2]: number expected, got string)"},
	}
	for _, c := range cases {
		err := e.DoString(c.chunk)
		if err == nil || !strings.HasSuffix(err.Error(), c.want) {
			t.Errorf("%s: err = %v\nwant suffix %q", c.chunk, err, c.want)
		}
		// The position of the Lua caller is prefixed, as luaL_argerror does.
		if err != nil && !strings.HasPrefix(err.Error(), `(dostring):1: `) {
			t.Errorf("%s: no position prefix in %q", c.chunk, err)
		}
	}
}

func TestManyArgumentsAndVariadic(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("sum10", func(a, b, c, d, e, f, g, h, i, j int) int { return a + b + c + d + e + f + g + h + i + j }))
	must(t, e.SetGlobal("join", func(sep string, parts ...string) string { return strings.Join(parts, sep) }))
	must(t, e.SetGlobal("count", func(xs ...any) int { return len(xs) }))
	must(t, e.SetGlobal("multi", func() (int, string, bool, []int) { return 1, "two", true, []int{3} }))
	run(t, e, `
		assert(sum10(1, 2, 3, 4, 5, 6, 7, 8, 9, 10) == 55)
		assert(join(", ", "a", "b", "c") == "a, b, c" and join("-") == "")
		assert(count() == 0 and count(nil, 1, {}) == 3)
		local a, b, c, d = multi()
		assert(a == 1 and b == "two" and c == true and d[1] == 3)
	`)
	err := e.DoString(`sum10(1, 2, 3, 4, 5, 6, 7, 8, 9, "x")`)
	if err == nil || !strings.Contains(err.Error(), "bad argument #10 to 'sum10' (number expected, got string)") {
		t.Errorf("10th argument error = %v", err)
	}
	err = e.DoString(`join(", ", "a", {})`)
	if err == nil || !strings.Contains(err.Error(), "bad argument #3 to 'join' (string expected, got table)") {
		t.Errorf("variadic argument error = %v", err)
	}
}

func TestErrorResultAndResultsConversion(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("find", func(id int) (string, error) {
		if id == 0 {
			return "", errGame
		}
		return "orc", nil
	}))
	must(t, e.SetGlobal("badresult", func() chan int { return nil }))
	must(t, e.SetGlobal("complexresult", func() complex128 { return 1i }))
	run(t, e, `
		assert(find(1) == "orc")
		local ok, err = pcall(find, 0)
		assert(not ok and err == "entity not found")
		assert(badresult() == nil)
	`)
	err := e.DoString(`complexresult()`)
	if err == nil || !strings.Contains(err.Error(), "result #1 of 'complexresult': cannot push Go value of type complex128") {
		t.Errorf("unsupported result: %v", err)
	}
}

func TestTableKeysThatCannotBeGoMapKeys(t *testing.T) {
	e := newEnv(t)
	run(t, e, `t = {[{}] = 1}`)
	var m map[any]any
	if err := e.Global("t", &m); err == nil || !strings.Contains(err.Error(), "a table key cannot be a Go map key") {
		t.Errorf("Global(table keyed by a table, map[any]any) = %v", err)
	}
}

// TestByteSliceParametersTakeWhatLuaStringsTake: a []byte parameter reads
// what luaL_checklstring reads (a string, or a number as tostring spells
// it), a table of bytes element by element, and refuses the rest with the
// string wording.
func TestByteSliceParametersTakeWhatLuaStringsTake(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("raw", func(b []byte) string { return string(b) }))
	run(t, e, `
		for _, v in ipairs({"a\0b", 12, -7, 1.5, 2^63, 1e100, 0/0 ~= 0/0 and 1/0 or 0}) do
			local got = raw(v)
			assert(got == tostring(v), tostring(v) .. " read as " .. got)
		end
		assert(raw({104, 105}) == "hi")
		assert(raw(nil) == "")
		for _, v in ipairs({true, print}) do
			local ok, err = pcall(raw, v)
			assert(not ok and err:find("bad argument #1 to 'raw' (string expected, got " .. type(v) .. ")", 1, true), err)
		end`)
}
