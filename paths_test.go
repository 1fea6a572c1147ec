package zlua_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// Global, SetGlobal and GetFunction follow dotted paths, indexing as Lua
// does; a nil or unindexable value on the way is an error naming the path.
func TestDottedPaths(t *testing.T) {
	e := newEnv(t)
	run(t, e, `
		Shop = {items = {sword = 10}, count = 3}
		function Shop.buy(item) return "bought " .. item end
		Lazy = setmetatable({}, {__index = function(_, k) return {deep = k .. "!"} end})
		Guarded = setmetatable({}, {__newindex = function(t, k, v) rawset(t, k, v * 2) end,
			__index = function() error("guarded read") end})`)
	var price int
	must(t, e.Global("Shop.items.sword", &price))
	var missing any
	must(t, e.Global("Shop.items.axe", &missing))
	var deep string
	must(t, e.Global("Lazy.anything.deep", &deep))
	if price != 10 || missing != nil || deep != "anything!" {
		t.Errorf("Global paths: %d %v %q", price, missing, deep)
	}
	var buy func(string) string
	must(t, e.GetFunction("Shop.buy", &buy))
	if got := buy("axe"); got != "bought axe" {
		t.Errorf("Shop.buy = %q", got)
	}
	must(t, e.SetGlobal("Shop.items.axe", 7))
	must(t, e.SetGlobal("Guarded.x", 21))
	run(t, e, `assert(Shop.items.axe == 7 and rawget(Guarded, "x") == 42)`)

	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"Nope.x", e.Global("Nope.x", &missing), `zlua: global "Nope.x": attempt to index a nil value (Nope)`},
		{"Shop.count.x", e.Global("Shop.count.x", &missing), `zlua: global "Shop.count.x": attempt to index a number value (Shop.count)`},
		{"Shop.nope.x.y", e.SetGlobal("Shop.nope.x.y", 1), `zlua: set global "Shop.nope.x.y": attempt to index a nil value (Shop.nope)`},
		{"Shop.count.x=", e.SetGlobal("Shop.count.x", 1), `zlua: set global "Shop.count.x": attempt to index a number value (Shop.count)`},
		{"Shop.nope.f", e.GetFunction("Shop.nope.f", &buy), `zlua: get function "Shop.nope.f": attempt to index a nil value (Shop.nope)`},
		{"Shop.count", e.GetFunction("Shop.count", &buy), `zlua: get function "Shop.count": function expected, got number`},
		{"Shop..x", e.Global("Shop..x", &missing), `zlua: global "Shop..x": empty name segment`},
		{"Shop.", e.SetGlobal("Shop.", 1), `zlua: set global "Shop.": empty name segment`},
		{".x", e.SetGlobal(".x", 1), `zlua: set global ".x": empty name segment`},
	} {
		if c.err == nil || c.err.Error() != c.want {
			t.Errorf("%s: %v\nwant %s", c.name, c.err, c.want)
		}
	}
	// Metamethods raise under protection: a *LuaError, the Env intact.
	var le *zlua.LuaError
	if err := e.Global("Guarded.y.z", &missing); !errors.As(err, &le) || !strings.Contains(le.Message, "guarded read") {
		t.Errorf("__index error on a path = %v", err)
	}
	if top := e.Stats(); top.GoCalls != 0 {
		t.Errorf("GoCalls = %d", top.GoCalls)
	}
	run(t, e, `assert(Shop.count == 3)`)
}

// A dotted path is walked in place (outside probe C2-F8): reading a
// number four levels down allocates nothing, and the errors name the path
// so far as before.
func TestDottedPathsAllocateNothing(t *testing.T) {
	e := newEnv(t)
	run(t, e, `Cfg = {game = {rules = {max = 7}}}`)
	var n int
	for bad, want := range map[string]string{
		".a":                   `global ".a": empty name segment`,
		"a.":                   `global "a.": empty name segment`,
		"a..b":                 `global "a..b": empty name segment`,
		"Cfg.x.y":              "attempt to index a nil value (Cfg.x)",
		"Cfg.game.rules.max.z": "attempt to index a number value (Cfg.game.rules.max)",
	} {
		if err := e.Global(bad, &n); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", bad, err, want)
		}
	}
	must(t, e.Global("Cfg.game.rules.max", &n))
	if n != 7 {
		t.Fatalf("n = %d", n)
	}
	if raceEnabled {
		return
	}
	if a := testing.AllocsPerRun(100, func() { must(t, e.Global("Cfg.game.rules.max", &n)) }); a != 0 {
		t.Errorf("%.1f allocations per read, want 0 (3 with split and join)", a)
	}
}
