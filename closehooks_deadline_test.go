package zlua_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
	"github.com/zlua-go/zlua/cgo"
)

// A coroutine that an error raised by a hook killed keeps its pending
// to-be-closed variables; Lua 5.4 leaves that thread's hooks off, so
// closing it ran the __close handlers with no deadline check at all
// (found by an outside probe: each case below never returned). zlua turns
// the hooks back on once lua_resume returns the error (cgo/rearm.c).

const loopingClose = `setmetatable({}, {__close = function() while true do end end})`

func skipWithoutClose(t *testing.T) {
	t.Helper()
	if !strings.HasPrefix(zlua.Backend, "Lua 5.4") {
		t.Skip("LuaJIT has no to-be-closed variables")
	}
	if !cgo.HooksRearmable() {
		t.Fatal("the linked Lua 5.4 failed rearm.c's layout check: these loops would escape their deadline")
	}
}

func TestClosingACoroutineAHookKilledStopsAtTheDeadline(t *testing.T) {
	skipWithoutClose(t)
	e := newEnvWith(t, zlua.Options{Libs: zlua.LibsSafe, MemoryLimit: 64 << 20})
	chunks := []string{
		// The first three stopped in time before rearm.c as well: the
		// resumer raises the interruption again before the script can
		// close the coroutine. The fourth did not.
		// the interruption kills the coroutine; coroutine.close runs
		// the looping __close
		`local co = coroutine.create(function() local x <close> = ` + loopingClose + ` while true do end end)
		 coroutine.resume(co) coroutine.close(co)`,
		// the same with a pcall around the resume, and wrap's own close
		`local co = coroutine.create(function() local x <close> = ` + loopingClose + ` while true do end end)
		 pcall(coroutine.resume, co) while true do pcall(coroutine.close, co) end`,
		`local f = coroutine.wrap(function() local x <close> = ` + loopingClose + ` while true do end end)
		 while true do pcall(f) end`,
		// zlua's hook raises "C stack overflow" (gsub levels deep in C
		// stack) before any deadline; the close then loops
		`local pat = ("a?"):rep(199)
		 local function f() for i = 1, 3000 do end return (("a"):gsub(pat, f)) end
		 local co = coroutine.create(function() local c <close> = ` + loopingClose + ` f() end)
		 local ok, err = coroutine.resume(co)
		 assert(not ok)
		 coroutine.close(co)`,
	}
	stopInTime(t, e, chunks, "")
}

// A coroutine interrupted in one limited call, closed in the next: the
// first call's hook left it with hooks off.
func TestCoroutineInterruptedEarlierClosesUnderTheNextDeadline(t *testing.T) {
	skipWithoutClose(t)
	e := newEnvWith(t, zlua.Options{Libs: zlua.LibsSafe})
	interrupted(t, e, `co = coroutine.create(function() local x <close> = `+loopingClose+` while true do end end)
		coroutine.resume(co)`)
	over := interrupted(t, e, `coroutine.close(co)`)
	if over > 150*time.Millisecond {
		t.Errorf("coroutine.close overran the deadline by %v", over)
	}
}

// A script's own hook that errs inside a coroutine kills it the same way
// (LibsAll): the close of its looping __close must still meet the deadline.
func TestCoroutineKilledByAScriptHookClosesUnderTheDeadline(t *testing.T) {
	skipWithoutClose(t)
	e := newEnv(t)
	over := interrupted(t, e, `local co = coroutine.create(function()
			local x <close> = `+loopingClose+`
			local fired
			debug.sethook(function()
				if not fired then fired = true error("hook says no") end
			end, "l")
			local y = 1
		end)
		local ok, err = coroutine.resume(co)
		assert(not ok and err:find("hook says no"), err)
		coroutine.close(co)`)
	if over > 150*time.Millisecond {
		t.Errorf("coroutine.close overran the deadline by %v", over)
	}
}

// Thread.ResumeContext closes a failed thread itself (its __close handlers
// run with the error): an interruption must not leave that close unhooked.
func TestResumeContextOfAThreadWithALoopingCloseReturns(t *testing.T) {
	skipWithoutClose(t)
	e := newEnvWith(t, zlua.Options{Libs: zlua.LibsSafe})
	fn, err := e.LoadString("body", `local x <close> = `+loopingClose+` while true do end`)
	must(t, err)
	defer fn.Release()
	th, err := e.NewThread(fn)
	must(t, err)
	defer th.Release()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { _, err := th.ResumeContext(ctx); done <- err }()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("ResumeContext still running 10 s after its deadline")
	}
	if !errors.Is(err, context.DeadlineExceeded) || !th.Done() {
		t.Errorf("ResumeContext = %v (done %v), want the deadline and a dead thread", err, th.Done())
	}
	run(t, e, `assert(1 + 1 == 2)`)
}
