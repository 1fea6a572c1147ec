package zlua_test

import (
	"strings"
	"testing"
)

// A Go function's argument errors name it as the call site does, as
// luaL_argerror names a C function: through a local, a field or a method
// call, the name written there; where the call has no name both backends
// spell alike (pcall, an iterator, a metamethod, a tail call), the name
// it was registered under. Go methods keep Type:Method.
func TestArgumentErrorsNameTheFunctionAsTheCallSiteDoes(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("add", func(a, b int) int { return a + b }))
	must(t, e.SetGlobal("mob", &wMob{HP: 10}))
	for _, c := range []struct{ chunk, want string }{
		{`add(1, "x")`, `(dostring):1: bad argument #2 to 'add' (number expected, got string)`},
		{`local g = add; g(1, "x")`, `(dostring):1: bad argument #2 to 'g' (number expected, got string)`},
		{`local g = add; (function() g(1, "x") end)()`, `(dostring):1: bad argument #2 to 'g' (number expected, got string)`},
		{`other = add; other("x")`, `(dostring):1: bad argument #1 to 'other' (number expected, got string)`},
		{`local t = {h = add}; t.h(1, {})`, `(dostring):1: bad argument #2 to 'h' (number expected, got table)`},
		{`local t = {h = add}; t:h(1)`, `(dostring):1: calling 'h' on bad self (number expected, got table)`},
		{`local t = {h = add}; local function f() t.h(1, true) end; f()`, `(dostring):1: bad argument #2 to 'h' (number expected, got boolean)`},
		{`for _, v in ipairs({1}) do local s = add; s(v, {}) end`, `(dostring):1: bad argument #2 to 's' (number expected, got table)`},
		{`local ok, err = pcall(add, 1, "x"); error(err, 0)`, `bad argument #2 to 'add' (number expected, got string)`},
		{`for k in add, "x" do end`, `(dostring):1: bad argument #1 to 'add' (number expected, got string)`},
		{`local t = setmetatable({}, {__index = add}); return t.x`, `(dostring):1: bad argument #1 to 'add' (number expected, got table)`},
		{`local m = mob.Hit; m(mob, "x")`, `(dostring):1: bad argument #1 to 'wMob:Hit' (number expected, got string)`},
		{`local alias = mob; alias:Hit("x")`, `(dostring):1: bad argument #1 to 'wMob:Hit' (number expected, got string)`},
	} {
		err := e.DoString(c.chunk)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v\nwant %q", c.chunk, err, c.want)
		}
	}
	// A table's __call is named by the table's variable on both backends.
	want := "(dostring):1: bad argument #1 to 'callee' (number expected, got table)"
	err := e.DoString(`local callee = setmetatable({}, {__call = add}); callee(2)`)
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("__call: %v\nwant %q", err, want)
	}
}
