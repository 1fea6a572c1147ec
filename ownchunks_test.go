package zlua_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
	"github.com/zlua-go/zlua/cgo"
	"github.com/zlua-go/zlua/lua"
)

// preludeDebugInfo is what a script sees of zlua's own Lua functions:
// where the prelude's functions and the error of one of them say they
// are, and the traceback lines through the xpcall guard.
const preludeDebugInfo = `
	local i = debug.getinfo(zlua.resumable, "S")
	local j = debug.getinfo(zlua.to_delegate, "S")
	local ok, err = pcall(zlua.resumable, 1)
	local _, tb = xpcall(function() error("boom") end, debug.traceback)
	return table.concat({i.source, i.short_src, i.linedefined, i.lastlinedefined, i.what,
		j.source, j.linedefined, j.lastlinedefined, tostring(ok), err, tb}, "|")`

// TestOwnChunksCompileOncePerProcess: zlua's own Lua chunks (the prelude,
// the root table's, the xpcall guard, the iterators...) are compiled by
// the first Env of the process and loaded from their bytecode by every
// later one (cgo/chunkcache.c: parsing them was about 40 % of a Lua 5.4
// New). A later Env compiles none of them again, and what scripts see of
// them is the same: source names, lines, error messages, tracebacks.
func TestOwnChunksCompileOncePerProcess(t *testing.T) {
	first := newEnv(t)
	var want string
	must(t, first.Eval(preludeDebugInfo, &want))
	kept := cgo.OwnChunks()
	if kept < 3 {
		t.Fatalf("after an Env's New, the process keeps %d of zlua's chunks compiled (want the prelude, the root's, the xpcall guard...)", kept)
	}
	for _, opts := range []zlua.Options{{}, {MemoryLimit: 8 << 20}, {Root: "game"}} {
		e, err := zlua.New(opts)
		must(t, err)
		var got string
		must(t, e.Eval(preludeDebugInfo, &got))
		must(t, e.Close())
		if got != want {
			t.Errorf("Options %+v: an Env over cached chunks sees\n%s\nwant (the first Env's)\n%s", opts, got, want)
		}
	}
	if n := cgo.OwnChunks(); n != kept {
		t.Errorf("three more Envs of the same chunks: %d kept compiled, was %d", n, kept)
	}
	// The lines are the source's: the bytecode kept its debug information.
	lines := strings.Split(lua.Prelude, "\n")
	def := func(fn string) (first, last int) {
		for i, l := range lines {
			if strings.HasPrefix(l, "function "+fn+"(") {
				first = i + 1
			}
			if first != 0 && last == 0 && l == "end" {
				last = i + 1
			}
		}
		return first, last
	}
	rf, rl := def("zlua.resumable")
	tf, tl := def("zlua.to_delegate")
	if prefix := fmt.Sprintf("=zlualib|zlualib|%d|%d|Lua|=zlualib|%d|%d|false|", rf, rl, tf, tl); rf == 0 || !strings.HasPrefix(want, prefix) {
		t.Errorf("the prelude's functions: %q, want it to begin %q", want, prefix)
	}
	for _, part := range []string{"bad argument #1 to 'resumable' (thread expected, got number)", "boom"} {
		if !strings.Contains(want, part) {
			t.Errorf("the prelude's debug information lacks %q:\n%s", part, want)
		}
	}
}
