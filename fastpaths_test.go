package zlua_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// debug.setupvalue can put anything where a Go function keeps its
// sentinel: the sentinel's trampoline (ids past the fast ones) checks it
// before trusting a byte of it. (A fast id's trampoline does not read it:
// fasttramp_test.go.)
func TestGoFunctionWithReplacedUpvalueIsAnError(t *testing.T) {
	e := newEnv(t)
	burnFastIDs(t, e)
	calls := 0
	must(t, e.SetGlobal("f", func() { calls++ }))
	must(t, e.SetGlobal("g", func() int { return 7 }))
	must(t, e.SetGlobal("obj", &Player{}))
	must(t, e.SetGlobal("v", Vec3{}))
	run(t, e, `
		local values = {1, 2.5, "a string of exactly thirty-two b", {}, io.stdout, obj, v,
			function() end, coroutine.create(function() end), true}
		if newproxy then values[#values + 1] = newproxy(false) end
		values[#values + 1] = debug.upvalueid(print and function() return values end, 1)
		for i, x in ipairs(values) do
			local h = load(string.dump(function() end)) and nil
			local ok, err
			local fresh = f
			assert(debug.setupvalue(fresh, 1, x) == "")
			ok, err = pcall(fresh)
			assert(not ok and err:find("attempt to call a Go function whose upvalue was replaced", 1, true),
				i .. ": " .. tostring(err))
		end
		-- nil too
		debug.setupvalue(f, 1, nil)
		local ok, err = pcall(f)
		assert(not ok and err:find("upvalue was replaced", 1, true), err)
	`)
	if calls != 0 {
		t.Fatalf("f ran %d times with a foreign upvalue", calls)
	}
	// Another Go function's sentinel of this state is a valid sentinel:
	// the closure then calls that function.
	run(t, e, `
		local _, s = debug.getupvalue(g, 1)
		local h = function() end
		assert(type(s) == "userdata")
	`)
}

// A non-blittable struct's copy changes only through its __newindex:
// scalar fields read once are served from a cache without Go calls, and a
// write forgets the cached value.
func TestCompanionScalarFieldsAreCached(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("r", Record{Name: "ann", Tags: []string{"a"}, N: 3}))
	if n := goCalls(t, e, `assert(r.Name == "ann" and r.N == 3)`); n != 2 {
		t.Errorf("first reads made %d Go calls, want 2", n)
	}
	if n := goCalls(t, e, `for i = 1, 10000 do assert(r.Name == "ann" and r.N == 3) end`); n != 0 {
		t.Errorf("cached reads made %d Go calls", n)
	}
	run(t, e, `
		r.Name = "bob"; r.N = "4"
		assert(r.Name == "bob" and r.N == 4, "a write forgets the cached value")
		local t1 = r.Tags
		t1[1] = "changed"
		assert(r.Tags[1] == "a", "tables are copies, never cached")
		assert(r.Tags ~= r.Tags)
		local ok, err = pcall(function() r.N = "x" end)
		assert(not ok and err:find("number expected, got string"), err)
		assert(r.N == 4, "a refused write keeps the cache")
		assert(r:Summary() == "bob:a")
	`)
	var got Record
	must(t, e.Global("r", &got))
	if got.Name != "bob" || got.N != 4 {
		t.Errorf("Go reads %+v", got)
	}
	// Another copy has its own cache.
	must(t, e.SetGlobal("r2", Record{Name: "cid"}))
	run(t, e, `assert(r2.Name == "cid" and r.Name == "bob")`)
}

func TestTypedOpaqueCallAllocatesNothing(t *testing.T) {
	e := newEnv(t)
	run(t, e, `local get = zlua.get_opaquevalue
		function f(h) return get(h).X end
		function bump(h) local v = get(h); v.X = v.X + 1; zlua.set_opaquevalue(h, v) end`)
	var f func(any) (float64, error)
	var bump func(any) error
	must(t, e.GetFunction("f", &f))
	must(t, e.GetFunction("bump", &bump))
	p := &Vec3{X: 1}
	if x, err := f(zlua.Opaque(p)); err != nil || x != 1 {
		t.Fatalf("f = %v, %v", x, err)
	}
	allocs := testing.AllocsPerRun(1000, func() {
		if x, err := f(zlua.Opaque(p)); err != nil || x != p.X {
			t.Fatalf("f = %v, %v", x, err)
		}
		if err := bump(zlua.Opaque(p)); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("typed opaque calls allocated %v times per round", allocs)
	}
	if p.X != 1002 {
		t.Errorf("p.X = %v, want 1002", p.X)
	}
}

func TestAnyArgumentDelegates(t *testing.T) {
	e := newEnv(t)
	run(t, e, `
		function kind(x) return type(x) end
		function num(x) return x end
		function fail(x) error("bad " .. tostring(x), 0) end
		function truthy(x) return x ~= nil end`)
	var kind func(any) error
	var num func(any) float64
	var numE func(any) (float64, error)
	var toInt func(any) (int, error)
	var toIntP func(any) int
	var truthy func(any) bool
	var truthyE func(any) (bool, error)
	var fail func(any)
	for name, p := range map[string]any{"kind": &kind, "num": &num, "fail": &fail, "truthy": &truthy} {
		must(t, e.GetFunction(name, p))
	}
	must(t, e.GetFunction("num", &numE))
	must(t, e.GetFunction("num", &toInt))
	must(t, e.GetFunction("num", &toIntP))
	must(t, e.GetFunction("truthy", &truthyE))
	if err := kind(&Player{}); err != nil {
		t.Fatal(err)
	}
	if v := num(2.5); v != 2.5 {
		t.Errorf("num = %v", v)
	}
	if v, err := toInt(7); err != nil || v != 7 || toIntP(8) != 8 {
		t.Errorf("toInt = %v, %v", v, err)
	}
	if _, err := toInt(1.5); err == nil || !strings.Contains(err.Error(), `call "num": result #1: number has no integer representation`) {
		t.Errorf("toInt(1.5) err = %v", err)
	}
	if _, err := numE("x"); err == nil || !strings.Contains(err.Error(), "result #1: number expected, got string") {
		t.Errorf("numE(x) err = %v", err)
	}
	if v, err := truthyE(nil); err != nil || v || !truthy(1) {
		t.Errorf("truthy(nil) = %v, %v", v, err)
	}
	if _, err := numE(complex(1, 2)); !errors.Is(err, zlua.ErrCannotPush) {
		t.Errorf("numE(complex) err = %v", err)
	}
	func() {
		defer func() {
			r := recover()
			if err, ok := r.(error); !ok || !strings.Contains(err.Error(), "bad 3") {
				t.Errorf("fail panicked with %v", r)
			}
		}()
		fail(3)
	}()
}

func TestOneShotGlobalsAllocateNothing(t *testing.T) {
	e := newEnv(t)
	var v any = Vec3{1, 2, 3}
	var n int
	var f float64
	var b bool
	var s string
	allocs := testing.AllocsPerRun(1000, func() {
		must(t, e.SetGlobal("v", v))
		must(t, e.SetGlobal("n", 42))
		must(t, e.SetGlobal("f", 0.5))
		must(t, e.SetGlobal("b", true))
		must(t, e.Global("n", &n))
		must(t, e.Global("f", &f))
		must(t, e.Global("b", &b))
	})
	if allocs != 0 {
		t.Errorf("SetGlobal/Global of scalars allocated %v times per round", allocs)
	}
	run(t, e, `s = "str"; tbl = {1, {2, {3}}}; assert(v.Y == 2)`)
	must(t, e.Global("s", &s))
	var tbl []any
	must(t, e.Global("tbl", &tbl))
	if n != 42 || f != 0.5 || !b || s != "str" || len(tbl) != 2 {
		t.Errorf("read %v %v %v %q %v", n, f, b, s, tbl)
	}
	if top := e.Stats(); top.LiveObjects < 0 {
		t.Fatal(top)
	}
	// A global whose lookup raises (a metamethod on _G) is an error.
	run(t, e, `setmetatable(_G, {__index = function(_, k) error("no global " .. k, 0) end})`)
	if err := e.Global("missing", &n); err == nil || !strings.Contains(err.Error(), `zlua: global "missing": no global missing`) {
		t.Errorf("Global(missing) err = %v", err)
	}
	run(t, e, `setmetatable(_G, nil)`)
}

// Numbers keep their subtype through the gate (Lua 5.4), read with one
// or two API calls.
func TestNumbersKeepTheirSubtype(t *testing.T) {
	e := newEnv(t)
	var got []any
	must(t, e.SetGlobal("see", func(xs ...any) { got = xs }))
	must(t, e.SetGlobal("add", func(a, b int) int { return a + b }))
	run(t, e, `assert(add(2, 3.0) == 5)`)
	if err := e.DoString(`add(2, 0.5)`); err == nil || !strings.Contains(err.Error(), "number has no integer representation") {
		t.Errorf("add(2, 0.5) err = %v", err)
	}
	run(t, e, `local nan = 0/0; see(nan, 0.25)`)
	if x, ok := got[0].(float64); !ok || !math.IsNaN(x) || got[1] != 0.25 {
		t.Errorf("NaN, 0.25 arrived as %T %v, %T %v", got[0], got[0], got[1], got[1])
	}
	if !strings.HasPrefix(zlua.Backend, "Lua 5.4") {
		return // LuaJIT numbers are doubles: no subtype to keep
	}
	run(t, e, `assert(add(math.maxinteger, 0) == math.maxinteger)
		see(1, 1.0, -0.0, 2^53, math.maxinteger, math.mininteger, 1/0, -1/0, 0.5, 9007199254740993)`)
	want := []any{int64(1), float64(1), math.Copysign(0, -1), float64(1 << 53), int64(math.MaxInt64),
		int64(math.MinInt64), math.Inf(1), math.Inf(-1), 0.5, int64(9007199254740993)}
	for i := range want {
		if got[i] != want[i] || (i == 2 && !math.Signbit(got[i].(float64))) {
			t.Errorf("argument %d: got %T %v, want %T %v", i+1, got[i], got[i], want[i], want[i])
		}
	}
}

// The trampoline no longer reserves stack on every call: Go reserves what
// nested values need, and calls with many arguments still work.
func TestStackReservedWhereNeeded(t *testing.T) {
	e := newEnv(t)
	var depth, count int
	must(t, e.SetGlobal("nested", func(x any) {
		depth = 0
		for {
			s, ok := x.([]any)
			if !ok || len(s) == 0 {
				break
			}
			depth++
			x = s[0]
		}
	}))
	must(t, e.SetGlobal("many", func(xs ...int) { count = len(xs) }))
	run(t, e, `
		local t = {}
		for i = 1, 60 do t = {t} end
		nested(t)
		local unpack = table.unpack or unpack
		many(unpack((function() local a = {} for i = 1, 300 do a[i] = i end return a end)()))
		deep = t
	`)
	if depth != 60 || count != 300 {
		t.Errorf("depth %d, count %d", depth, count)
	}
	var deep []any
	must(t, e.Global("deep", &deep))
}

// A Go→Lua call whose argument is an object Lua still holds finds its
// userdata in the cache without leaving the unprotected fast path; one
// whose userdata is gone gets a new one on the protected path.
func TestCallWithHeldAndDroppedObjects(t *testing.T) {
	e := newEnv(t)
	run(t, e, `function same(o) return rawequal(o, held) end
		function hp(o) return o.HP end`)
	var same func(any) (bool, error)
	var hp func(any) (int, error)
	must(t, e.GetFunction("same", &same))
	must(t, e.GetFunction("hp", &hp))
	p := &Player{HP: 4}
	must(t, e.SetGlobal("held", p))
	for i := 0; i < 3; i++ {
		if ok, err := same(p); err != nil || !ok {
			t.Fatalf("same(p) = %v, %v", ok, err)
		}
	}
	q := &Player{HP: 9}
	for i := 0; i < 50; i++ {
		if v, err := hp(q); err != nil || v != 9 {
			t.Fatalf("hp(q) = %v, %v", v, err)
		}
		run(t, e, `collectgarbage()`) // q's userdata dies between calls
	}
	if ok, err := same(q); err != nil || ok {
		t.Fatalf("same(q) = %v, %v", ok, err)
	}
}
