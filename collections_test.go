package zlua_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

func TestPairsAndIpairsOverByRefMapsAndSlices(t *testing.T) {
	e := newEnv(t)
	inv := map[string]int{"sword": 1, "shield": 2, "bow": 3}
	xs := []string{"a", "b", "c"}
	must(t, e.SetGlobal("inv", zlua.ByRef(inv)))
	must(t, e.SetGlobal("xs", zlua.ByRef(xs)))
	must(t, e.SetGlobal("empty", zlua.ByRef(map[int]bool{})))
	run(t, e, `
		local n, sum = 0, 0
		for k, v in pairs(inv) do
			assert(type(k) == "string" and inv[k] == v)
			n, sum = n + 1, sum + v
		end
		assert(n == 3 and sum == 6, "pairs over a map")
		local s = ""
		for i, v in pairs(xs) do s = s .. i .. v end
		assert(s == "1a2b3c", "pairs over a slice, in order: " .. s)
		s = ""
		for i, v in ipairs(xs) do s = s .. i .. v end
		assert(s == "1a2b3c", "ipairs over a slice: " .. s)
		assert(#xs == 3 and #inv == 3)
		for k in pairs(empty) do error("empty map produced " .. tostring(k)) end
		-- Deleting entries while iterating, as Lua allows for tables.
		for k in pairs(inv) do inv[k] = nil end
		assert(#inv == 0)
	`)
	if len(inv) != 0 {
		t.Errorf("inv = %v after deleting every key in a pairs loop", inv)
	}
}

func TestPairsAndIpairsKeepStockBehaviourForOtherValues(t *testing.T) {
	e := newEnv(t)
	run(t, e, `
		local n = 0
		for k, v in pairs({a = 1, b = 2, 3}) do n = n + 1 end
		assert(n == 3)
		local s = ""
		for i, v in ipairs({"x", "y", nil, "z"}) do s = s .. i .. v end
		assert(s == "1x2y")
		local f, t, c = pairs({})
		assert(f == next and c == nil, "pairs of a table returns next")
	`)
	// Each backend's own words: 5.4 names the loop's next ('for
	// iterator'), LuaJIT pairs.
	err := e.DoString("\nfor k in pairs(5) do end")
	if err == nil || !strings.Contains(err.Error(), "(dostring):2: bad argument #1 to '") ||
		!strings.Contains(err.Error(), "' (table expected, got number)") {
		t.Errorf("pairs(5): %v", err)
	}
	// No argument at all: both stock interpreters say "value expected"
	// (the replacement must pass the arguments on as given, not a nil).
	for _, f := range []string{"pairs", "ipairs"} {
		err := e.DoString("local a = " + f + "()")
		want := "(dostring):1: bad argument #1 to '" + f + "' (value expected)"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s(): %v, want %q", f, err, want)
		}
	}
}

func TestPairsOverByRefElementsThatCannotBePushed(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("m", zlua.ByRef(map[string]complex128{"z": 1i})))
	err := e.DoString("for k, v in pairs(m) do end")
	if err == nil || !strings.Contains(err.Error(), "element of map[string]complex128: cannot push Go value of type complex128") {
		t.Errorf("err = %v", err)
	}
	// __pairs checks its receiver like every metamethod.
	err = e.DoString("debug.getmetatable(m).__pairs(io.stdout)")
	if err == nil || !strings.Contains(err.Error(), "bad self (map[string]complex128 expected, got FILE*)") {
		t.Errorf("__pairs on another value: %v", err)
	}
}

type tagged struct {
	Tags  []string       `lua:",ref"`
	Inv   map[string]int `lua:"inv,ref"`
	Items []int          `lua:"items,ref"`
	Copy  []string
}

func TestRefFieldsAreViewsOfTheObject(t *testing.T) {
	e := newEnv(t)
	obj := &tagged{Tags: []string{"a", "b"}, Items: []int{1}, Copy: []string{"c"}}
	must(t, e.SetGlobal("o", obj))
	run(t, e, `
		assert(type(o.Tags) == "userdata" and rawequal(o.Tags, o.Tags), "a ref field is one view")
		o.Tags[#o.Tags + 1] = "x"
		o.Tags[1] = "A"
		o.inv.gold = 5 -- the nil map is made on the first write
		o.items[2] = 2
		o.items[#o.items + 1] = 3
		local s = ""
		for i, v in ipairs(o.Tags) do s = s .. v end
		assert(s == "Abx" and #o.Tags == 3, s)
		assert(type(o.Copy) == "table", "without the tag a field is a copy")
		o.Copy[#o.Copy + 1] = "lost"
	`)
	if !slices.Equal(obj.Tags, []string{"A", "b", "x"}) || obj.Inv["gold"] != 5 ||
		!slices.Equal(obj.Items, []int{1, 2, 3}) || !slices.Equal(obj.Copy, []string{"c"}) {
		t.Errorf("obj = %+v", obj)
	}
	// A view passed to Go is the slice (or the pointer to it); assigned to
	// a field, a copy of the slice.
	must(t, e.SetGlobal("count", func(xs []string) int { return len(xs) }))
	must(t, e.SetGlobal("countp", func(xs *[]string) int { return len(*xs) }))
	run(t, e, `assert(count(o.Tags) == 3 and countp(o.Tags) == 3); o.Copy = o.Tags`)
	if !slices.Equal(obj.Copy, obj.Tags) {
		t.Errorf("Copy = %q", obj.Copy)
	}
	// A view reads the field, whatever Go assigned since.
	obj.Tags = []string{"new"}
	run(t, e, `assert(#o.Tags == 1 and o.Tags[1] == "new")`)
	for _, c := range []struct{ chunk, want string }{
		{`o.Tags[3] = "gap"`, "index 3 out of range for []string of length 1"},
		{`o.Tags[0] = "zero"`, "index 0 out of range for []string of length 1"},
		{`o.Tags[1] = {}`, "bad value for []string (string expected, got table)"},
		{`o.Tags.x = "y"`, "bad index for []string (number expected, got string)"},
		{`o.inv.gold = "y"`, "bad value for map[string]int (number expected, got string)"},
		{`o.items[#o.items + 1] = 1.5`, "bad value for []int (number has no integer representation)"},
	} {
		if err := e.DoString(c.chunk); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.chunk, err, c.want)
		}
	}
	if len(obj.Tags) != 1 || len(obj.Items) != 3 {
		t.Errorf("a refused write changed the object: %+v", obj)
	}
}

func TestByRefPointerToSliceGrows(t *testing.T) {
	e := newEnv(t)
	var log []string
	m := map[string]int(nil)
	must(t, e.SetGlobal("log", zlua.ByRef(&log)))
	must(t, e.SetGlobal("m", zlua.ByRef(&m)))
	run(t, e, `
		assert(#log == 0 and log[1] == nil)
		log[#log + 1] = "one"
		log[#log + 1] = "two"
		m.k = 1
		for i, v in pairs(log) do assert(log[i] == v) end
	`)
	if !slices.Equal(log, []string{"one", "two"}) || m["k"] != 1 {
		t.Errorf("log = %q, m = %v", log, m)
	}
	if err := e.SetGlobal("bad", zlua.ByRef(new(int))); err == nil || !strings.Contains(err.Error(), "map or slice or a pointer to one") {
		t.Errorf("ByRef(*int): %v", err)
	}
}

func TestPairsOverByRefInTheSandbox(t *testing.T) {
	e, err := zlua.New(zlua.Options{Libs: zlua.LibsSafe})
	must(t, err)
	defer e.Close()
	must(t, e.SetGlobal("xs", zlua.ByRef([]int{4, 5})))
	must(t, e.SetGlobal("bad", zlua.ByRef([]complex64{1})))
	run(t, e, `
		local s = 0
		for i, v in ipairs(xs) do s = s + i * v end
		for i, v in pairs(xs) do s = s + v end
		assert(s == 4 + 10 + 9, s)
	`)
	// An element that fails is an error of the loop (on LuaJIT at the
	// loop's line, not in zlua's helper; Lua 5.4's ipairs is C code, which
	// has no line).
	err = e.DoString("local n = 0\nfor i, v in ipairs(bad) do n = n + 1 end")
	if err == nil || !strings.Contains(err.Error(), "element of []complex64: cannot push") ||
		(strings.HasPrefix(zlua.Backend, "LuaJIT") && !strings.Contains(err.Error(), "(dostring):2: element")) {
		t.Errorf("err = %v", err)
	}
}

func TestRefTagKeepsTheFieldNameForCopiesAndDecoding(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("copy", tagged{Tags: []string{"a"}, Inv: map[string]int{"g": 1}}))
	var got tagged
	must(t, e.Eval(`{Tags = {"x", "y"}, inv = {g = 2}, items = {3}}`, &got))
	if !slices.Equal(got.Tags, []string{"x", "y"}) || got.Inv["g"] != 2 || !slices.Equal(got.Items, []int{3}) {
		t.Errorf("decoded %+v", got)
	}
	// A struct pushed by value is a copy: its fields are copies, tag or not.
	run(t, e, `assert(type(copy.Tags) == "table" and copy.Tags[1] == "a" and copy.inv.g == 1)`)
}

type badRef struct {
	N int `lua:"n,ref"`
}

func TestRefTagOnAFieldThatIsNotASliceOrMap(t *testing.T) {
	e := newEnv(t)
	err := e.SetGlobal("o", &badRef{})
	if !errors.Is(err, zlua.ErrCannotPush) || !strings.Contains(err.Error(), `field n of zlua_test.badRef: lua:",ref" needs a slice or map, got int`) {
		t.Errorf("err = %v", err)
	}
}
func TestTableInsertOnAGrowableView(t *testing.T) {
	if !strings.HasPrefix(zlua.Backend, "Lua 5.4") {
		t.Skip("LuaJIT's table functions take tables only")
	}
	e := newEnv(t)
	var xs []string
	must(t, e.SetGlobal("xs", zlua.ByRef(&xs)))
	run(t, e, `table.insert(xs, "a"); table.insert(xs, "b"); assert(table.concat({xs[1], xs[2]}) == "ab")`)
	if len(xs) != 2 {
		t.Errorf("xs = %q", xs)
	}
}

// The C helper behind LuaJIT's pairs takes anything a script hands it
// (reached with debug.getupvalue); replaced upvalues break only the
// script's own loops.
func TestIteratorHelpersTakeForgedArguments(t *testing.T) {
	if !strings.HasPrefix(zlua.Backend, "LuaJIT") {
		t.Skip("Lua 5.4's pairs and ipairs are stock")
	}
	e := newEnv(t)
	must(t, e.SetGlobal("xs", zlua.ByRef([]int{1})))
	run(t, e, `
		local metafield, at
		for i = 1, 10 do
			local name, v = debug.getupvalue(pairs, i)
			if name == "metafield" then metafield, at = v, i end
		end
		assert(type(metafield) == "function")
		metafield()
		metafield(1)
		metafield(xs)
		metafield(io.stdout, {})
		metafield(newproxy(true), nil)
		assert(type(metafield(xs, "__pairs")) == "function")
		debug.setupvalue(pairs, at, function() return 42 end)
		assert(not pcall(pairs, xs))
	`)
}
