package zlua

import (
	"strings"
	"testing"
)

// TestTypedScalarCallsPassReceiverArgumentsAndResults covers the typed
// funcs served by one cgo call with their scalar arguments in C memory
// (cgo/call.c, zlua_callscalars): a bound method gets its receiver first,
// integers and floats keep their subtype, a result that must stay on the
// stack (a string) is read from the right slot, errors carry the Lua
// message, and the stack is left as found, at top level and inside a Go
// function Lua called.
func TestTypedScalarCallsPassReceiverArgumentsAndResults(t *testing.T) {
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.DoString(`
		Mod = {scale = 3}
		function Mod:mul(a, b) return a * b * self.scale end
		local mtype = math.type or function(x) return type(x) == "number" and "float" or nil end -- LuaJIT: no integers
		function types(a, b) return mtype(a) .. "," .. mtype(b) end
		function str(a, b) return tostring(a + b) end
		function fail(x) error("bad x " .. tostring(x)) end
		function set(x) last = x end`); err != nil {
		t.Fatal(err)
	}
	var mod *Table
	if err := e.Global("Mod", &mod); err != nil {
		t.Fatal(err)
	}
	defer mod.Release()
	var mul, str func(int, int) (int, error)
	var fail func(float64) error
	var setI func(int) error
	var setF func(float64)
	var none func() error
	if err := mod.Method("mul", &mul); err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]any{"str": &str, "fail": &fail, "set": &setF, "types": &none} {
		if err := e.GetFunction(name, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.GetFunction("set", &setI); err != nil {
		t.Fatal(err)
	}
	check := func(where string) {
		t.Helper()
		before := e.stackTop()
		if v, err := mul(2, 5); err != nil || v != 30 {
			t.Errorf("%s: bound mul(2, 5) = %d, %v; want 30 (receiver first)", where, v, err)
		}
		if v, err := str(3, 4); err != nil || v != 7 {
			t.Errorf("%s: str(3, 4) = %d, %v; want 7 from the string result", where, v, err)
		}
		if err := fail(1.5); err == nil || !strings.Contains(err.Error(), "bad x 1.5") {
			t.Errorf("%s: fail(1.5) = %v", where, err)
		}
		big, want := int64(1<<60), any(int64(1<<60))
		if strings.HasPrefix(Backend, "LuaJIT") {
			big, want = 1<<40, int64(1<<40) // a double holds it exactly
		}
		if err := setI(int(big)); err != nil {
			t.Errorf("%s: setI: %v", where, err)
		}
		var got any
		if err := e.Global("last", &got); err != nil || got != want {
			t.Errorf("%s: last = %#v, %v after setI(%d)", where, got, err, big)
		}
		setF(0.25)
		if err := e.Global("last", &got); err != nil || got != 0.25 {
			t.Errorf("%s: last = %#v, %v after setF(0.25)", where, got, err)
		}
		if err := none(); err == nil || !strings.Contains(err.Error(), "concatenate") {
			t.Errorf("%s: types() with no arguments = %v", where, err)
		}
		if after := e.stackTop(); after != before {
			t.Errorf("%s: stack top %d -> %d", where, before, after)
		}
	}
	check("top level")
	if err := e.SetGlobal("inside", func() { check("inside a Go function") }); err != nil {
		t.Fatal(err)
	}
	if err := e.DoString(`inside()`); err != nil {
		t.Fatal(err)
	}
	var types func(int, float64) (string, error)
	if err := e.GetFunction("types", &types); err != nil {
		t.Fatal(err)
	}
	want := "integer,float"
	if strings.HasPrefix(Backend, "LuaJIT") {
		want = "float,float"
	}
	if s, err := types(1, 2); err != nil || s != want {
		t.Errorf("types(1, 2.0) = %q, %v", s, err)
	}
}
