package zlua_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

// stackOverflowChunks overflow the Lua stack (about a million frames on
// Lua 5.4) inside a limited call, as the suite's locals.lua does in its
// "tbc variable high in the stack" test. The limit's hook calls
// lua_sethook when it adapts the count, and Lua 5.4's lua_sethook walks
// every CallInfo of the thread: milliseconds at that depth. That time was
// measured as the script's, so the count shrank to 1, every instruction
// walked the whole stack again, and the chunk ran for many minutes (it
// looked like a hang, 100% CPU in lua_sethook).
var stackOverflowChunks = []struct {
	chunk string
	lua54 bool // uses Lua 5.4 syntax (<close>)
}{
	{`local function overflow(n) overflow(n + 1) end
		local st, msg = pcall(overflow, 0)
		assert(not st and string.find(msg, "stack overflow"), msg)`, false},
	{`local function overflow(n) overflow(n + 1) end
		local st, msg = xpcall(overflow, function(m) return m end, 0)
		assert(not st and string.find(msg, "stack overflow"), msg)`, false},
	{`local function overflow(n) overflow(n + 1) end
		local st, msg = coroutine.wrap(function() return pcall(overflow, 0) end)()
		assert(not st and string.find(msg, "stack overflow"), msg)`, false},
	// locals.lua's test: a to-be-closed variable in the message handler,
	// high in the stack, and one down the stack, in a coroutine
	{`local function func2close(f) return setmetatable({}, {__close = f}) end
		local function overflow(n) overflow(n + 1) end
		local function errorh(m)
			assert(string.find(m, "stack overflow"))
			local x <close> = func2close(function(o) o[1] = 10 end)
			return x
		end
		local flag, st, obj
		coroutine.wrap(function()
			local y <close> = func2close(function(obj, msg)
				assert(msg == nil)
				obj[1] = 100
				flag = obj
			end)
			st, obj = xpcall(overflow, errorh, 0)
		end)()
		assert(not st and obj[1] == 10 and flag[1] == 100)`, true},
}

func TestLimitedStackOverflowIsNotQuadratic(t *testing.T) {
	jit := strings.HasPrefix(zlua.Backend, "LuaJIT")
	for _, c := range stackOverflowChunks {
		if c.lua54 && jit {
			continue
		}
		e := newEnv(t)
		// The deadline is far: the call must end on its own (stock Lua
		// takes about 0.15 s), not be stopped by it.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		done := make(chan error, 1)
		t0 := time.Now()
		go func() { done <- e.DoStringContext(ctx, c.chunk) }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%v\n%s", err, c.chunk)
			}
			t.Logf("%v: %s", time.Since(t0), strings.SplitN(c.chunk, "\n", 2)[0])
		case <-time.After(10 * time.Second):
			cancel() // the hook stops it now; the Env is closed after it returned
			<-done
			t.Errorf("still running after 10 s:\n%s", c.chunk)
		}
		cancel()
	}
}
