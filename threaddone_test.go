package zlua_test

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/zlua-go/zlua"
)

// TestThreadDoneFromAnotherGoroutineLeavesTheOwnerAlone (outside probe
// E1-F5): Done reads the thread's status under a short claim of the Env.
// Polled from another goroutine, that claim used to make the owner's
// Resume that began meanwhile fail with ErrConcurrentUse (11 runs of 12
// within 20,000 resumes); the owner now waits for the read.
func TestThreadDoneFromAnotherGoroutineLeavesTheOwnerAlone(t *testing.T) {
	e := newEnv(t)
	run(t, e, `function body() for i = 1, 5000 do coroutine.yield(i) end end`)
	var body *zlua.Function
	must(t, e.GetFunction("body", &body))
	defer body.Release()
	th, err := e.NewThread(body)
	must(t, err)
	defer th.Release()
	var stop atomic.Bool
	var polls atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			_ = th.Done()
			polls.Add(1)
		}
	}()
	for polls.Load() == 0 {
		runtime.Gosched() // the poller is running
	}
	for i := 1; i <= 5000; i++ {
		out, err := th.Resume()
		if err != nil {
			stop.Store(true)
			wg.Wait()
			t.Fatalf("resume %d (after %d polls of Done): %v", i, polls.Load(), err)
		}
		if len(out) != 1 {
			t.Fatalf("resume %d: %v", i, out)
		}
		must(t, e.Pump()) // a Claim, also refused before
	}
	stop.Store(true)
	wg.Wait()
	if _, err := th.Resume(); err != nil || !th.Done() {
		t.Fatalf("the last resume: %v, done %v", err, th.Done())
	}
}

// TestOwnersDoneIsExactWhileAnotherGoroutinePolls (outside probe G1-F6):
// the owner asking Done with the Env idle, of a thread a script finished,
// while another goroutine polls Done, reads the thread's status: it waits
// for the other read instead of answering what an earlier read saw.
func TestOwnersDoneIsExactWhileAnotherGoroutinePolls(t *testing.T) {
	e := newEnv(t)
	var cur atomic.Pointer[zlua.Thread]
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			if th := cur.Load(); th != nil {
				th.Done()
			}
			runtime.Gosched()
		}
	}()
	wrong := 0
	for i := 0; i < 3000; i++ {
		var th *zlua.Thread
		must(t, e.Eval(`co = coroutine.create(function() coroutine.yield() end) coroutine.resume(co) return co`, &th))
		cur.Store(th)
		if th.Done() {
			wrong++ // suspended: not done
		}
		run(t, e, `coroutine.resume(co)`) // the script finishes it
		if !th.Done() {
			wrong++
		}
		cur.Store(nil)
		th.Release()
	}
	stop.Store(true)
	wg.Wait()
	if wrong != 0 {
		t.Errorf("the owner's Done was wrong %d times in 6000", wrong)
	}
}
