package zlua_test

import (
	"math"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// C1-F1 and C1-F2 (outside probe): nil keys of maps pushed by reference,
// and writes to fields of struct elements of maps and slices pushed by
// reference.

// elemInner and elemPos are blittable (their fields are served in C);
// elemTag holds a string, so its copies live in Go (companions).
type elemInner struct{ Z int }

type elemPos struct {
	X, Y int
	In   elemInner
}

type elemTag struct {
	Name string
	N    int
}

type elemWorld struct {
	M    map[string]elemPos `lua:"m,ref"`
	S    []elemPos          `lua:"s,ref"`
	Tags map[string]elemTag `lua:"tags,ref"`
	TS   []elemTag          `lua:"ts,ref"`
}

func newElemWorld() *elemWorld {
	return &elemWorld{
		M:    map[string]elemPos{"a": {X: 1, Y: 2}},
		S:    []elemPos{{X: 1, Y: 2}, {X: 3, Y: 4}},
		Tags: map[string]elemTag{"a": {Name: "ann", N: 1}},
		TS:   []elemTag{{Name: "bob", N: 2}},
	}
}

// wantElemErr runs chunk (limited or not) and checks it fails with want in
// its message.
func wantElemErr(t *testing.T, e *zlua.Env, chunk, want string, limited bool) {
	t.Helper()
	err := doMaybeLimited(e, chunk, limited)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("limited=%v %s: %v, want %q", limited, chunk, err, want)
	}
}

// A nil key written into a map pushed by reference is refused as a Lua
// table refuses it (stock lua5.4 and luajit: "table index is nil", for
// t[nil] = nil too), whatever the key type; before, a map[any] and a map
// of pointers took it, and the Go map held a nil key. Reading m[nil] is
// nil, as for a table, even when the host's map has a nil key; #m is the
// Go map's length.
func TestByRefMapsRefuseNilKeys(t *testing.T) {
	e := newEnv(t)
	g := map[any]int{"a": 1, "b": 2, "c": 3}
	ps := map[*Player]int{}
	names := map[string]int{"x": 1}
	held := map[any]int{nil: 5, "a": 1}
	must(t, e.SetGlobal("g", zlua.ByRef(g)))
	must(t, e.SetGlobal("ps", zlua.ByRef(ps)))
	must(t, e.SetGlobal("names", zlua.ByRef(names)))
	must(t, e.SetGlobal("held", zlua.ByRef(held)))
	for _, limited := range []bool{false, true} {
		for chunk, want := range map[string]string{
			`g[nil] = 99`:    "(dostring):1: bad key for map[interface {}]int (table index is nil)",
			`g[nil] = nil`:   "(dostring):1: bad key for map[interface {}]int (table index is nil)",
			`ps[nil] = 1`:    "(dostring):1: bad key for map[*zlua_test.Player]int (table index is nil)",
			`names[nil] = 1`: "(dostring):1: bad key for map[string]int (table index is nil)",
		} {
			wantElemErr(t, e, chunk, want, limited)
		}
	}
	if len(g) != 3 || len(ps) != 0 || len(names) != 1 {
		t.Errorf("a refused nil key changed a map: %v %v %v", g, ps, names)
	}
	run(t, e, `assert(g[nil] == nil and ps[nil] == nil and names[nil] == nil)
		assert(held[nil] == nil, "m[nil] reads nil, as a table's does")
		assert(held.a == 1 and #held == 2)`)
}

// A map pushed by reference whose Go keys include one no Lua table can
// hold raises in pairs when the loop reaches it. Before, a nil key ended
// the generic for as if the map were done (10 runs over a map of ten
// pointer keys, one nil, visited 1 to 9 entries at random, silently); a
// NaN key was produced, a key that m[k] and next could not find. The
// words are the copy's (SetGlobal of such a map), named by the container.
func TestByRefPairsRaiseAtKeysLuaCannotHold(t *testing.T) {
	e := newEnv(t)
	ps := map[*Player]int{nil: 0}
	for i := 1; i <= 9; i++ {
		ps[&Player{HP: i}] = i
	}
	nan := math.NaN()
	must(t, e.SetGlobal("ps", zlua.ByRef(ps)))
	must(t, e.SetGlobal("anys", zlua.ByRef(map[any]int{nil: 1, "a": 2})))
	must(t, e.SetGlobal("nilptr", zlua.ByRef(map[any]int{(*Player)(nil): 1})))
	must(t, e.SetGlobal("fs", zlua.ByRef(map[float64]int{nan: 1, 1.5: 2})))
	must(t, e.SetGlobal("nanany", zlua.ByRef(map[any]int{nan: 1})))
	must(t, e.SetGlobal("chans", zlua.ByRef(map[chan int]int{nil: 1})))
	for _, limited := range []bool{false, true} {
		for name, want := range map[string]string{
			"ps":     "(dostring):2: element of map[*zlua_test.Player]int: map key nil cannot be a Lua table index",
			"anys":   "(dostring):2: element of map[interface {}]int: map key nil cannot be a Lua table index",
			"nilptr": "(dostring):2: element of map[interface {}]int: map key nil cannot be a Lua table index",
			"fs":     "(dostring):2: element of map[float64]int: map key NaN cannot be a Lua table index",
			"nanany": "(dostring):2: element of map[interface {}]int: map key NaN cannot be a Lua table index",
			"chans":  "(dostring):2: element of map[chan int]int: map key nil cannot be a Lua table index",
		} {
			for i := 0; i < 10; i++ { // Go's map order differs each time
				wantElemErr(t, e, "local n = 0\nfor k, v in pairs("+name+") do n = n + 1 end", want, limited)
			}
		}
	}
	run(t, e, `assert(#ps == 10 and #fs == 2)`)
	// the copy names a nil pointer key too (before: Lua's bare "table
	// index is nil", raised by the table it was building)
	for _, m := range []any{ps, map[chan int]int{nil: 1}} {
		if err := e.SetGlobal("c", m); err == nil || !strings.Contains(err.Error(), "map key nil cannot be a Lua table index") {
			t.Errorf("SetGlobal of %T with a nil key: %v", m, err)
		}
	}
}

// A struct element of a slice pushed by reference (a lua:",ref" field,
// ByRef(s), ByRef(&s)) reads as a view of the element, as an object's
// struct field does: writing its fields, nested ones included, writes
// the Go element (before, each read was a new copy and the writes were
// lost: w.s[1].X = 99 printed 1). pairs and ipairs give the same views.
func TestByRefSliceStructElementsAreViews(t *testing.T) {
	for _, limited := range []bool{false, true} {
		e := newEnv(t)
		w := newElemWorld()
		plain := []elemPos{{X: 1}}
		grow := []elemPos{{X: 1}}
		must(t, e.SetGlobal("w", w))
		must(t, e.SetGlobal("plain", zlua.ByRef(plain)))
		must(t, e.SetGlobal("grow", zlua.ByRef(&grow)))
		must(t, e.SetGlobal("swap", func(p *elemPos) { p.X, p.Y = p.Y, p.X }))
		must(t, e.SetGlobal("sum", func(p elemPos) int { return p.X + p.Y }))
		chunk := `
			w.s[1].X = 99; w.s[1].In.Z = 7; w.ts[1].Name = "bo"; w.ts[1].N = 20
			assert(w.s[1].X == 99 and w.s[1].In.Z == 7 and w.ts[1].Name == "bo")
			assert(rawequal(w.s[1], w.s[1]) and not rawequal(w.s[1], w.s[2]))
			for i, p in pairs(w.s) do p.Y = p.Y * 10 end
			for i, p in ipairs(w.s) do p.In.Z = p.In.Z + i end
			swap(w.s[2]); assert(sum(w.s[2]) == 43)
			plain[1].X = 5; grow[1].Y = 6
			for i = 1, 200 do w.s[2].In.Z = i end -- compiled on LuaJIT`
		if err := doMaybeLimited(e, chunk, limited); err != nil {
			t.Fatalf("limited=%v: %v", limited, err)
		}
		if w.S[0] != (elemPos{X: 99, Y: 20, In: elemInner{8}}) || w.S[1] != (elemPos{X: 40, Y: 3, In: elemInner{200}}) {
			t.Errorf("limited=%v: w.S = %+v", limited, w.S)
		}
		if w.TS[0] != (elemTag{Name: "bo", N: 20}) || plain[0].X != 5 || grow[0].Y != 6 {
			t.Errorf("limited=%v: w.TS = %+v, plain = %+v, grow = %+v", limited, w.TS, plain, grow)
		}
	}
}

// A view keeps the element it was read from, as p := &s[i] does in Go:
// when an append moves the slice, the view stays on the old backing
// array (which it keeps alive), and the slice's new array does not see
// its writes.
func TestByRefSliceElementViewsKeepTheirElement(t *testing.T) {
	e := newEnv(t)
	s := make([]elemPos, 1, 1)
	must(t, e.SetGlobal("s", zlua.ByRef(&s)))
	run(t, e, `
		old = s[1]
		s[2] = {X = 2} -- beyond the capacity: Go moves the slice
		old.X = 5
		assert(old.X == 5 and s[1].X == 0 and not rawequal(old, s[1]))
		s[1].X = 7
		assert(old.X == 5)`)
	if s[0].X != 7 || len(s) != 2 {
		t.Errorf("s = %+v", s)
	}
}

// A struct element of a map pushed by reference is a copy (a Go map
// element has no address), and so is a struct held in an interface
// element: a write to a field of such a copy raises, naming the remedy,
// on every path that writes fields (C for blittable copies, the FFI on
// LuaJIT, Go for companions, nested struct fields), instead of changing
// a copy no Go value sees (before, w.m.a.X = 99 was silently lost).
// Reading works, and assigning the whole element is the way to change it.
func TestByRefMapStructElementsRefuseFieldWrites(t *testing.T) {
	const remedy = "(a map element, or a struct held in an interface, has no Go address; assign the whole element: m[k] = v)"
	for _, limited := range []bool{false, true} {
		e := newEnv(t)
		w := newElemWorld()
		anys := []any{elemPos{X: 1}}
		anyMap := map[string]any{"a": elemTag{Name: "x"}}
		must(t, e.SetGlobal("w", w))
		must(t, e.SetGlobal("anys", zlua.ByRef(anys)))
		must(t, e.SetGlobal("anymap", zlua.ByRef(anyMap)))
		must(t, e.SetGlobal("sum", func(p elemPos) int { return p.X + p.Y }))
		for chunk, want := range map[string]string{
			`w.m.a.X = 99`:                                  "(dostring):1: cannot set field 'X' of a copy of elemPos " + remedy,
			`w.m.a.In.Z = 99`:                               "(dostring):1: cannot set field 'Z' of a copy of elemInner " + remedy,
			`w.tags.a.Name = "z"`:                           "(dostring):1: cannot set field 'Name' of a copy of elemTag " + remedy,
			`w.tags.a.N = 9`:                                "(dostring):1: cannot set field 'N' of a copy of elemTag " + remedy,
			`for k, p in pairs(w.m) do p.Y = 5 end`:         "(dostring):1: cannot set field 'Y' of a copy of elemPos " + remedy,
			`local p = w.m.a for i = 1, 200 do p.X = i end`: "(dostring):1: cannot set field 'X' of a copy of elemPos " + remedy,
			`for i = 1, 200 do pcall(function() w.m.a.Y = i end) end w.m.a.Y = 0`: "cannot set field 'Y' of a copy of elemPos " + remedy,
			`anys[1].X = 2`:      "(dostring):1: cannot set field 'X' of a copy of elemPos " + remedy,
			`anymap.a.Name = ""`: "(dostring):1: cannot set field 'Name' of a copy of elemTag " + remedy,
		} {
			wantElemErr(t, e, chunk, want, limited)
		}
		if w.M["a"] != (elemPos{X: 1, Y: 2}) || w.Tags["a"] != (elemTag{Name: "ann", N: 1}) {
			t.Errorf("limited=%v: refused writes changed the maps: %+v %+v", limited, w.M, w.Tags)
		}
		// reading, and the remedy: the whole element
		chunk := `
			local p = w.m.a
			assert(p.X == 1 and p.Y == 2 and p.In.Z == 0 and w.tags.a.Name == "ann")
			w.m.a = {X = 10, Y = p.Y, In = {Z = 3}}
			w.tags.b = {Name = "new", N = w.tags.a.N + 1}
			w.m.c = w.m.a -- a copy assigned whole
			assert(sum(w.m.a) == 12)`
		if err := doMaybeLimited(e, chunk, limited); err != nil {
			t.Fatalf("limited=%v: %v", limited, err)
		}
		if w.M["a"] != (elemPos{X: 10, Y: 2, In: elemInner{3}}) || w.M["c"] != w.M["a"] || w.Tags["b"] != (elemTag{Name: "new", N: 2}) {
			t.Errorf("limited=%v: whole-element writes: %+v %+v", limited, w.M, w.Tags)
		}
	}
	// a copy not read from a map (a Go function's result) stays writable
	e := newEnv(t)
	must(t, e.SetGlobal("mk", func() elemPos { return elemPos{X: 1} }))
	run(t, e, `local p = mk() p.X = 2 p.In.Z = 3 assert(p.X == 2)`)
}

// Under a memory limit, a view of a struct element keeps the backing
// array of its slice alive, so it carries the charge a push of the slice
// carries (as a field view carries its object's): a loop keeping only
// the first element of slices an argument built stops at the limit
// instead of holding 400 MiB of Go strings under 4 MiB.
func TestByRefSliceElementViewsCarryTheSlicesCharge(t *testing.T) {
	e := echoBackEnv(t)
	defer func() { must(t, e.Close()) }()
	must(t, e.SetGlobal("erefinfo", func(s []chargeInfo) any { return zlua.ByRef(s) }))
	mustReachTheLimit(t, e, `local s = string.rep("n", 65536) keep = {}
		for i = 1, 6400 do keep[i] = erefinfo({{Note = s .. i}})[1] end`)
	mustSettleToZero(t, e)
}
