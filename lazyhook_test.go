package zlua

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/zlua-go/zlua/cgo"
)

// A limited call runs with no count hook until its context is done
// (cgo/hook.c, limit_armed): on Lua 5.4 any count hook makes every
// instruction pass through luaG_traceexec, and LuaJIT's interpreter
// through its per-instruction dispatch. These tests read the hook mask
// of the thread running the script from a Go function it calls.

func init() {
	helpers["lazy-hook-masks"] = func() error {
		r, err := limitedHookMasks()
		if err != nil {
			return err
		}
		fmt.Println(r)
		return nil
	}
}

// limitedHookMasks runs a limited call whose script records, through
// mask(), whether the count hook is on: on the main thread, in a
// coroutine and in one it resumes, in a __close handler that
// coroutine.close runs (Lua 5.4), and then, from Go, once the context was
// cancelled. It returns "before=<0 and 1 flags> after=<0 or 1>".
func limitedHookMasks() (string, error) {
	e, err := New(Options{})
	if err != nil {
		return "", err
	}
	defer e.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	var before []byte
	after := byte('?')
	counting := func() bool { return HookMask(e)&HookCountMask != 0 }
	if err := e.SetGlobal("mask", func() {
		before = append(before, map[bool]byte{false: '0', true: '1'}[counting()])
	}); err != nil {
		return "", err
	}
	// cancelAndWait cancels the call's context, then waits, in Go, for
	// the watcher's signal to arm the hook of the script's thread.
	if err := e.SetGlobal("cancelAndWait", func() {
		cancel()
		after = '0'
		for t0 := time.Now(); time.Since(t0) < 5*time.Second; time.Sleep(time.Millisecond) {
			if counting() {
				after = '1'
				return
			}
		}
	}); err != nil {
		return "", err
	}
	script := `
		mask()
		coroutine.wrap(function()
			mask()
			coroutine.wrap(function() mask() end)()
		end)()
	`
	if strings.HasPrefix(Backend, "Lua 5.4") {
		script += `
		local co = coroutine.create(function()
			local x <close> = setmetatable({}, {__close = function() mask() end})
			coroutine.yield()
		end)
		coroutine.resume(co)
		coroutine.close(co)
	`
	}
	script += `cancelAndWait() while true do end`
	err = e.DoStringContext(ctx, script)
	if !errors.Is(err, context.Canceled) {
		return "", fmt.Errorf("the limited call ended with %v, want its cancellation", err)
	}
	return fmt.Sprintf("before=%s after=%c", before, after), nil
}

// TestLimitedCallsCountOnlyOnceTheirContextIsDone: while the context of a
// limited call is not done, no thread the script runs on has a count
// hook; once it is done, the watcher's signal gives the running one its
// count hook even while a Go function runs (the call then stops at the
// script's next instruction).
func TestLimitedCallsCountOnlyOnceTheirContextIsDone(t *testing.T) {
	got, err := limitedHookMasks()
	if err != nil {
		t.Fatal(err)
	}
	want := "before=000 after=1"
	if strings.HasPrefix(Backend, "Lua 5.4") {
		want = "before=0000 after=1"
	}
	if !cgo.PokeReady() {
		t.Fatalf("the poke signal's handler is not zlua's after a limited call")
	}
	if got != want {
		t.Fatalf("hook masks: %s, want %s (1: a count hook was on)", got, want)
	}
}

// TestLimitedCallsCountFromTheStartWithoutTheSignal: with the poke signal
// turned off nothing but the count hook would stop a loop that neither
// allocates nor calls, so it is on from the limited call's start.
// Every usual spelling of "off" turns it off.
func TestLimitedCallsCountFromTheStartWithoutTheSignal(t *testing.T) {
	for _, off := range []string{"off", "OFF", "0", "false", "No"} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), helperEnv+"=lazy-hook-masks", "ZLUA_POKE_SIGNAL="+off)
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("helper: %v\n%s", err, b)
		}
		got := strings.TrimSpace(string(b))
		want := "before=111 after=1"
		if strings.HasPrefix(Backend, "Lua 5.4") {
			want = "before=1111 after=1"
		}
		if got != want {
			t.Errorf("ZLUA_POKE_SIGNAL=%s: hook masks %s, want %s", off, got, want)
		}
	}
}
