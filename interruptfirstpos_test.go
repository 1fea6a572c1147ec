package zlua_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/zlua-go/zlua"
)

// An interrupted limited call reports where the script ran when the
// interruption first fired. A host that reloads a module under its own
// pcall ("keep the old version if the new one fails") catches the first
// interruption, raised in the module's loop; the hook raises it again at
// the wrapper's next instruction, and that second raise is the error Go
// gets: it must still name the loop (probe B1-F1), the one clue to which
// of many hot-reloaded modules hung.

// interruptedAt runs chunk on e under a short deadline and checks that
// the error is the deadline's and that its message and Error() begin with
// where ("game/mod.lua:3:"), the loop's position, and that its traceback
// shows that line.
func interruptedAt(t *testing.T, e *zlua.Env, chunk, where string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	err := e.DoStringContext(ctx, chunk)
	checkFirstPos(t, err, where)
	// the traceback is the one taken where the interruption first fired
	var le *zlua.LuaError
	if errors.As(err, &le) && !strings.Contains(le.Traceback, "\n\t"+where) {
		t.Errorf("traceback names no %s:\n%s", where, le.Traceback)
	}
}

func checkFirstPos(t *testing.T, err error, where string) {
	t.Helper()
	want := where + " interrupted: context deadline exceeded"
	var le *zlua.LuaError
	if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &le) {
		t.Fatalf("error: %v (want a *LuaError matching the deadline)", err)
	}
	if le.Message != want {
		t.Errorf("Message = %q, want %q\ntraceback:\n%s", le.Message, want, le.Traceback)
	}
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Error() = %q, want it to begin with %q", err.Error(), want)
	}
}

const loopingModule = "local M = {}\nlocal n = 0\nwhile true do n = n + 1 end\nreturn M\n"

func TestInterruptFirstPosPcallRequire(t *testing.T) {
	for _, tc := range []struct{ name, chunk string }{
		{"require", "require 'game.mod'"},
		{"pcall", "local ok, e = pcall(require, 'game.mod')\nif not ok then\n  print_('reload failed: ' .. tostring(e))\nend"},
		{"pcall-rethrow", "local ok, e = pcall(require, 'game.mod')\nlocal x = 1\nerror('reload failed: ' .. tostring(e), 0)"},
		{"pcall-loop", "for i = 1, 1e9 do\n  pcall(require, 'game.mod')\nend"},
		{"xpcall", "xpcall(require, function(m) return m end, 'game.mod')\nlocal y = 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{"game/mod.lua": {Data: []byte(loopingModule)}}
			e, err := zlua.New(zlua.Options{Modules: fsys}) // a fresh Env each: require keeps its sentinel
			must(t, err)
			defer e.Close()
			must(t, e.SetGlobal("print_", func(string) {}))
			interruptedAt(t, e, tc.chunk, "game/mod.lua:3:")
		})
	}
}

// A looping function from another chunk, called under the script's pcall:
// the loop's position, also from a coroutine and a resumed Thread.
func TestInterruptFirstPosPcallFunction(t *testing.T) {
	e := newEnv(t)
	f, err := e.LoadString("mod.lua", "function spin()\n  local n = 0\n  while true do n = n + 1 end\nend")
	must(t, err)
	_, err = f.Call()
	must(t, err)
	for _, chunk := range []string{
		"local ok, e = pcall(spin)\nif not ok then\n  local msg = 'failed: ' .. tostring(e)\nend",
		"local ok, e = pcall(spin)\nlocal a = 1\nlocal b = 2",
		"local co = coroutine.create(spin)\nlocal ok, e = pcall(coroutine.resume, co)\nlocal a = 1",
		"local ok, e = pcall(coroutine.wrap(spin))\nlocal a = 1",
	} {
		interruptedAt(t, e, chunk, "mod.lua:3:")
	}

	// a Thread resumed under a deadline, whose function catches the loop's
	// interruption and goes on
	g, err := e.LoadString("host.lua", "local ok, e = pcall(spin)\nlocal a = 1\nreturn a")
	must(t, err)
	th, err := e.NewThread(g)
	must(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	_, err = th.ResumeContext(ctx)
	checkFirstPos(t, err, "mod.lua:3:")

	// the next limited call is positioned afresh: the first message does
	// not outlive its call
	interruptedAt(t, e, "local ok = pcall(function()\n  while true do end\nend)\nlocal a = 1", "(dostring):2:")
}

// Nested limited calls: an inner call interrupted by its own deadline
// keeps its first position to itself; the outer call, interrupted later,
// names its own loop.
func TestInterruptFirstPosNested(t *testing.T) {
	e := newEnv(t)
	f, err := e.LoadString("outer.lua", "function spin()\n  while true do end\nend")
	must(t, err)
	_, err = f.Call()
	must(t, err)
	var inner error
	must(t, e.SetGlobal("inner", func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		inner = e.DoStringContext(ctx, "local ok = pcall(function()\n\n  while true do end\nend)\nlocal a = 1")
	}))
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err = e.DoStringContext(ctx, "inner()\nlocal ok = pcall(spin)\nlocal a = 1")
	checkFirstPos(t, inner, "(dostring):3:")
	checkFirstPos(t, err, "outer.lua:2:")
}
