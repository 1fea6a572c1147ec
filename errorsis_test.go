package zlua_test

import (
	"errors"
	"testing"

	"github.com/zlua-go/zlua"
)

// TestErrorsIsMatchesOnlyTheSameErrorValue: the Go error behind a Lua
// error is found only when the value that reached Go is the very string
// the gate raised (let through, re-raised unchanged, or returned by a Go
// function), or that string behind the positions error(e) and
// coroutine.wrap put before it. A script's own error whose text ends like a Go error caught
// earlier is not that error: before, "config file not found" matched a
// caught "not found" by text suffix.
//
// Lua strings are values: a string equal to the one raised is the same
// value and matches (an error raised with a position is unlikely to be
// equalled by accident).
func TestErrorsIsMatchesOnlyTheSameErrorValue(t *testing.T) {
	e := newEnv(t)
	errA := errors.New("not found")
	errB := errors.New("not found") // same text, another error
	must(t, e.SetGlobal("failA", func() error { return errA }))
	must(t, e.SetGlobal("failB", func() error { return errB }))
	must(t, e.SetGlobal("pass", func(f *zlua.Function) error { _, err := f.Call(); return err }))
	for _, c := range []struct {
		chunk       string
		isA, isB    bool
		isMemoryErr bool
	}{
		{chunk: `failA()`, isA: true},
		{chunk: `pcall(failA) error("config file not found")`},
		{chunk: `pcall(failA) error("config file not found", 0)`},
		// Called from Lua code, the Go error is raised with the caller's
		// position: the bare text, or another prefix, is another value.
		{chunk: `pcall(function() failA() end) error("not found", 0)`},
		{chunk: `pcall(function() failA() end) error("x: not found", 0)`},
		{chunk: `local _, e = pcall(function() failA() end) error(e, 0)`, isA: true},
		// error() and coroutine.wrap put a position before it: still it
		{chunk: `local _, e = pcall(function() failA() end) error(e)`, isA: true},
		{chunk: `local _, e = pcall(function() failA() end) error("bag " .. e)`},
		{chunk: `local _, e = pcall(function() failA() end) error(e .. "!", 0)`},
		// Called by pcall directly there is no position: the string
		// raised is "not found", and an equal string is the same value.
		{chunk: `local _, e = pcall(failA) error(e, 0)`, isA: true},
		{chunk: `pcall(failA)
			failB()`, isB: true},
		{chunk: `local _, a = pcall(function() failA() end)
			local _, b = pcall(function() failB() end)
			error(a, 0)`, isA: true},
		{chunk: `pass(function() failA() end)`, isA: true}, // through a Go frame
		{chunk: `pcall(failA) error({})`},
		{chunk: `error("disk: not enough memory", 0)`},
		{chunk: `error("not enough memory", 0)`, isMemoryErr: true},
		{chunk: `error("not enough memory")`, isMemoryErr: true}, // as a script re-raising one
	} {
		err := e.DoString(c.chunk)
		if err == nil {
			t.Errorf("%s: no error", c.chunk)
			continue
		}
		if got := errors.Is(err, errA); got != c.isA {
			t.Errorf("%s: errors.Is(err %q, errA) = %v, want %v", c.chunk, err, got, c.isA)
		}
		if got := errors.Is(err, errB); got != c.isB {
			t.Errorf("%s: errors.Is(err %q, errB) = %v, want %v", c.chunk, err, got, c.isB)
		}
		if got := errors.Is(err, zlua.ErrMemory); got != c.isMemoryErr {
			t.Errorf("%s: errors.Is(err %q, ErrMemory) = %v, want %v", c.chunk, err, got, c.isMemoryErr)
		}
	}
}
