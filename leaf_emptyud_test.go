package zlua_test

import (
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// TestLeafCallRefusesAnEmptyUserdataWithoutReadingIt: a leaf closure
// called with newproxy(true)'s empty userdata, whose metatable a script
// gave zlua's __metatable string, refuses it by its length before reading
// its payload. The probe puts an empty payload at the end of a readable
// page: before the length check the call read the header there and the
// process died (SIGSEGV). The script's view: the C closure's error.
func TestLeafCallRefusesAnEmptyUserdataWithoutReadingIt(t *testing.T) {
	e, err := zlua.New(zlua.Options{Libs: zlua.LibsAll})
	must(t, err)
	defer e.Close()
	must(t, e.SetGlobal("c", &goexitLeaf{At: 1 << 30}))
	run(t, e, "for i = 1, 10 do c:Step(1) end")
	got := zlua.LeafEmptyProbe(e)
	if strings.HasPrefix(zlua.Backend, "Lua 5.4") {
		if got != -1 {
			t.Fatalf("probe on %s: %d, want -1 (no leaf closures)", zlua.Backend, got)
		}
		return
	}
	if got != 0 {
		t.Fatalf("leaf call on an empty payload: %d, want 0 (refused)", got)
	}
	err = e.DoString(`
		local p = newproxy(true)
		getmetatable(p).__metatable = "zlua: protected metatable"
		local step = c.Step
		for i = 1, 100 do step(p, 1) end`)
	if err == nil || !strings.Contains(err.Error(), "on bad self (goexitLeaf expected, got userdata)") {
		t.Fatalf("leaf method with a forged receiver: %v, want the C closure's bad self", err)
	}
}

// TestFieldFunctionsRefuseAnEmptyUserdataWithoutReadingIt: the FFI
// functions behind LuaJIT's __index, __newindex and __eq closures
// (jitindex.c) check a userdata's length before reading its payload, as
// the leaf call does. The probe calls each with an empty payload at the
// end of a readable page: without the length check the first one read
// the header there and the process died (SIGSEGV). The script's view: a
// newproxy(true) userdata given zlua's __metatable string and passed to
// an object's closures gets the C closures' errors (and is equal to no
// object).
func TestFieldFunctionsRefuseAnEmptyUserdataWithoutReadingIt(t *testing.T) {
	e, err := zlua.New(zlua.Options{Libs: zlua.LibsAll})
	must(t, err)
	defer e.Close()
	must(t, e.SetGlobal("m", &Mob{Extra: &Extra{}, I: 3}))
	must(t, e.SetGlobal("n", &Mob{Extra: &Extra{}, I: 4}))
	run(t, e, "for i = 1, 100 do m.I = m.I + 1 end assert(m.I == 103 and m ~= n)")
	got := zlua.FieldsEmptyProbe(e)
	if !onLuaJIT {
		if got != -1 {
			t.Fatalf("probe on %s: %d, want -1 (no FFI closures)", zlua.Backend, got)
		}
	} else if got != 0 {
		t.Fatalf("FFI field functions on an empty payload: %d, want 0 (refused)", got)
	}
	run(t, e, `
		local mt = debug.getmetatable(m)
		local p = newproxy and newproxy(true) or io.stdout
		if newproxy then getmetatable(p).__metatable = "zlua: protected metatable" end
		for i = 1, 100 do
			assert(not pcall(mt.__index, p, "I"))
			assert(not pcall(mt.__newindex, p, "I", 1))
			local ok, eq = pcall(mt.__eq, p, m)
			assert(not ok or eq == false)
			ok, eq = pcall(mt.__eq, m, p)
			assert(not ok or eq == false)
		end
		assert(m.I == 103)`)
}
