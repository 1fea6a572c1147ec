package zlua_test

import (
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// TestConversionErrorsNameTheElementKey: a value that fails to convert
// inside tables is located by its keys, Lua style, from the outermost
// table: element [2]["name"] (a global's name instead of "element "). Before, keys other than strings read [?] and
// each level repeated "element".
func TestConversionErrorsNameTheElementKey(t *testing.T) {
	e := newEnv(t)
	run(t, e, `
		bykey = {[1] = true}
		bystr = {k = "x"}
		seqs = {{1}, {2, "x"}}
		maps = {{k = "x"}}
		strkeys = {x = 1}
		anyseq = {1, {a = io.stdout}}
		anyfloat = {[2.5] = {q = io.stdout}}
		bools = {[true] = "x"}
		deep = {a = {b = {c = "x"}}}
		nestedkey = {{x = 1}}`)
	for _, c := range []struct {
		name string
		out  any
		want string
	}{
		{"bykey", new(map[int]string), `element [1]: string expected, got boolean`},
		{"bystr", new(map[string]int), `element ["k"]: number expected, got string`},
		{"seqs", new([][]int), `element [2][2]: number expected, got string`},
		{"maps", new([]map[string]int), `element [1]["k"]: number expected, got string`},
		{"strkeys", new(map[int]int), `key ["x"]: number expected, got string`},
		{"nestedkey", new([]map[int]int), `element [1]: key ["x"]: number expected, got string`},
		{"anyseq", new(any), `element [2]["a"]: cannot convert a FILE* to a Go value`},
		{"anyfloat", new(any), `element [2.5]["q"]: cannot convert a FILE* to a Go value`},
		{"bools", new(map[bool]int), `element [true]: number expected, got string`},
		{"deep", new(map[string]map[string]map[string]int), `element ["a"]["b"]["c"]: number expected, got string`},
	} {
		// Global roots the path at the global's name: bykey[1], not element [1].
		err := e.Global(c.name, c.out)
		if want := `zlua: global "` + c.name + `": ` + strings.Replace(c.want, "element ", c.name, 1); err == nil || err.Error() != want {
			t.Errorf("Global(%q, %T) = %v\nwant %s", c.name, c.out, err, want)
		}
	}
	must(t, e.SetGlobal("grid", func([][]int) {}))
	err := e.DoString(`grid({{1, 2}, {3, {}}})`)
	if want := "bad argument #1 to 'grid' (element [2][2]: number expected, got table)"; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("nested argument: %v, want suffix %q", err, want)
	}
}

// TestAnyRefusesValuesWithoutAGoFormInLuaWords: a value with no Go form (a
// file) passed to an any parameter is refused the same way at
// top level and inside tables; before, a file at top level read
// "interface {} expected, got FILE*".
func TestAnyRefusesValuesWithoutAGoFormInLuaWords(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("keep", func(any) {}))
	for _, c := range []struct{ chunk, want string }{
		{`keep(io.stdout)`, "bad argument #1 to 'keep' (cannot convert a FILE* to a Go value)"},
		{`keep({io.stdout})`, "bad argument #1 to 'keep' (element [1]: cannot convert a FILE* to a Go value)"},
		{`keep({k = io.stderr})`, "bad argument #1 to 'keep' (element [\"k\"]: cannot convert a FILE* to a Go value)"},
	} {
		err := e.DoString(c.chunk)
		if err == nil || !strings.HasSuffix(err.Error(), c.want) {
			t.Errorf("%s: err = %v\nwant suffix %q", c.chunk, err, c.want)
		}
	}
	// A named interface still names itself.
	must(t, e.SetGlobal("show", func(interface{ String() string }) {}))
	if err := e.DoString(`show(io.stdout)`); err == nil || !strings.Contains(err.Error(), "expected, got FILE*") {
		t.Errorf("named interface: %v", err)
	}
}

// TestGoErrorPositionOfTailCalls pins where a Go error raised by a Go
// function gets the caller's position. Both backends: called from a Lua
// line, prefixed; called by pcall directly, not (as error() does). A Go
// function tail-called from a Lua function (`return f()`) has the
// position of that return on Lua 5.4; LuaJIT replaced the Lua function's
// frame with the Go function's, so nothing on its stack says where the
// call came from, and its own functions (error, string.rep) lose the
// position there too: zlua cannot add it (docs/ARCHITECTURE.md, LuaJIT
// notes).
func TestGoErrorPositionOfTailCalls(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("fail", func() error { return errGame }))
	const pos = `^%(dostring%):%d+: entity not found$`
	must(t, e.DoStringArgs(`
		local pos = ...
		local ok, err = pcall(function() local x = fail() return x end)
		assert(err:match(pos), err)
		ok, err = pcall(fail)
		assert(err == "entity not found", err)
		local function g() return fail() end
		ok, err = pcall(function() local x = g() return x end)
		assert(err:match(pos), err)`, pos))
	if err := e.DoStringArgs(`
		local pos, jit = ...
		local ok, err = pcall(function() return fail() end)
		if jit then
			assert(err == "entity not found", err)
		else
			assert(err:match(pos), err)
		end`, pos, strings.HasPrefix(zlua.Backend, "LuaJIT")); err != nil {
		t.Error(err)
	}
}

type wMob struct{ HP int }

func (m *wMob) Hit(n int) int                     { m.HP -= n; return m.HP }
func (m *wMob) Say(a, b string) string            { return a + b }
func (m *wMob) Mix(a any, n int, s ...string) int { return n }

type wVec struct{ X, Y float64 }

func (v wVec) Scale(k float64) float64 { return v.X * k }

type wLeafMob struct{ HP int }

func (m *wLeafMob) Add(n int) int { m.HP += n; return m.HP }

// TestArgumentErrorsOfMethodSyntaxCallsCountAsLuaDoes: a Go function
// called with method syntax (t:f(...)) does not count self in its
// argument errors and calls an error in self "calling 'f' on bad self",
// as luaL_argerror words them; a Go method counts after its receiver
// whichever syntax calls it.
func TestArgumentErrorsOfMethodSyntaxCallsCountAsLuaDoes(t *testing.T) {
	if err := zlua.Leaf[*wLeafMob]("Add"); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	must(t, e.SetGlobal("f", func(a string, n int) int { return n }))
	must(t, e.SetGlobal("g", func(a any, n int, s string) int { return n }))
	must(t, e.SetGlobal("mob", &wMob{HP: 10}))
	must(t, e.SetGlobal("vec", wVec{X: 1}))
	must(t, e.SetGlobal("leaf", &wLeafMob{}))
	for _, c := range []struct{ chunk, want string }{
		{`t = {f = f}; t:f(5)`, `calling 'f' on bad self (string expected, got table)`},
		{`t = {f = f}; t.f("a", "b")`, `bad argument #2 to 'f' (number expected, got string)`},
		{`t = {g = g}; t:g("b")`, `bad argument #1 to 'g' (number expected, got string)`},
		{`t = {g = g}; t:g(1, {})`, `bad argument #2 to 'g' (string expected, got table)`},
		{`t = {g = g}; t.g(t, 1, {})`, `bad argument #3 to 'g' (string expected, got table)`},
		{`g(1, 2, {})`, `bad argument #3 to 'g' (string expected, got table)`},
		{`mob:Hit("x")`, `bad argument #1 to 'wMob:Hit' (number expected, got string)`},
		{`mob.Hit(mob, "x")`, `bad argument #1 to 'wMob:Hit' (number expected, got string)`},
		{`mob:Say("a", {})`, `bad argument #2 to 'wMob:Say' (string expected, got table)`},
		{`mob:Mix(1, 2, "a", {})`, `bad argument #4 to 'wMob:Mix' (string expected, got table)`},
		{`mob.Hit(1)`, `calling 'wMob:Hit' on bad self`},
		{`vec:Scale("k")`, `bad argument #1 to 'wVec:Scale' (number expected, got string)`},
		{`leaf:Add("x")`, `bad argument #1 to 'wLeafMob:Add' (number expected, got string)`},
		{`for i = 1, 300 do leaf:Add(1) end; leaf:Add("x")`, `bad argument #1 to 'wLeafMob:Add' (number expected, got string)`},
	} {
		err := e.DoString(c.chunk)
		if err == nil || !strings.Contains(err.Error(), "(dostring):1: "+c.want) {
			t.Errorf("%s: %v, want %q", c.chunk, err, c.want)
		}
	}
}
