package zlua_test

import (
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// A table whose metatable has __call goes where Go wants a function: a
// func parameter, a *zlua.Function parameter, GetFunction (outside probe
// C1-F11; Table.Method already bound such values). Lua's own rule is
// followed: the metatable's __call is looked up raw, so an __index on the
// metatable does not make a value callable, and __metatable does not hide
// it.
func TestCallableTablesAreFunctions(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("apply", func(f func(int) int, x int) int { return f(x) }))
	must(t, e.SetGlobal("callHandle", func(f *zlua.Function, x int) (any, error) {
		defer f.Release()
		r, err := f.Call(x)
		if err != nil {
			return nil, err
		}
		return r[0], nil
	}))
	run(t, e, `
		Doubler = setmetatable({k = 2}, {__call = function(self, x) return x * self.k end})
		Locked = setmetatable({}, {__call = function(_, x) return x + 1 end, __metatable = "locked"})
		Indirect = setmetatable({}, setmetatable({}, {__index = {__call = function() return 0 end}}))
		Plain = {}
		assert(apply(Doubler, 21) == 42)
		assert(callHandle(Doubler, 5) == 10)
		assert(apply(Locked, 1) == 2)
	`)
	var f func(int) (int, error)
	must(t, e.GetFunction("Doubler", &f))
	if v, err := f(4); err != nil || v != 8 {
		t.Fatalf("GetFunction(Doubler)(4) = %v, %v", v, err)
	}
	for _, c := range []struct{ chunk, want string }{
		{`apply(Plain, 1)`, "bad argument #1 to 'apply' (function expected, got table)"},
		{`apply(Indirect, 1)`, "bad argument #1 to 'apply' (function expected, got table)"},
		{`callHandle(Plain, 1)`, "bad argument #1 to 'callHandle' (function expected, got table)"},
	} {
		err := e.DoString(c.chunk)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.chunk, err, c.want)
		}
	}
	for _, name := range []string{"Plain", "Indirect"} {
		var g func(int) (int, error)
		err := e.GetFunction(name, &g)
		if err == nil || !strings.Contains(err.Error(), "function expected, got table") {
			t.Errorf("GetFunction(%s): %v, want function expected", name, err)
		}
	}
	// A __call that is not callable itself fails at the call, with Lua's
	// error, as calling the table from Lua does.
	run(t, e, `Odd = setmetatable({}, {__call = true})`)
	var odd func() error
	must(t, e.GetFunction("Odd", &odd))
	if err := odd(); err == nil || !strings.Contains(err.Error(), "attempt to call") {
		t.Errorf("calling Odd: %v, want Lua's attempt to call", err)
	}
	run(t, e, `assert(not pcall(Odd))`)
	// zlua.to_delegate takes what Go's func parameters take (probe E1-M4:
	// it refused a __call of false and took one found through __index)
	run(t, e, `
		assert(zlua.to_delegate(Doubler) == Doubler and zlua.to_delegate(Odd) == Odd)
		local False = setmetatable({}, {__call = false})
		assert(zlua.to_delegate(False) == False)
		for _, v in ipairs({Plain, Indirect}) do
			local ok, err = pcall(zlua.to_delegate, v)
			assert(not ok and err:find("function expected, got table", 1, true), err)
		end`)
}
