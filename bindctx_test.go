package zlua_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

// TestBindResumeRunsUnderAFirstContextParameter: a typed resumer whose
// first parameter is a context.Context resumes under it, as GetFunction's
// typed funcs call: a spinning thread stops at the deadline, a done
// context resumes nothing, the context never reaches the thread. Before,
// the context was pushed to Lua as an argument and the thread spun on.
func TestBindResumeRunsUnderAFirstContextParameter(t *testing.T) {
	e := newEnv(t)
	var body *zlua.Function
	must(t, e.Eval(`return function(n)
		local got = n
		while true do
			got = coroutine.yield(got * 2)
			if got == "spin" then while true do end end
		end
	end`, &body))
	defer body.Release()
	th, err := e.NewThread(body)
	must(t, err)
	defer th.Release()
	var step func(context.Context, any) (int, error)
	must(t, th.BindResume(&step))
	if v, err := step(context.Background(), 21); err != nil || v != 42 {
		t.Fatalf("step(Background, 21) = %d, %v; want 42 (the context is not an argument)", v, err)
	}
	if v, err := step(nil, 5); err != nil || v != 10 { //nolint:staticcheck // a nil context is unlimited
		t.Fatalf("step(nil, 5) = %d, %v; want 10", v, err)
	}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := step(done, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("step(cancelled) = %v, want context.Canceled", err)
	}
	if th.Done() {
		t.Fatal("a resume refused for its done context killed the thread")
	}
	ctx, cancel2 := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel2()
	start := time.Now()
	result := make(chan error, 1)
	go func() {
		_, err := step(ctx, "spin")
		result <- err
	}()
	select {
	case err := <-result:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("step(deadline, spin) = %v, want DeadlineExceeded", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("stopped after %v", d)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the spinning thread was not stopped at its deadline")
	}
	if !th.Done() {
		t.Error("the interrupted thread is not done")
	}
}
