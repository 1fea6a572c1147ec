package zlua_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

// TestDeadlineDuringCoroutineResumeEndsWithTheInterruption: a deadline
// reached while coroutine.resume fails for another reason (a dead
// coroutine refused, an error of the coroutine's own) ends the limited
// call with the interruption's message. On Lua 5.4, zlua's resume raised
// whatever the failed resume left, so about half of these calls ended
// with "cannot resume dead coroutine" or the script's text (probe P2 F6);
// coroutine.close likewise (probe K2).
func TestDeadlineDuringCoroutineResumeEndsWithTheInterruption(t *testing.T) {
	e := newEnv(t)
	chunks := []string{
		`local co = coroutine.create(function() end) coroutine.resume(co)
		while true do coroutine.resume(co) end`,
		`while true do coroutine.resume(coroutine.create(function() error("SCRIPT TEXT", 0) end)) end`,
		// coroutine.close of a failed coroutine, or of one whose __close raises
		`while true do local co = coroutine.create(function() error("SCRIPT TEXT", 0) end)
			coroutine.resume(co) if coroutine.close then coroutine.close(co) end end`,
	}
	if strings.HasPrefix(zlua.Backend, "Lua 5.4") { // to-be-closed variables
		chunks = append(chunks, `while true do local co = coroutine.create(function()
			local x <close> = setmetatable({}, {__close = function() error("CLOSE TEXT", 0) end})
			coroutine.yield() end)
			coroutine.resume(co) coroutine.close(co) end`)
	}
	for _, chunk := range chunks {
		for i := 0; i < 20; i++ {
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Millisecond)
			err := e.DoStringContext(ctx, chunk)
			cancel()
			var le *zlua.LuaError
			if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &le) ||
				!strings.HasSuffix(le.Message, "interrupted: context deadline exceeded") {
				t.Fatalf("run %d of %s: %v", i, chunk, err)
			}
		}
	}
}
