package zlua_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// Named twins of the common maps: their elements take the reflective
// path, the reference for the fast one.
type (
	twinIntMap   map[string]int
	twinI64Map   map[string]int64
	twinFloatMap map[string]float64
	twinStrMap   map[string]string
	twinBoolMap  map[string]bool
)

// A string-keyed map of numbers, strings or booleans pushed by reference
// reads and writes its elements as the reflective path does (values,
// absent keys, conversions, errors word for word, deletions), and a read
// allocates nothing, a write at most the key's string.
func TestByRefCommonMapsMatchTheReflectivePath(t *testing.T) {
	ops := []string{
		`return m.a`, `return m.zz`, `return m[1]`, `return m[true]`,
		`m.a = 5 return m.a`, `m.b = 3.0 return m.b`, `m.c = 1.5 return m.c`, `m.d = "7" return m.d`,
		`m.e = "x" return m.e`, `m.f = {} return m.f`, `m.g = true return m.g`, `m.h = 2^63 return m.h`,
		`m.i = -0.0 return m.i`, `m.a = nil return m.a`, `m[1] = 2 return m[1]`, `m.j = 2^53 return m.j`,
	}
	fresh := func(named bool, kind string) any {
		switch kind + fmt.Sprint(named) {
		case "intfalse":
			return &map[string]int{"a": 1}
		case "inttrue":
			return &twinIntMap{"a": 1}
		case "i64false":
			return &map[string]int64{"a": 1}
		case "i64true":
			return &twinI64Map{"a": 1}
		case "floatfalse":
			return &map[string]float64{"a": 1.5}
		case "floattrue":
			return &twinFloatMap{"a": 1.5}
		case "strfalse":
			return &map[string]string{"a": "s"}
		case "strtrue":
			return &twinStrMap{"a": "s"}
		case "boolfalse":
			return &map[string]bool{"a": true}
		}
		return &twinBoolMap{"a": true}
	}
	for _, kind := range []string{"int", "i64", "float", "str", "bool"} {
		for _, op := range ops {
			var got [2]string
			for i, named := range []bool{false, true} {
				e := newEnv(t)
				m := fresh(named, kind)
				must(t, e.SetGlobal("m", zlua.ByRef(m)))
				err := e.DoString(`local ok, r = pcall(function() ` + op + ` end) res = tostring(ok) .. " " .. tostring(r) .. " " .. type(r)`)
				must(t, err)
				got[i] = global[string](t, e, "res") + fmt.Sprintf(" %v", m)
				must(t, e.Close())
			}
			// the error texts name the map's type: the twin's name differs
			want := got[1]
			for _, n := range [][2]string{{"zlua_test.twinIntMap", "map[string]int"}, {"zlua_test.twinI64Map", "map[string]int64"},
				{"zlua_test.twinFloatMap", "map[string]float64"}, {"zlua_test.twinStrMap", "map[string]string"}, {"zlua_test.twinBoolMap", "map[string]bool"},
				{"twinIntMap", "map[string]int"}, {"twinI64Map", "map[string]int64"}, {"twinFloatMap", "map[string]float64"},
				{"twinStrMap", "map[string]string"}, {"twinBoolMap", "map[string]bool"}} {
				want = strings.ReplaceAll(want, n[0], n[1])
			}
			if got[0] != want {
				t.Errorf("%s %s: fast %q, reflective %q", kind, op, got[0], got[1])
			}
		}
	}
	if raceEnabled {
		return
	}
	e := newEnv(t)
	inv := map[string]int{"gold": 1, "hp": 2}
	must(t, e.SetGlobal("inv", zlua.ByRef(inv)))
	run(t, e, `function read() return inv.gold + inv.hp end
		function write() inv.gold = inv.gold + 1 end`)
	var read func() (int, error)
	var write func() error
	must(t, e.GetFunction("read", &read))
	must(t, e.GetFunction("write", &write))
	if a := testing.AllocsPerRun(200, func() { _, _ = read() }); a != 0 {
		t.Errorf("two reads: %.1f allocations, want 0", a)
	}
	if a := testing.AllocsPerRun(200, func() { _ = write() }); a > 1 {
		t.Errorf("a read and a write: %.1f allocations, want at most 1 (the key)", a)
	}
}
