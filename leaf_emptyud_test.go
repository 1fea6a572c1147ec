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
