package zlua_test

import (
	"math"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// wide is non-blittable (the string), so its numeric fields are set by
// the Go field setter; Sample's are served in C.
type wide struct {
	U64  uint64
	F32  float32
	Name string
}

// TestUint64AboveMaxInt64RoundTrips: an uint64 from 2^63 up is pushed to
// Lua as the nearest float, and that float converts back to uint64 on
// every path (Global, arguments, typed-func results, struct fields set by
// Go and by C). Before, 2^63 read back as "number has no integer
// representation". Floats from 2^64 up are out of range.
func TestUint64AboveMaxInt64RoundTrips(t *testing.T) {
	e := newEnv(t)
	const big = uint64(1) << 63
	const bigger = uint64(0xF000000000000000)                                    // exact as a float too
	for _, v := range []uint64{big, bigger, big + 2048, math.MaxUint64 - 2047} { // exact as floats
		must(t, e.SetGlobal("u", v))
		if got := global[uint64](t, e, "u"); got != v {
			t.Errorf("Global after SetGlobal(%d) = %d", v, got)
		}
	}
	var got uint64
	must(t, e.SetGlobal("take", func(u uint64) { got = u }))
	must(t, e.SetGlobal("give", func() uint64 { return bigger }))
	run(t, e, `take(give())`)
	if got != bigger {
		t.Errorf("Go result passed back as an argument: %d, want %d", got, bigger)
	}
	run(t, e, `take(2^63)`)
	if got != big {
		t.Errorf("take(2^63) = %d", got)
	}
	run(t, e, `take("9223372036854775808")`) // a numeric string beyond int64
	if got != big {
		t.Errorf(`take("9223372036854775808") = %d`, got)
	}
	run(t, e, `function id(x) return x end`)
	var id func(uint64) (uint64, error)
	must(t, e.GetFunction("id", &id))
	if r, err := id(bigger); err != nil || r != bigger {
		t.Errorf("typed func result = %d, %v", r, err)
	}
	// Struct fields: set in Go (companion) and in C (blittable).
	must(t, e.SetGlobal("w", wide{U64: bigger, Name: "w"}))
	must(t, e.SetGlobal("s", Sample{U64: bigger}))
	run(t, e, `assert(w.U64 == s.U64 and w.U64 >= 2^63, tostring(w.U64))
		w.U64 = 2^63; s.U64 = 2^63`)
	var w wide
	var s Sample
	must(t, e.Global("w", &w))
	must(t, e.Global("s", &s))
	if w.U64 != big || s.U64 != big {
		t.Errorf("fields after writing 2^63 from Lua: Go setter %d, C %d", w.U64, s.U64)
	}
	for _, c := range []struct{ chunk, want string }{
		{`take(2^65)`, "bad argument #1 to 'take' (number out of range for uint64)"},
		{`take(-1)`, "bad argument #1 to 'take' (number out of range for uint64)"},
		{`take(1/0)`, "bad argument #1 to 'take' (number has no integer representation)"},
		{`take(2^63 + 0.5)`, ""}, // 2^63 + 0.5 is 2^63 as a float: accepted
		{`w.U64 = 2^65`, "bad value for field 'U64' of wide (number out of range for uint64)"},
		{`s.U64 = 2^65`, "bad value for field 'U64' of Sample (number out of range for uint64)"},
		{`w.U64 = 1/0`, "bad value for field 'U64' of wide (number has no integer representation)"},
		{`s.U64 = 1/0`, "bad value for field 'U64' of Sample (number has no integer representation)"},
	} {
		err := e.DoString(c.chunk)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.chunk, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.chunk, err, c.want)
		}
	}
	var u uint64
	if err := e.DoString(`big = 2^65`); err != nil {
		t.Fatal(err)
	}
	if err := e.Global("big", &u); err == nil || !strings.Contains(err.Error(), "number out of range for uint64") {
		t.Errorf("Global of 2^65 into uint64 = %v", err)
	}
}

// MaxUint64 (a common sentinel) is pushed as 2^64, the nearest float, as
// is every uint64 from 2^64 - 1024 up: 2^64 reads back as MaxUint64 on
// every path. Before, it was out of range: a MaxUint64 went into Lua and
// never came back (found by an outside probe).
func TestMaxUint64ComesBack(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("u", uint64(math.MaxUint64)))
	var back uint64
	must(t, e.Global("u", &back))
	if back != math.MaxUint64 {
		t.Errorf("Global of MaxUint64 = %d", back)
	}
	must(t, e.SetGlobal("get", func() uint64 { return math.MaxUint64 }))
	must(t, e.SetGlobal("put", func(u uint64) bool { return u == math.MaxUint64 }))
	must(t, e.SetGlobal("put32", func(u uint32) uint32 { return u }))
	w, s := &wide{}, &Sample{}
	must(t, e.SetGlobal("w", w))
	must(t, e.SetGlobal("s", s))
	run(t, e, `assert(put(get()) and put(2^64))
		w.U64 = get() s.U64 = 2^64
		local ok, err = pcall(put32, 2^64)
		assert(not ok and err:find("out of range for uint32"), err)`)
	if w.U64 != math.MaxUint64 || s.U64 != math.MaxUint64 {
		t.Errorf("fields set to 2^64: Go setter %d, C %d, want MaxUint64", w.U64, s.U64)
	}
}

// TestFloat32OverflowIsOutOfRange: a finite number beyond float32 is
// refused like an integer out of range, on every path; before, 1e300
// silently became +Inf. Infinities and NaN convert as they are.
func TestFloat32OverflowIsOutOfRange(t *testing.T) {
	e := newEnv(t)
	var got float32
	must(t, e.SetGlobal("take", func(f float32) { got = f }))
	must(t, e.SetGlobal("w", wide{Name: "w"}))
	must(t, e.SetGlobal("s", Sample{}))
	run(t, e, `function id(x) return x end`)
	var id func(float64) (float32, error)
	must(t, e.GetFunction("id", &id))
	for _, c := range []struct{ chunk, want string }{
		{`take(1e300)`, "bad argument #1 to 'take' (number out of range for float32)"},
		{`take(-1e39)`, "bad argument #1 to 'take' (number out of range for float32)"},
		{`take("1e300")`, "bad argument #1 to 'take' (number out of range for float32)"},
		{`w.F32 = 1e300`, "bad value for field 'F32' of wide (number out of range for float32)"},
		{`s.F32 = 1e300`, "bad value for field 'F32' of Sample (number out of range for float32)"},
		{`s.F32 = -1e300`, "bad value for field 'F32' of Sample (number out of range for float32)"},
	} {
		if err := e.DoString(c.chunk); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.chunk, err, c.want)
		}
	}
	if _, err := id(1e300); err == nil || !strings.Contains(err.Error(), "result #1: number out of range for float32") {
		t.Errorf("typed func result 1e300 into float32: %v", err)
	}
	run(t, e, `big = 1e300`)
	var f float32
	if err := e.Global("big", &f); err == nil || !strings.Contains(err.Error(), "number out of range for float32") {
		t.Errorf("Global of 1e300 into float32 = %v", err)
	}
	// What float32 holds converts, infinities and NaN included.
	run(t, e, `take(3.4e38) assert(s.F32 == 0) s.F32 = 1/0 w.F32 = -1/0 x = s.F32 y = w.F32`)
	if got != 3.4e38 {
		t.Errorf("take(3.4e38) = %v", got)
	}
	run(t, e, `assert(x == 1/0 and y == -1/0) take(0/0)`)
	if !math.IsNaN(float64(got)) {
		t.Errorf("take(0/0) = %v", got)
	}
	if r, err := id(math.Inf(1)); err != nil || !math.IsInf(float64(r), 1) {
		t.Errorf("id(+Inf) = %v, %v", r, err)
	}
}

// Numeric strings reach integer parameters exactly, as Lua converts them
// for luaL_checkinteger: "9007199254740993" is that integer, not the
// float 2^53 it was read through before (found by an outside probe).
func TestNumericStringsReachIntegerParametersExactly(t *testing.T) {
	if !strings.HasPrefix(zlua.Backend, "Lua 5.4") {
		t.Skip("LuaJIT's numbers are floats: a string converts through one there, as in luajit")
	}
	e := newEnv(t)
	must(t, e.SetGlobal("id64", func(a int64) int64 { return a }))
	must(t, e.SetGlobal("idint", func(a int, s string) int { return a }))
	must(t, e.SetGlobal("idu64", func(a uint64) uint64 { return a }))
	run(t, e, `
		local cases = {"9007199254740993", "-9223372036854775807", "9223372036854775807",
			"0x7fffffffffffffff", "-9223372036854775808", " 12 ", "1e3", "0x10", "1.5",
			"9223372036854775808", "1e100", "abc", "0x", ""}
		for _, s in ipairs(cases) do
			local want = math.tointeger(s) -- what luaL_checkinteger reads, or nil
			for _, f in ipairs({id64, function(v) return idint(v, "s") end}) do
				local ok, got = pcall(f, s)
				assert(ok == (want ~= nil), s .. ": " .. tostring(got))
				assert(not ok or (math.type(got) == "integer" and got == want), s .. " read as " .. tostring(got))
			end
		end
		assert(idu64("9007199254740993") == 9007199254740993)
		local ok, err = pcall(idu64, "-1")
		assert(not ok and err:find("out of range"), err)`)
}
