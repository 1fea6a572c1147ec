package zlua_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// handleHolder carries handles in fields, by pointer (ByObj) and by value
// (ByVal, a companion copy).
type handleHolder struct {
	Fn *zlua.Function
	T  *zlua.Table
}

// handleShop returns handles from methods: the pointer-result method
// shape must not serve handle types.
type handleShop struct {
	fn *zlua.Function
	tb *zlua.Table
}

func (s *handleShop) Handler() *zlua.Function { return s.fn }
func (s *handleShop) Stock() *zlua.Table      { return s.tb }
func (s *handleShop) Any() any                { return s.fn }

// handleFixture makes target (a function) and tbl (a table) in e and
// handles on both.
func handleFixture(t *testing.T, e *zlua.Env) (*zlua.Function, *zlua.Table) {
	t.Helper()
	run(t, e, `function target() return "hit" end; tbl = {n = 7}`)
	var f *zlua.Function
	must(t, e.GetFunction("target", &f))
	var tb *zlua.Table
	must(t, e.Global("tbl", &tb))
	return f, tb
}

// Every way a *Function or *Table reaches Lua from its own Env gives the
// Lua value itself: ret()() works and rawequal holds (issue 11 item 2).
func TestHandlePushedBackIsItsLuaValue(t *testing.T) {
	e := newEnv(t)
	f, tb := handleFixture(t, e)
	shop := &handleShop{fn: f, tb: tb}
	must(t, e.SetGlobal("shop", shop))
	must(t, e.SetGlobal("holder", &handleHolder{Fn: f, T: tb}))
	must(t, e.SetGlobal("holderVal", handleHolder{Fn: f, T: tb}))
	must(t, e.SetGlobal("api", map[string]any{
		"fn":       func() *zlua.Function { return f },
		"tb":       func() *zlua.Table { return tb },
		"anyFn":    func() any { return f },
		"anyTb":    func() any { return tb },
		"two":      func() (*zlua.Function, *zlua.Table) { return f, tb },
		"fnErr":    func() (*zlua.Function, error) { return f, nil },
		"slice":    func() []*zlua.Function { return []*zlua.Function{f, f} },
		"anySlice": func() []any { return []any{f, tb} },
		"tbMap":    func() map[string]*zlua.Table { return map[string]*zlua.Table{"k": tb} },
		"viewed":   func() any { return zlua.AsView[any](f) },
		"byInt":    func(int) *zlua.Function { return f },
	}))
	must(t, e.SetGlobal("direct", f))
	must(t, e.SetGlobal("directT", tb))
	run(t, e, `
		local function isF(x, how) assert(rawequal(x, target), how .. ": " .. tostring(x)); assert(x() == "hit", how) end
		local function isT(x, how) assert(rawequal(x, tbl), how .. ": " .. tostring(x)); assert(x.n == 7, how) end
		isF(api.fn(), "typed result"); isT(api.tb(), "typed table result")
		isF(api.anyFn(), "any result"); isT(api.anyTb(), "any table result")
		local a, b = api.two(); isF(a, "first of two"); isT(b, "second of two")
		isF(api.fnErr(), "result before error")
		isF(api.slice()[2], "slice element")
		local s = api.anySlice(); isF(s[1], "[]any element"); isT(s[2], "[]any table element")
		isT(api.tbMap().k, "map element")
		isF(api.viewed(), "AsView")
		isF(api.byInt(1), "func(int) *Function")
		isF(shop:Handler(), "method result"); isT(shop:Stock(), "method table result")
		isF(shop:Any(), "method any result")
		isF(holder.Fn, "pointer struct field"); isT(holder.T, "pointer struct table field")
		isF(holderVal.Fn, "value struct field"); isT(holderVal.T, "value struct table field")
		isF(direct, "SetGlobal"); isT(directT, "SetGlobal table")
		function take(x, y) return rawequal(x, target) and rawequal(y, tbl) end
		function takeAny(x) return rawequal(x, target) end
	`)
	// As arguments of Go→Lua calls: typed funcs (reflective plans) and Call.
	var take func(*zlua.Function, *zlua.Table) (bool, error)
	must(t, e.GetFunction("take", &take))
	if ok, err := take(f, tb); err != nil || !ok {
		t.Errorf("typed-func arguments: %v, %v", ok, err)
	}
	var takeAny func(any) bool
	must(t, e.GetFunction("takeAny", &takeAny))
	if !takeAny(f) {
		t.Error("any argument is not the function")
	}
	if out, err := (mustFunc(t, e, "take")).Call(f, tb); err != nil || out[0] != true {
		t.Errorf("Call arguments: %v, %v", out, err)
	}
	// Written from Lua into handle fields, then read back.
	run(t, e, `holder.Fn = function() return "new" end; assert(holder.Fn() == "new")`)
	if out, err := shop.fn.Call(); err != nil || out[0] != "hit" {
		t.Errorf("original handle after field write: %v, %v", out, err)
	}
}

func mustFunc(t *testing.T, e *zlua.Env, name string) *zlua.Function {
	t.Helper()
	var f *zlua.Function
	must(t, e.GetFunction(name, &f))
	return f
}

// A handle of one Env is refused by another wherever it would cross, and a
// LibsSafe script of that Env never gets anything it could call Call or
// Release on.
func TestHandleRefusedByAnotherEnv(t *testing.T) {
	a := newEnv(t)
	f, tb := handleFixture(t, a)
	b, err := zlua.New(zlua.Options{Libs: zlua.LibsSafe})
	must(t, err)
	defer b.Close()
	for name, v := range map[string]any{"f": f, "tb": tb, "slice": []any{f}, "map": map[string]any{"t": tb}} {
		if err := b.SetGlobal(name, v); err == nil || !strings.Contains(err.Error(), "another Env") {
			t.Errorf("SetGlobal(%s) into another Env = %v", name, err)
		}
	}
	must(t, b.SetGlobal("leak", map[string]any{
		"fn":    func() *zlua.Function { return f },
		"tb":    func() *zlua.Table { return tb },
		"any":   func() any { return f },
		"slice": func() []*zlua.Function { return []*zlua.Function{f} },
		"obj":   func() *handleHolder { return &handleHolder{Fn: f} },
		"shop":  func() *handleShop { return &handleShop{fn: f, tb: tb} },
	}))
	run(t, b, `
		local function refused(how, ...)
			local ok, err = pcall(...)
			assert(not ok, how .. " crossed: " .. tostring(err))
			assert(tostring(err):find("another Env", 1, true), how .. ": " .. tostring(err))
		end
		refused("typed result", leak.fn)
		refused("table result", leak.tb)
		refused("any result", leak.any)
		refused("slice element", leak.slice)
		refused("struct field", function() return leak.obj().Fn end)
		refused("method result", function() return leak.shop():Handler() end)
		refused("method table result", function() return leak.shop():Stock() end)
	`)
	run(t, b, `function fromGo(x) return x end`)
	var echo func(*zlua.Function) (any, error)
	must(t, b.GetFunction("fromGo", &echo))
	if _, err := echo(f); err == nil || !strings.Contains(err.Error(), "another Env") {
		t.Errorf("another Env's handle as a typed-func argument = %v", err)
	}
	// A's handles still work in A.
	if out, err := f.Call(); err != nil || out[0] != "hit" {
		t.Errorf("A's handle after the refusals: %v, %v", out, err)
	}
}

// No handle type ever reaches Lua as an object with methods: copies of the
// handle structs and opaque handles of them are refused.
func TestHandleNeverAnObjectWithMethods(t *testing.T) {
	e := newEnv(t)
	f, tb := handleFixture(t, e)
	for name, v := range map[string]any{
		"function value": *f, "table value": *tb,
		"opaque function": zlua.Opaque(f), "opaque table": zlua.Opaque(tb),
	} {
		if err := e.SetGlobal("x", v); !errors.Is(err, zlua.ErrCannotPush) {
			t.Errorf("SetGlobal(%s) = %v, want ErrCannotPush", name, err)
		}
	}
	must(t, e.SetGlobal("copyOf", func() zlua.Function { return *f }))
	run(t, e, `local ok, err = pcall(copyOf)
		assert(not ok and err:find("cannot push", 1, true), tostring(err))
		assert(type(target) == "function" and getmetatable(target) == nil)`)
}
