package zlua_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// callCounter is a Go object Lua calls through its __call metamethod.
type callCounter struct{ N int }

// TestTableMethodBindsCallableValues: a method whose value is a table or a
// userdata with __call binds, and calling the binding passes the value,
// the receiver and the arguments to __call exactly as t:name(...) does in
// the same script (stock lua5.4 and luajit agree). Before, Method refused
// both ("function expected, got table").
func TestTableMethodBindsCallableValues(t *testing.T) {
	e := newEnv(t)
	must(t, zlua.Metamethods[*callCounter](e, map[string]any{
		"__call": func(c *callCounter, recv map[string]any, k int) int { c.N += k; return c.N + len(recv) },
	}))
	counter := &callCounter{}
	must(t, e.SetGlobal("counter", counter))
	run(t, e, `
		callee = setmetatable({}, {__call = function(self, recv, a, b)
			return rawequal(self, callee), recv.tag, a + b
		end})
		Shop = {tag = "shop", buy = callee, count = counter}
		-- inherited through __index, as a method a class table provides
		Base = {sell = callee}
		Kid = setmetatable({tag = "kid"}, {__index = Base})
		lua_direct = {Shop:buy(2, 3)}`)
	var shop, kid *zlua.Table
	must(t, e.Global("Shop", &shop))
	must(t, e.Global("Kid", &kid))
	defer shop.Release()
	defer kid.Release()

	var buy func(a, b int) (bool, string, int, error)
	must(t, shop.Method("buy", &buy))
	self, tag, sum, err := buy(2, 3)
	must(t, err)
	if !self || tag != "shop" || sum != 5 {
		t.Errorf("buy(2, 3) = %v, %q, %d; want true (the callable itself first), \"shop\" (the receiver), 5", self, tag, sum)
	}
	direct := global[[]any](t, e, "lua_direct")
	if len(direct) != 3 || direct[0] != true || direct[1] != "shop" || direct[2] != int64(5) {
		t.Errorf("Shop:buy(2, 3) in Lua = %v: the test's expectation is not stock Lua's", direct)
	}

	var sell *zlua.Function
	must(t, kid.Method("sell", &sell))
	defer sell.Release()
	out, err := sell.Call(10, 20)
	must(t, err)
	if len(out) != 3 || out[0] != true || out[1] != "kid" || out[2] != int64(30) {
		t.Errorf("inherited callable sell(10, 20) = %v, want [true kid 30]", out)
	}
	// pushed back into Lua, the handle is the method's value
	must(t, e.SetGlobal("sell_back", sell))
	var same bool
	must(t, e.Eval("return rawequal(sell_back, callee)", &same))
	if !same {
		t.Error("the *Function of a callable table pushed back is not that table")
	}

	// a Go object (a userdata) with __call
	var count func(k int) (int, error)
	must(t, shop.Method("count", &count))
	n, err := count(4)
	must(t, err)
	if counter.N != 4 || n != 4+3 { // the receiver Shop has 3 fields
		t.Errorf("count(4) = %d, counter.N = %d; want 7, 4", n, counter.N)
	}
}

// TestTableMethodLooksUpCallAtEachCall: the binding holds the callable
// value, and Lua finds its __call at each call, as a script calling
// t:name() again would: a changed __call is obeyed, a removed one is
// Lua's error at the call (the binding stays usable once it is back).
func TestTableMethodLooksUpCallAtEachCall(t *testing.T) {
	e := newEnv(t)
	run(t, e, `
		mt = {__call = function(self, recv, x) return "first " .. x end}
		T = {m = setmetatable({}, mt)}`)
	var tb *zlua.Table
	must(t, e.Global("T", &tb))
	defer tb.Release()
	var m func(string) (string, error)
	must(t, tb.Method("m", &m))
	if s, err := m("a"); err != nil || s != "first a" {
		t.Fatalf("m(a) = %q, %v", s, err)
	}
	run(t, e, `mt.__call = function(self, recv, x) return "second " .. x end`)
	if s, err := m("b"); err != nil || s != "second b" {
		t.Errorf("after the script changed __call: m(b) = %q, %v; want \"second b\"", s, err)
	}
	run(t, e, `mt.__call = nil`)
	_, err := m("c")
	var le *zlua.LuaError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "attempt to call a table value") {
		t.Errorf("after the script removed __call: %v, want the Lua error \"attempt to call a table value\"", err)
	}
	// __call set to something that is not a function: bound (Lua's own
	// check at t:m() passes too), and the call fails as stock's does
	run(t, e, `mt.__call = 42`)
	if _, err := m("d"); !errors.As(err, &le) || !strings.Contains(err.Error(), "attempt to call") {
		t.Errorf("__call = 42: %v, want a Lua \"attempt to call\" error", err)
	}
	run(t, e, `mt.__call = function(self, recv, x) return "third " .. x end`)
	if s, err := m("e"); err != nil || s != "third e" {
		t.Errorf("after __call came back: m(e) = %q, %v", s, err)
	}
	var again func(string) (string, error)
	must(t, tb.Method("m", &again)) // __call = 42 at bind time would bind too
	if s, err := again("f"); err != nil || s != "third f" {
		t.Errorf("rebound m(f) = %q, %v", s, err)
	}
}

// TestTableMethodRefusesValuesLuaCannotCall: the error names the method
// in Lua 5.4's words for t:name() (the same on both backends), and
// honours __name as Lua's does.
func TestTableMethodRefusesValuesLuaCannotCall(t *testing.T) {
	e := newEnv(t)
	run(t, e, `T = {n = 42, s = "x", plain = {}, named = setmetatable({}, {__name = "Widget"}),
		nocall = setmetatable({}, {__index = function() return 1 end})}`)
	var tb *zlua.Table
	must(t, e.Global("T", &tb))
	defer tb.Release()
	for name, want := range map[string]string{
		"missing": "attempt to call a nil value (method 'missing')",
		"n":       "attempt to call a number value (method 'n')",
		"s":       "attempt to call a string value (method 's')",
		"plain":   "attempt to call a table value (method 'plain')",
		"named":   "attempt to call a Widget value (method 'named')",
		"nocall":  "attempt to call a table value (method 'nocall')",
	} {
		var f func() error
		err := tb.Method(name, &f)
		if err == nil || err.Error() != `zlua: table method "`+name+`": `+want {
			t.Errorf("Method(%q) = %v, want %q", name, err, want)
		}
		if f != nil {
			t.Errorf("Method(%q) failed but set the func", name)
		}
	}
	// a string whose metatable (shared by all strings) gains __call is
	// callable for Lua, and so for Method
	run(t, e, `debug.setmetatable("", {__index = string, __call = function(s, recv) return s .. "!" end})`)
	var s func() (string, error)
	must(t, tb.Method("s", &s))
	if got, err := s(); err != nil || got != "x!" {
		t.Errorf("string with __call: %q, %v", got, err)
	}
}
