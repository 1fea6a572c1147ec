package zlua_test

import (
	"context"
	"errors"
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
	// a script's small count is kept exact (hook.c apply): the checks
	// come at its events, however slow the instructions
	{zlua.LibsAll, `local t = T debug.sethook(function() end, "", 8)
		while true do table.insert(t, 1, 0) end`},
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
			`while true do pcall(table.concat, setmetatable({}, {__index = rawlen, __len = function() return 1e15 end})) end`,
			// the stock sort of a proxy: each read and write a C
			// metamethod, no instruction in 2^31 elements (the hurried
			// hook's call events stop it)
			proxySort,
			`while true do pcall(table.sort, `+proxy+`) end`)
	}
	// A C comparator runs no instruction: a sort of a million elements
	// makes about 2·10⁷ calls in one C call (a second or more).
	run(t, e, `BIG = {} for i = 1, 1e6 do BIG[i] = (i * 7919) % 1000003 end`)
	chunks = append(chunks, `table.sort(BIG, rawequal)`, `while true do pcall(table.sort, BIG, rawequal) end`)
	stopInTime(t, e, chunks, `collectgarbage()`)
}

// proxy is a table whose elements are all read through C metamethods (0
// each) and written to nowhere, with a length of 2^31 - 2: table.sort of it
// compares and swaps for hours without a Lua instruction.
const proxy = `setmetatable({}, {__index = rawlen, __newindex = rawequal, __len = function() return 2^31 - 2 end})`

const proxySort = `table.sort(` + proxy + `)`

func TestDeadlineInCMetamethodLoopNamesTheScriptLine(t *testing.T) {
	if !strings.HasPrefix(zlua.Backend, "Lua 5.4") {
		t.Skip("LuaJIT's table.sort reads the table raw: no metamethod, no length")
	}
	e := newEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := e.DoStringContext(ctx, "local x = 1\n"+proxySort)
	// the call event fires in a C metamethod called by C: the position is
	// the script's line that called table.sort
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), ":2: interrupted: context deadline exceeded") {
		t.Fatalf("DoStringContext = %v, want the deadline at line 2", err)
	}
}

// A Go function still running when the deadline passes finishes its work
// through the Env: the hurried hook's call and return events skip zlua's
// own dispatcher and message handler, and the script stops at its next
// instruction after the function returns. With the script's own hook
// asking for returns ("r"), the dispatcher's return event raised before
// the skip covered returns (Globals then said "not enough memory"; found
// by an outside probe).
func TestGoFunctionWorksPastTheDeadline(t *testing.T) {
	for _, mask := range []string{"l", "r", "cr"} {
		t.Run(mask, func(t *testing.T) {
			e := newEnv(t)
			tbl, err := e.NewTable()
			must(t, err)
			var setErr, getErr, globalsErr error
			var got int
			must(t, e.SetGlobal("slow", func() int {
				time.Sleep(120 * time.Millisecond)
				setErr = tbl.Set("x", 5)
				getErr = tbl.Get("x", &got)
				var g *zlua.Table
				if g, globalsErr = e.Globals(); g != nil {
					g.Release()
				}
				return 1
			}))
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			err = e.DoStringContext(ctx, `events = {}
				debug.sethook(function(ev) events[#events + 1] = ev end, "`+mask+`")
				slow() reached = true`)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("DoStringContext = %v, want the deadline", err)
			}
			if setErr != nil || getErr != nil || got != 5 || globalsErr != nil {
				t.Errorf("the Go function's Set = %v, Get = %v (%d), Globals = %v, want all done after the deadline",
					setErr, getErr, got, globalsErr)
			}
			if mask == "l" {
				// the call events zlua asked for are not passed on
				var others int
				must(t, e.Eval(`debug.sethook() local n = 0 for _, ev in ipairs(events) do if ev ~= "line" then n = n + 1 end end return n`, &others))
				if others != 0 {
					t.Errorf("the script's line hook got %d other events", others)
				}
			}
			var reached bool
			must(t, e.Eval(`debug.sethook() return reached ~= nil`, &reached))
			if reached {
				t.Error("the script ran on after the Go function returned past the deadline")
			}
		})
	}
}

// Interrupted at the call or return of a C function, the error names the
// script's line, whatever events the script's own hook asks for (with a
// return hook it had no position; found by an outside probe).
func TestInterruptionAtACFunctionNamesTheScriptLine(t *testing.T) {
	e := newEnv(t)
	run(t, e, `SORTED = {} for i = 1, 2e5 do SORTED[i] = i end`)
	for _, mask := range []string{"", "r", "c", "cr"} {
		hook := ""
		if mask != "" {
			hook = `debug.sethook(function() end, "` + mask + `")`
		}
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		err := e.DoStringContext(ctx, hook+"\nwhile true do table.sort(SORTED) end")
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), ":2: interrupted") {
			t.Errorf("hook %q: %v, want the deadline at line 2", mask, err)
		}
		run(t, e, `debug.sethook()`)
	}
}

// A Go function past its call's deadline that runs a nested limited call
// with a fresh context, then more Lua code: that code is interrupted at
// once, at its first line. The nested call's begin had reset the hurry,
// so a short chunk ran to its end (and on LuaJIT the interruption on
// entering a chunk named line 0). Found by an outside probe.
func TestCodeAfterAFreshNestedLimitedCallIsStillInterrupted(t *testing.T) {
	e := newEnv(t)
	run(t, e, `function double(x) return x * 2 end`)
	var double *zlua.Function
	must(t, e.Global("double", &double))
	defer double.Release()
	var freshErr, afterErr error
	must(t, e.SetGlobal("slow", func() {
		time.Sleep(120 * time.Millisecond)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, freshErr = double.CallContext(ctx, 3)
		afterErr = e.DoString(`after = 3`)
	}))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := e.DoStringContext(ctx, `slow()`); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("DoStringContext = %v, want the deadline", err)
	}
	if freshErr != nil {
		t.Errorf("the nested call under a fresh context = %v", freshErr)
	}
	// (a plain DoString: the Lua error says why, no context of its own)
	if afterErr == nil || !strings.Contains(afterErr.Error(), ":1: interrupted: context deadline exceeded") {
		t.Errorf("the chunk after it = %v, want the interruption at line 1", afterErr)
	}
	var after bool
	must(t, e.Eval(`return after ~= nil`, &after))
	if after {
		t.Error("the chunk after the nested call ran")
	}
}
