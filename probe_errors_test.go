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
