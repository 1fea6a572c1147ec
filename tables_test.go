package zlua_test

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

func TestTableGetSetLen(t *testing.T) {
	e := newEnv(t)
	tb, err := e.NewTable()
	must(t, err)
	must(t, tb.Set("name", "orc"))
	must(t, tb.Set(1, 10))
	must(t, tb.Set(2, 20.5))
	must(t, tb.Set("tags", []string{"a", "b"}))
	must(t, tb.Set("heal", func(n int) int { return n + 1 }))
	must(t, e.SetGlobal("t", tb))
	run(t, e, `assert(t.name == "orc" and t[1] == 10 and t[2] == 20.5 and t.tags[2] == "b" and t.heal(1) == 2)
		t.hp = 42`)
	var name string
	var hp int
	var tags []string
	var missing any
	must(t, tb.Get("name", &name))
	must(t, tb.Get("hp", &hp))
	must(t, tb.Get("tags", &tags))
	must(t, tb.Get("nope", &missing))
	if name != "orc" || hp != 42 || !reflect.DeepEqual(tags, []string{"a", "b"}) || missing != nil {
		t.Errorf("Get: %q %d %v %v", name, hp, tags, missing)
	}
	if n, err := tb.Len(); err != nil || n != 2 {
		t.Errorf("Len = %d, %v", n, err)
	}
	must(t, tb.Set("name", nil)) // removes the key
	run(t, e, `assert(t.name == nil)`)
	if err := tb.Get("hp", &name); err != nil || name != "42" {
		t.Errorf("number read as a string = %q, %v", name, err)
	}
	if err := tb.Get("tags", &hp); err == nil || err.Error() != `zlua: table get "tags": number expected, got table` {
		t.Errorf("wrong type = %v", err)
	}
	if err := tb.Get("x", hp); err == nil || !strings.Contains(err.Error(), "non-nil pointer") {
		t.Errorf("non-pointer out = %v", err)
	}
}

// Get, Set and Len run metamethods, under protection: an error raised by
// one comes back as a *LuaError.
func TestTableMetamethods(t *testing.T) {
	e := newEnv(t)
	run(t, e, `
		log = {}
		proxy = setmetatable({}, {
			__index = function(_, k) return "default " .. k end,
			__newindex = function(t, k, v) log[#log + 1] = k; rawset(t, k, v) end,
			__len = function() return 99 end,
		})
		broken = setmetatable({}, {__index = function() error("no such key") end,
			__len = function() return 1.5 end})`)
	var proxy, broken *zlua.Table
	must(t, e.Global("proxy", &proxy))
	must(t, e.Global("broken", &broken))
	var s string
	must(t, proxy.Get("x", &s))
	if s != "default x" {
		t.Errorf("__index: %q", s)
	}
	must(t, proxy.Set("y", 1))
	run(t, e, `assert(log[1] == "y" and rawget(proxy, "y") == 1)`)
	if n, err := proxy.Len(); err != nil || n != 99 {
		t.Errorf("__len: %d, %v (LuaJIT's # skips __len for tables; Len must not)", n, err)
	}
	var le *zlua.LuaError
	if err := broken.Get("k", &s); !errors.As(err, &le) || !strings.Contains(le.Message, "no such key") {
		t.Errorf("__index error = %v", err)
	}
	if _, err := broken.Len(); err == nil || !strings.Contains(err.Error(), "object length is not an integer") {
		t.Errorf("__len with a float result = %v", err)
	}
	if top := e.Stats(); top.LiveRefs == 0 {
		t.Error("handles hold no refs")
	}
}

// Keys Lua cannot index with are refused with the same words on both
// backends.
func TestTableSetBadKeys(t *testing.T) {
	e := newEnv(t)
	tb, err := e.NewTable()
	must(t, err)
	for _, c := range []struct {
		key  any
		want string
	}{
		{nil, `zlua: table set [<nil>]: index is nil`},
		{math.NaN(), `zlua: table set [NaN]: index is NaN`},
		{float32(math.NaN()), `zlua: table set [NaN]: index is NaN`},
		{complex(1, 2), `zlua: table set [(1+2i)]: cannot push Go value of type complex128`},
	} {
		if err := tb.Set(c.key, 1); err == nil || err.Error() != c.want {
			t.Errorf("Set(%v) = %v, want %q", c.key, err, c.want)
		}
	}
	if err := tb.Set("k", complex(1, 2)); !errors.Is(err, zlua.ErrCannotPush) {
		t.Errorf("Set of a complex value = %v", err)
	}
}

// ForEach visits the pairs in Lua's next order, gives nested tables and
// functions as handles, and lets fn use the Env while it runs.
func TestTableForEach(t *testing.T) {
	e := newEnv(t)
	run(t, e, `
		cfg = {10, 20, name = "orc", nested = {x = 1}, f = function() return "f" end, [true] = "yes", [2.5] = "half"}
		order = {}
		for k in next, cfg do order[#order + 1] = tostring(k) end`)
	var cfg *zlua.Table
	must(t, e.Global("cfg", &cfg))
	var order []string
	must(t, e.Global("order", &order))
	var seen []string
	err := cfg.ForEach(func(k, v any) error {
		seen = append(seen, luaString(k))
		switch k {
		case "nested":
			nested, ok := v.(*zlua.Table)
			if !ok {
				return fmt.Errorf("nested table as %T", v)
			}
			var x int
			if err := nested.Get("x", &x); err != nil || x != 1 {
				return fmt.Errorf("nested.x = %d, %v", x, err)
			}
		case "f":
			f, ok := v.(*zlua.Function)
			if !ok {
				return fmt.Errorf("function as %T", v)
			}
			if out, err := f.Call(); err != nil || out[0] != "f" {
				return fmt.Errorf("f() = %v, %v", out, err)
			}
		case "name":
			if v != "orc" {
				return fmt.Errorf("name = %v", v)
			}
		}
		return cfg.Set("added", true) // the Env is usable inside fn
	})
	must(t, err)
	if !reflect.DeepEqual(seen, order) {
		t.Errorf("ForEach order %v, next order %v", seen, order)
	}
	run(t, e, `assert(cfg.added == true)`)

	stop := errors.New("stop")
	calls := 0
	if err := cfg.ForEach(func(k, v any) error { calls++; return stop }); err != stop || calls != 1 {
		t.Errorf("ForEach stopping = %v after %d calls", err, calls)
	}
	run(t, e, `bad = {ok = 1, co = io.stdout}`)
	var bad *zlua.Table
	must(t, e.Global("bad", &bad))
	calls = 0
	err = bad.ForEach(func(k, v any) error { calls++; return nil })
	if err == nil || !strings.Contains(err.Error(), `element ["co"]: cannot convert a FILE* to a Go value`) || calls != 0 {
		t.Errorf("unconvertible value = %v after %d calls", err, calls)
	}
}

// luaString spells a natural Go value as Lua's tostring would.
func luaString(v any) string {
	switch x := v.(type) {
	case float64:
		return fmt.Sprint(x)
	}
	return fmt.Sprint(v)
}

// Method binds t:name(...) to a typed Go func, finding methods inherited
// through __index.
func TestTableMethod(t *testing.T) {
	e := newEnv(t)
	run(t, e, `
		Base = {}
		Base.__index = Base
		function Base:buy(item, n) self.bought[#self.bought + 1] = item; return #self.bought * n end
		Shop = setmetatable({bought = {}, name = "Shop"}, Base)
		function Shop:named() return self.name end`)
	var shop *zlua.Table
	must(t, e.Global("Shop", &shop))
	var buy func(string, int) (int, error)
	must(t, shop.Method("buy", &buy))
	if n, err := buy("sword", 10); err != nil || n != 10 {
		t.Errorf("buy = %d, %v", n, err)
	}
	if n, err := buy("shield", 10); err != nil || n != 20 {
		t.Errorf("second buy = %d, %v", n, err)
	}
	var named *zlua.Function
	must(t, shop.Method("named", &named))
	if out, err := named.Call(); err != nil || out[0] != "Shop" {
		t.Errorf("named = %v, %v", out, err)
	}
	if named.Name() != ":named" {
		t.Errorf("Name = %q", named.Name())
	}
	var named2 func() string
	must(t, shop.Method("named", &named2))
	shop.Release() // the binding holds its own reference to the table
	if s := named2(); s != "Shop" {
		t.Errorf("method after the table handle's release = %q", s)
	}
	var nope func()
	if err := shop.Method("named", &nope); !errors.Is(err, zlua.ErrReleased) {
		t.Errorf("Method on a released table = %v", err)
	}
	must(t, e.Global("Shop", &shop))
	if err := shop.Method("missing", &nope); err == nil || err.Error() != `zlua: table method "missing": attempt to call a nil value (method 'missing')` {
		t.Errorf("missing method = %v", err)
	}
	if err := shop.Method("named", nope); err == nil || !strings.Contains(err.Error(), "want a pointer to a func variable") {
		t.Errorf("non-pointer = %v", err)
	}
	named.Release()
	if _, err := named.Call(); !errors.Is(err, zlua.ErrReleased) {
		t.Errorf("released method = %v", err)
	}
}

// Lua tables reach *Table parameters, Global and Get; nil is a nil handle;
// other values are refused; an any parameter still gets a copy.
func TestTableConversions(t *testing.T) {
	e := newEnv(t)
	var got *zlua.Table
	must(t, e.SetGlobal("keep", func(tb *zlua.Table) bool { got = tb; return tb != nil }))
	must(t, e.SetGlobal("copy", func(v any) string { return fmt.Sprintf("%T", v) }))
	run(t, e, `inv = {potion = 2}
		assert(keep(inv) == true and keep(nil) == false)
		local ok, err = pcall(keep, 5)
		assert(not ok and err:find("bad argument #1 to 'keep' (table expected, got number)", 1, true), err)
		assert(copy(inv) == "map[string]interface {}")`)
	run(t, e, `keep(inv)`)
	var n int
	if err := got.Get("potion", &n); err != nil || n != 2 {
		t.Errorf("table kept from a Go parameter: %d, %v", n, err)
	}
	var inv *zlua.Table
	must(t, e.Global("inv", &inv))
	must(t, inv.Set("potion", 3))
	must(t, got.Get("potion", &n)) // the same table
	if n != 3 {
		t.Errorf("two handles on one table disagree: %d", n)
	}
	var none *zlua.Table
	must(t, e.Global("nothing", &none))
	if none != nil {
		t.Error("nil read as a non-nil *Table")
	}
	if err := e.Global("n", &none); err != nil {
		t.Error(err)
	}
	run(t, e, `num = 5`)
	if err := e.Global("num", &none); err == nil || err.Error() != `zlua: global "num": table expected, got number` {
		t.Errorf("number into *Table = %v", err)
	}
}

// Globals is the global table whatever a script calls _G, and reads keys
// with dots raw.
func TestGlobalsTable(t *testing.T) {
	e := newEnv(t)
	run(t, e, `_G["a.b"] = 1; _G = nil`)
	g, err := e.Globals()
	must(t, err)
	var v int
	must(t, g.Get("a.b", &v))
	if v != 1 {
		t.Errorf(`_G["a.b"] = %d`, v)
	}
}

// A handle follows Function's lifetime rules: Release, Reset and Close make
// it fail cleanly; dropping it releases its reference at a Pump.
func TestTableLifetime(t *testing.T) {
	e := newEnv(t)
	base := e.Stats().LiveRefs
	tb, err := e.NewTable()
	must(t, err)
	if got := e.Stats().LiveRefs; got != base+1 {
		t.Errorf("LiveRefs = %d, want %d", got, base+1)
	}
	tb.Release()
	tb.Release()
	var x any
	for name, err := range map[string]error{
		"Get": tb.Get("k", &x), "Set": tb.Set("k", 1), "ForEach": tb.ForEach(func(k, v any) error { return nil }),
		"SetGlobal": e.SetGlobal("t", tb),
	} {
		if !errors.Is(err, zlua.ErrReleased) {
			t.Errorf("%s after Release = %v", name, err)
		}
	}
	if _, err := tb.Len(); !errors.Is(err, zlua.ErrReleased) {
		t.Errorf("Len after Release = %v", err)
	}
	must(t, e.Pump())
	if got := e.Stats().LiveRefs; got != base {
		t.Errorf("LiveRefs after Release and Pump = %d, want %d", got, base)
	}

	tb, err = e.NewTable()
	must(t, err)
	e.Reset(nil)
	must(t, e.Pump())
	if err := tb.Set("k", 1); !errors.Is(err, zlua.ErrStale) {
		t.Errorf("Set after Reset = %v", err)
	}
	tb, err = e.NewTable()
	must(t, err)
	must(t, e.Close())
	if err := tb.Get("k", &x); !errors.Is(err, zlua.ErrStale) {
		t.Errorf("Get after Close = %v", err)
	}
	var nilTable *zlua.Table
	if err := nilTable.Set("k", 1); err == nil || !strings.Contains(err.Error(), "nil handle") {
		t.Errorf("nil handle = %v", err)
	}
	var zero zlua.Table
	if err := zero.Set("k", 1); err == nil || !strings.Contains(err.Error(), "not made by an Env") {
		t.Errorf("zero handle = %v", err)
	}
}
