package zlua_test

import (
	"math"
	"strings"
	"testing"
)

// A Go map whose distinct keys become one Lua key cannot be pushed: the
// later entry would replace the earlier, the survivor picked by Go's
// random map order. Numbers of different kinds with one value in an
// any-keyed map collide on both backends; on LuaJIT 64-bit integers
// beyond 2^53 that round to one double do too.
func TestMapsWhoseKeysCollideInLuaAreRefused(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct {
		name string
		m    any
		ok   bool // pushed on this backend
	}{
		{"int and float", map[any]string{1: "from int", 1.0: "from float"}, false},
		{"int64 and uint8", map[any]string{int64(2): "a", uint8(2): "b"}, false},
		{"int and string", map[any]string{1: "a", "1": "b"}, true},
		{"floats", map[any]string{1.5: "a", 2.5: "b"}, true},
		{"big uint64", map[uint64]string{1 << 60: "a", 1<<60 + 1: "b"}, !onLuaJIT},
		{"big int64 apart", map[int64]string{1 << 60: "a", 1<<60 + 1024: "b"}, true},
		{"2^53 and 2^53+1", map[int]string{1 << 53: "a", 1<<53 + 1: "b"}, !onLuaJIT},
	} {
		err := e.SetGlobal("m", c.m)
		if c.ok {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
				continue
			}
			var n int
			must(t, e.Eval(`local n = 0 for _ in pairs(m) do n = n + 1 end return n`, &n))
			if n != 2 {
				t.Errorf("%s: %d entries in Lua, want 2", c.name, n)
			}
		} else if err == nil || !strings.Contains(err.Error(), "are the same Lua key") {
			t.Errorf("%s: %v, want the collision refused", c.name, err)
		}
	}
	// as a Go function's result, the same refusal as an error in Lua
	must(t, e.SetGlobal("mixed", func() map[any]int { return map[any]int{3: 1, 3.0: 2} }))
	run(t, e, `local ok, err = pcall(mixed)
		assert(not ok and err:find("are the same Lua key", 1, true), err)`)
}

// A Go map with a nil or NaN key fails as the other values Lua cannot
// take: named, with the result it was (Lua's bare "table index is nil"
// named neither).
func TestMapsWithKeysLuaRefusesAreNamed(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("scores", func() map[any]int { return map[any]int{nil: 1, "ann": 2} }))
	must(t, e.SetGlobal("weights", func() map[float64]int { return map[float64]int{math.NaN(): 1} }))
	for chunk, want := range map[string]string{
		`local s = scores()`:  "result #1 of 'scores': map key nil cannot be a Lua table index",
		`local w = weights()`: "result #1 of 'weights': map key NaN cannot be a Lua table index",
	} {
		if err := e.DoString(chunk); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", chunk, err, want)
		}
	}
	if err := e.SetGlobal("m", map[any]int{nil: 1}); err == nil || !strings.Contains(err.Error(), "map key nil") {
		t.Errorf("SetGlobal of a map with a nil key: %v", err)
	}
}
