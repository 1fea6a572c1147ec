package zlua_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

// TestScriptHookSeesNoWrappers (outside probe A2-F1, A2-F2): on LuaJIT
// zlua serves pairs, ipairs, xpcall, gmatch's iterator and the C stack
// wrappers (print, os.time, table.sort, require, dofile, load, loadstring,
// coroutine.resume/wrap) with Lua functions; a script's debug hook must
// see the events stock LuaJIT reports for those calls: none of the
// wrappers' call, line and return events, nor the calls of the C helpers
// they call, no line event again after a wrapper returns, and a count of
// 1 that counts no wrapper instruction. testdata/hookwrappers.lua records
// the events of such calls under each mask, plainly and inside a limited
// call; the goldens are stock luajit's and lua5.4's (the command is in the
// script).
func TestScriptHookSeesNoWrappers(t *testing.T) {
	name := "testdata/hookwrappers-lua54.golden"
	if onLuaJIT {
		name = "testdata/hookwrappers-luajit.golden"
	}
	b, err := os.ReadFile(name)
	must(t, err)
	want := string(b)
	e := newEnv(t) // LibsAll: scripts have debug.sethook
	must(t, e.DoFile("testdata/hookwrappers.lua"))
	if got := global[string](t, e, "result") + "\n"; got != want {
		t.Errorf("hook events differ from stock:\n%s", firstDiff(got, want))
	}
	if !onLuaJIT {
		// Inside limited calls Lua 5.4's xpcall passes the error to a
		// guard written in Lua ("=zlua.xpcall", xpcall.c) that tail-calls
		// the script's handler: a hook sees the guard and a "tail call".
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	must(t, e.DoFileContext(ctx, "testdata/hookwrappers.lua"))
	if got := global[string](t, e, "result") + "\n"; got != want {
		t.Errorf("hook events inside a limited call differ from stock:\n%s", firstDiff(got, want))
	}
}

// TestScriptCountHookNeverStopsInWrappers: with a count above 1 a script's
// count events still land on the script's own instructions, never inside
// one of zlua's Lua wrappers (debug.getinfo(2) names the script's
// function), and keep coming. (The count itself can run ahead of stock's
// there: the wrapper instructions before an event are counted, see
// hook.c.)
func TestScriptCountHookNeverStopsInWrappers(t *testing.T) {
	e := newEnv(t)
	for _, limited := range []bool{false, true} {
		chunk := `
			local bad, n = {}, 0
			local t = {3, 1, 2}
			for _, c in ipairs({2, 3, 5, 7, 100}) do
				debug.sethook(function()
					n = n + 1
					local src = debug.getinfo(2, "S").source
					if src:sub(1, 6) == "=zlua." and #bad < 5 then bad[#bad + 1] = c .. " " .. src end
				end, "", c)
				for i = 1, 20 do
					os.time() table.sort(t) local a = tostring(i)
					for k in pairs(t) do end
					for w in ("a"):gmatch("%a") do end
				end
				debug.sethook()
			end
			events, inside = n, table.concat(bad, ", ")`
		err := doMaybeLimited(e, chunk, limited)
		must(t, err)
		if got := global[string](t, e, "inside"); got != "" {
			t.Errorf("limited %v: count events inside zlua's wrappers: %s", limited, got)
		}
		if n := global[int](t, e, "events"); n < 20 {
			t.Errorf("limited %v: %d count events", limited, n)
		}
	}
}

// firstDiff shows where two multi-line texts part.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + itoa(i+1) + ":\n got: " + gl + "\nwant: " + wl + "\n(" + zlua.Backend + ")"
		}
	}
	return "(same lines)"
}

// TestScriptLineHookAfterWrappedError: a function that fails inside a
// wrapped library call (os.time, on its one line) and is called again
// from Go reports its line at every call, as in stock: what zlua notes of
// a frame for the line event after a wrapper returns (LuaJIT) goes with
// the error.
func TestScriptLineHookAfterWrappedError(t *testing.T) {
	e := newEnv(t)
	run(t, e, "function f() os.time({}) end\n"+
		`n = 0 debug.sethook(function() if debug.getinfo(2, "f").func == f then n = n + 1 end end, "l")`)
	var f *zlua.Function
	must(t, e.Global("f", &f))
	for i := 0; i < 3; i++ {
		if _, err := f.Call(); err == nil {
			t.Fatal("os.time({}) did not fail")
		}
	}
	run(t, e, `debug.sethook()`)
	if n := global[int](t, e, "n"); n != 3 {
		t.Errorf("line events of f in 3 calls: %d, want 3", n)
	}
}
