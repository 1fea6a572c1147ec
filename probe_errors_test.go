package zlua_test

import (
	"errors"
	"testing"

	"github.com/zlua-go/zlua"
)

// An error object whose __tostring raises keeps its identity through Go
// frames, as it does through pcall: zlua's message handler calls
// __tostring only for the error's text, and a failing one gives the
// fallback text instead of replacing the error (Lua 5.4 raised the
// __tostring error in its place, LuaJIT "error in error handling").
func TestErrorObjectWithFailingTostringKeepsItsIdentity(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("relay", func(f *zlua.Function) error {
		_, err := f.Call()
		return err
	}))
	run(t, e, `
		local bad = setmetatable({}, {__tostring = function() error("tostring failed") end})
		local ok, err = pcall(function() error(bad) end)
		assert(not ok and rawequal(err, bad), "pcall: " .. type(err))
		ok, err = pcall(relay, function() error(bad) end)
		assert(not ok and rawequal(err, bad), "through Go: " .. type(err))
		local nostr = setmetatable({}, {__tostring = function() return 42 end})
		ok, err = pcall(relay, function() error(nostr) end)
		assert(not ok and rawequal(err, nostr), "through Go, __tostring returning a number: " .. type(err))`)
	err := e.DoString(`error(setmetatable({}, {__tostring = function() error("tostring failed") end}))`)
	var le *zlua.LuaError
	if !errors.As(err, &le) || le.Message != "(error object is a table value)" {
		t.Fatalf("DoString of an error object whose __tostring fails: %#v", err)
	}
	err = e.DoString(`error(setmetatable({}, {__tostring = function() return "fine" end}))`)
	if !errors.As(err, &le) || le.Message != "fine" {
		t.Fatalf("DoString of an error object with __tostring: %v", err)
	}
	run(t, e, `assert(select('#', pcall(error)) == 2)`)
}

type probeVec struct{ X, Y float64 }

func (v *probeVec) Scale(k float64) { v.X *= k; v.Y *= k }

// A method of *T called on a copy of a T (a ByVal struct of the same name)
// says it got a copy: "(probeVec expected, got probeVec)" read as a
// contradiction.
func TestMethodOnACopySaysItGotACopy(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("p", &probeVec{1, 2}))
	must(t, e.SetGlobal("v", probeVec{3, 4}))
	run(t, e, `
		for i = 1, 3 do
			local ok, err = pcall(p.Scale, v, 2)
			assert(not ok and err == "calling 'probeVec:Scale' on bad self (probeVec expected, got probeVec value (a copy has no Go address))", err)
		end
		p:Scale(2)
		assert(p.X == 2 and v.X == 3)`)
}
