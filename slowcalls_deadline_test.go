package zlua_test

import (
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
