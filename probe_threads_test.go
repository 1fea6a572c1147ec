package zlua_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

// TestThreadThatYieldsAfterItsContextEndedIsDead: a thread whose context
// ends while a Go function it called runs, and which then yields before
// the hook's next check, gets the interruption like any other
// interrupted thread: ResumeContext returns it without values and the
// thread is dead, for Go and for scripts (Lua 5.4: it is closed, and its
// to-be-closed handlers, Lua code after the context ended, are stopped). Before, the resume reported the
// interruption, dropped the yielded values and left the thread
// suspended: the next Resume went on after the yield as if nothing had
// happened.
func TestThreadThatYieldsAfterItsContextEndedIsDead(t *testing.T) {
	e := newEnv(t)
	var cancel context.CancelFunc
	must(t, e.SetGlobal("cancelNow", func() { cancel() }))
	must(t, e.SetGlobal("cancelAndWait", func() error { cancel(); return zlua.Yield("from Go") }))
	// sleep lasts until the resume's deadline has passed and its timer
	// has ended the context (a fixed sleep raced the timer on a loaded
	// machine: the context could still be live when the thread yielded)
	var curCtx context.Context
	must(t, e.SetGlobal("sleep", func() { <-curCtx.Done() }))
	tbc := ""
	if strings.HasPrefix(zlua.Backend, "Lua 5") {
		tbc = `local guard <close> = setmetatable({}, {__close = function(_, err) closedWith = err end})`
	}
	run(t, e, `
		function luaYield() `+tbc+` cancelNow() coroutine.yield("yielded") return "finished" end
		function goYield() `+tbc+` cancelAndWait() return "finished" end
		function returns() cancelNow() return "finished" end
		function expires() `+tbc+` sleep() coroutine.yield("yielded") return "finished" end`)
	for _, name := range []string{"luaYield", "goYield", "returns", "expires"} {
		for i := 0; i < 20; i++ {
			th := newThread(t, e, name)
			ctx, stop := context.WithCancel(context.Background())
			cancel = stop
			want := context.Canceled
			if name == "expires" {
				ctx, stop = context.WithTimeout(context.Background(), 5*time.Millisecond)
				want = context.DeadlineExceeded
			}
			curCtx = ctx
			run(t, e, `closedWith = nil`)
			out, err := th.ResumeContext(ctx)
			stop()
			var le *zlua.LuaError
			if !errors.Is(err, want) || !errors.As(err, &le) || !strings.Contains(err.Error(), "interrupted: "+want.Error()) {
				t.Fatalf("%s: ResumeContext = %v, %v; want the interruption", name, out, err)
			}
			if out != nil {
				t.Fatalf("%s: interrupted resume returned %v", name, out)
			}
			if !th.Done() {
				t.Fatalf("%s: the interrupted thread is not done", name)
			}
			if out, err := th.Resume(); err == nil || !strings.Contains(err.Error(), "cannot resume dead coroutine") {
				t.Fatalf("%s: Resume after the interruption = %v, %v", name, out, err)
			}
			must(t, e.SetGlobal("th", th))
			var status string
			must(t, e.Eval(`coroutine.status(th)`, &status))
			if status != "dead" {
				t.Fatalf("%s: scripts see the thread %s", name, status)
			}
			if tbc != "" && name != "returns" {
				// The thread is closed, its __close handler called with
				// the interruption, and, the context being done, the
				// handler is stopped at its first instruction, as on
				// the main thread (before rearm.c it ran with hooks off,
				// so a looping handler was never stopped).
				var closed string
				must(t, e.Eval(`tostring(closedWith)`, &closed))
				if closed != "nil" {
					t.Fatalf("%s: to-be-closed handler ran after the context ended (closed with %s)", name, closed)
				}
			}
			afterInterruption(t, e)
		}
	}
}

// TestThreadStepCompleteBeforeItsContextEndsKeepsItsValues: a context
// that ends only after ResumeContext has seen the thread yield does not
// turn the finished step into an interruption.
func TestThreadStepCompleteBeforeItsContextEndsKeepsItsValues(t *testing.T) {
	e := newEnv(t)
	run(t, e, `function steps() for i = 1, 3 do coroutine.yield(i) end return "end" end`)
	th := newThread(t, e, "steps")
	for i := 1; i <= 3; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		out, err := th.ResumeContext(ctx)
		cancel()
		if err != nil || len(out) != 1 || out[0] != int64(i) {
			t.Fatalf("step %d: %v, %v", i, out, err)
		}
	}
	resumeWant(t, th, nil, "end")
}
