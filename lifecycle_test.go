package zlua_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

func TestCloseIsIdempotentAndFinal(t *testing.T) {
	e, err := zlua.New(zlua.Options{})
	must(t, err)
	must(t, e.SetGlobal("f", func() {}))
	must(t, e.Close())
	must(t, e.Close())
	var x int
	for name, err := range map[string]error{
		"DoString":  e.DoString(`x = 1`),
		"SetGlobal": e.SetGlobal("x", 1),
		"Global":    e.Global("x", &x),
		"DoFile":    e.DoFile("testdata/hello.lua"),
		"Pump":      e.Pump(),
	} {
		if !errors.Is(err, zlua.ErrClosed) {
			t.Errorf("%s after Close = %v, want ErrClosed", name, err)
		}
	}
}

func TestCloseFromInsideLuaIsRefused(t *testing.T) {
	e := newEnv(t)
	var got error
	must(t, e.SetGlobal("closeme", func() { got = e.Close() }))
	run(t, e, `closeme()`)
	if !errors.Is(got, zlua.ErrBusy) {
		t.Errorf("Close inside a callback = %v, want ErrBusy", got)
	}
	run(t, e, `x = 1`) // still usable
}

func TestPreludeIsLoaded(t *testing.T) {
	e := newEnv(t)
	run(t, e, `assert(type(zlua) == "table" and zlua.version and zlua.backend)
		local co = coroutine.create(function() coroutine.yield() end)
		assert(zlua.resumable(co)); coroutine.resume(co); coroutine.resume(co)
		assert(not zlua.resumable(co))`)
	// Its argument errors read as a library function's.
	for chunk, want := range map[string]string{
		`zlua.resumable({})`: "(dostring):1: bad argument #1 to 'resumable' (thread expected, got table)",
		`zlua.resumable()`:   "(dostring):1: bad argument #1 to 'resumable' (thread expected, got no value)",
	} {
		if err := e.DoString(chunk); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v, want %q", chunk, err, want)
		}
	}
	run(t, e, `backend = zlua.backend`)
	if b := global[string](t, e, "backend"); b != zlua.Backend || !strings.Contains(b, "Lua") {
		t.Errorf("zlua.backend = %q, want %q", b, zlua.Backend)
	}
}

func TestDoFile(t *testing.T) {
	e := newEnv(t)
	must(t, e.DoFile("testdata/hello.lua"))
	if got := global[string](t, e, "greeting"); got != "hello from a file" {
		t.Errorf("greeting = %q", got)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.lua")
	must(t, os.WriteFile(bad, []byte("#!/usr/bin/env lua\nlocal x = = 1\n"), 0o600))
	err := e.DoFile(bad)
	var le *zlua.LuaError
	if !errors.As(err, &le) || !strings.Contains(le.Message, "bad.lua:2:") {
		t.Errorf("syntax error = %v, want one at bad.lua:2 (shebang line kept in the count)", err)
	}
	if err := e.DoFile(filepath.Join(dir, "missing.lua")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file = %v", err)
	}
}

func TestSyntaxErrorsAreLuaErrors(t *testing.T) {
	e := newEnv(t)
	err := e.DoString(`x = = 1`)
	var le *zlua.LuaError
	if !errors.As(err, &le) || !strings.Contains(le.Message, "unexpected symbol") && !strings.Contains(le.Message, "near '='") {
		t.Errorf("err = %v", err)
	}
}
