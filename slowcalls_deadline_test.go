package zlua_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

// slowCallLoops are loops whose every few instructions call a C function
// that runs for milliseconds (4 MiB upper, reverse or rep; an insert at
// the front of a 200,000-element table), on the main thread, in a
// coroutine and under a script's own count hook. With a check every 1000
// instructions these overran a 50 ms deadline by 40–400 ms (a check every
// ~200 calls); now the allocator makes the hook fire right after the
// call in progress once the context is done, and the count adapts to
// what the instructions cost (the insert allocates nothing).
var slowCallLoops = []struct {
	libs  zlua.Libs
	chunk string
}{
	{zlua.LibsSafe, `local s = ("x"):rep(4 * 1024 * 1024) while true do local u = s:upper() end`},
	{zlua.LibsSafe, `local s = ("x"):rep(4 * 1024 * 1024) while true do local r = s:reverse() end`},
	{zlua.LibsSafe, `while true do local r = ("y"):rep(4 * 1024 * 1024) end`},
	{zlua.LibsSafe, `while true do local r = ("y"):rep(12 * 1024 * 1024) end`},
	// cheap instructions first (the count grows to 1000), then slow ones
	{zlua.LibsSafe, `local x = 0 for i = 1, 2e6 do x = x + i end
		while true do local r = ("y"):rep(4 * 1024 * 1024) end`},
	{zlua.LibsSafe, `local s = ("x"):rep(4 * 1024 * 1024)
		coroutine.wrap(function() while true do local u = s:upper() end end)()`},
	{zlua.LibsSafe, `local s = ("x"):rep(4 * 1024 * 1024)
		local co = coroutine.wrap(function() while true do local u = s:upper() coroutine.yield() end end)
		while true do co() end`},
	{zlua.LibsSafe, `local t = T while true do table.insert(t, 1, 0) end`},
	{zlua.LibsAll, `local s = ("x"):rep(4 * 1024 * 1024) debug.sethook(function() end, "", 100000)
		while true do local u = s:upper() end`},
}

func TestDeadlineStopsLoopsOfSlowCalls(t *testing.T) {
	for _, p := range slowCallLoops {
		e, err := zlua.New(zlua.Options{Libs: p.libs})
		must(t, err)
		run(t, e, `T = {} for i = 1, 200000 do T[i] = i end`)
		over := interrupted(t, e, p.chunk)
		t.Logf("overrun %6.2f ms: %s", float64(over.Microseconds())/1000, p.chunk)
		// Generous for a loaded machine: the checks come about every
		// millisecond, or every slow call; before, every ~200 calls.
		if over > 150*time.Millisecond {
			t.Errorf("overran the deadline by %v: %s", over, p.chunk)
		}
		must(t, e.Close())
	}
}

// TestGuardsMatchTheStandardLibrary compares string.rep, table.move,
// table.insert and table.remove (zlua's own on Lua 5.4, cgo/guards.c)
// with the stock interpreter's: results, errors and the order of
// metamethod calls, outside and inside limited calls.
func TestGuardsMatchTheStandardLibrary(t *testing.T) {
	src, want := conformanceFiles(t, "guards")
	for _, libs := range []zlua.Libs{zlua.LibsAll, zlua.LibsSafe} {
		e, err := zlua.New(zlua.Options{Libs: libs})
		must(t, err)
		must(t, e.DoString(src))
		if got := global[string](t, e, "result") + "\n"; got != want {
			t.Errorf("%v: outside limited calls, differs from stock:\n%s\nwant:\n%s", libs, got, want)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		must(t, e.DoStringContext(ctx, src))
		cancel()
		if got := global[string](t, e, "result") + "\n"; got != want {
			t.Errorf("%v: inside a limited call, differs from stock:\n%s\nwant:\n%s", libs, got, want)
		}
		must(t, e.Close())
	}
}

// TestGuardedLoopsStopAtTheDeadline: library loops bounded by an integer
// argument alone, which stock Lua 5.4 cannot leave (string.rep of empty
// strings runs n - 1 empty copies; table.move between plain tables reads
// and writes nils; table.insert and table.remove move up to what __len
// says), also through C metamethods, which run no instruction. Before, each of these ran past any deadline (days).
// Also table.concat through a C __index and a __len that says 1e15 (it
// ran to the memory limit) and table.sort with a C comparator (one C
// call of n log n comparisons).
func TestGuardedLoopsStopAtTheDeadline(t *testing.T) {
	// A limit, so that a loop that allocates cannot fill the machine's
	// memory if it escapes.
	e, err := zlua.New(zlua.Options{MemoryLimit: 64 << 20})
	must(t, err)
	t.Cleanup(func() { e.Close() })
	done := make(chan error, 1)
	go func() {
		done <- e.DoString(`assert(string.rep("", 1e15) == "" and string.rep("", 1e15, "") == "")`)
	}()
	select {
	case err := <-done:
		must(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal(`string.rep("", 1e15) still running after 10 s`)
	}
	chunks := []string{
		`table.move({}, 1, 1e15, 1)`,
		`table.move({}, 2, 1e15, 1)`,     // backwards: same table, overlapping
		`table.move({}, 1, 1e15, 1, {})`, // to another table
		`table.move(setmetatable({}, {__index = rawlen}), 1, 1e15, 1,
			setmetatable({}, {__newindex = rawequal}))`, // C metamethods
	}
	if strings.HasPrefix(zlua.Backend, "Lua 5.4") {
		chunks = append(chunks, // a __len LuaJIT's table library does not call
			`table.insert(setmetatable({}, {__len = function() return 1e15 end}), 1, 0)`,
			`table.remove(setmetatable({}, {__len = function() return 1e15 end}), 1)`,
			// each element through a C __index: no instruction; the
			// buffer grows a byte a step, so without the guard the
			// loop ran until the memory limit (seconds), then failed
			// for memory instead of the deadline
			`table.concat(setmetatable({}, {__index = rawlen, __len = function() return 1e15 end}))`,
			`while true do pcall(table.concat, setmetatable({}, {__index = rawlen, __len = function() return 1e15 end})) end`)
	}
	// A C comparator runs no instruction: a sort of a million elements
	// makes about 2·10⁷ calls in one C call (a second or more).
	run(t, e, `BIG = {} for i = 1, 1e6 do BIG[i] = (i * 7919) % 1000003 end`)
	chunks = append(chunks, `table.sort(BIG, rawequal)`, `while true do pcall(table.sort, BIG, rawequal) end`)
	for _, chunk := range chunks {
		over := interrupted(t, e, chunk)
		t.Logf("overrun %6.2f ms: %s", float64(over.Microseconds())/1000, chunk)
		if over > 150*time.Millisecond {
			t.Errorf("overran the deadline by %v: %s", over, chunk)
		}
		run(t, e, `collectgarbage()`)
	}
}
