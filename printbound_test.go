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

// pbErr is an error whose text a script callback makes.
type pbErr struct{ f func() string }

func (e *pbErr) Error() string { return "pberr: " + e.f() }

// tostring of a struct copy calls its fields' Error and String methods
// itself: a Lua error their callback raises (even an attempt to yield)
// reaches the script as tostring's error. fmt recovered it and printed
// "%!v(PANIC=Error method: ...)" into the string.
func TestStructTextLetsCallbackErrorsThrough(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("cfg", func() pbConfig { return pbConfig{Name: "c"} }))
	must(t, e.SetGlobal("mkerr", func(f func() string) *pbErr { return &pbErr{f} }))
	run(t, e, `
		local c = cfg()
		c.Any = mkerr(function() return "fine" end)
		assert(tostring(c) == "pbConfig{Name=c Any=pberr: fine}", tostring(c))
		c.Any = mkerr(function() error("boom in Error") end)
		local ok, err = pcall(tostring, c)
		assert(not ok and err:find("boom in Error", 1, true) and not err:find("PANIC", 1, true), err)
		c.Any = mkerr(function() return coroutine.yield() end)
		ok, err = pcall(tostring, c)
		assert(not ok and err:find("yield", 1, true) and not err:find("PANIC", 1, true), err)`)
}
