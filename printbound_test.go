package zlua_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// pbConfig is a struct pushed by value (a copy) with an any field a
// script can set.
type pbConfig struct {
	Name string
	Any  any
}

// A value holding itself, or too large to print in bounded time, is
// named by its type where zlua prints it with fmt: tostring of a struct
// copy and a panic's value. Without the bound fmt recursed until the
// goroutine's stack overflowed, a fatal error that killed the process.
func TestPrintingAValueHoldingItselfIsBounded(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("gmap", zlua.ByRef(map[string]any{})))
	must(t, e.SetGlobal("gslice", zlua.ByRef([]any{1, 2})))
	must(t, e.SetGlobal("cfg", func() pbConfig { return pbConfig{Name: "c"} }))
	must(t, e.SetGlobal("big", func(n int) []int { return make([]int, n) }))
	must(t, e.SetGlobal("gopanic", func(v any) { panic(v) }))
	run(t, e, `
		local c = cfg()
		assert(tostring(c) == "pbConfig{Name=c Any=<nil>}", tostring(c))
		gmap.self = gmap
		c.Any = gmap
		local s = tostring(c)
		assert(s == "pbConfig{Name=c Any=(map[string]interface {} holding itself)}", s)
		gslice[2] = gslice
		c.Any = gslice
		s = tostring(c)
		assert(s == "pbConfig{Name=c Any=([]interface {} holding itself)}", s)
		local ok, err = pcall(gopanic, gmap)
		assert(not ok and err:find("panicked: (map[string]interface {} holding itself)", 1, true), err)
		c.Any = big(100000)
		s = tostring(c)
		assert(s == "pbConfig{Name=c Any=([]interface {} too large to print)}" or
			s == "pbConfig{Name=c Any=([]int too large to print)}", s)
		c.Any = big(3)
		assert(tostring(c) == "pbConfig{Name=c Any=[0 0 0]}", tostring(c))`)
	err := e.DoString(`gopanic(gmap)`)
	var pe *zlua.PanicError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "(map[string]interface {} holding itself)") {
		t.Errorf("uncaught panic with a map holding itself: %v", err)
	}
}
