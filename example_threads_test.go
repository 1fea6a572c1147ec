package zlua_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zlua-go/zlua"
)

// A game loop running scripts that wait: wait(seconds) notes the delay and
// yields the script's thread to Go, and the scheduler resumes it once the
// game clock has advanced that far. Each resume runs under the frame's
// deadline.
func ExampleThread_scheduler() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()

	var delay float64 // set by the wait that suspended the thread resumed last
	env.SetGlobal("wait", func(seconds float64) error {
		delay = seconds
		return zlua.Yield()
	})
	env.SetGlobal("say", func(who, what string) { fmt.Println(who+":", what) })
	env.DoString(`
		function guard(name)
			say(name, "on patrol")
			wait(2)
			say(name, "still on patrol")
			wait(1)
			say(name, "going home")
		end
		function merchant()
			wait(1.5)
			say("merchant", "fresh bread!")
		end`)

	type task struct {
		th   *zlua.Thread
		wake float64 // game time at which to resume
	}
	var tasks []*task
	start := func(name string, args ...any) {
		var fn *zlua.Function
		env.GetFunction(name, &fn)
		defer fn.Release()
		th, _ := env.NewThread(fn)
		tasks = append(tasks, &task{th: th})
		// The first resume passes the function's arguments.
		th.Resume(args...)
		tasks[len(tasks)-1].wake = delay
	}
	start("guard", "ann")
	start("merchant")

	for now := 0.5; len(tasks) > 0; now += 0.5 { // one frame every half second
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		live := tasks[:0]
		for _, t := range tasks {
			if t.wake <= now {
				if _, err := t.th.ResumeContext(ctx); err != nil {
					fmt.Println("script failed:", err)
				}
				t.wake = now + delay
			}
			if t.th.Done() {
				t.th.Release()
				continue
			}
			live = append(live, t)
		}
		tasks = live
		cancel()
		env.Pump()
	}
	// Output:
	// ann: on patrol
	// merchant: fresh bread!
	// ann: still on patrol
	// ann: going home
}

// Resume returns the values a thread yields (with coroutine.yield, or a Go
// function returning zlua.Yield), then its function's results.
func ExampleThread_Resume() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()

	env.DoString(`function counter(from)
		for i = from, from + 2 do
			local step = coroutine.yield(i)
			if step == "stop" then return "stopped at " .. i end
		end
		return "finished"
	end`)
	var counter *zlua.Function
	env.GetFunction("counter", &counter)
	defer counter.Release()
	th, _ := env.NewThread(counter)
	defer th.Release()

	out, _ := th.Resume(10)
	fmt.Println(out, th.Done())
	out, _ = th.Resume()
	fmt.Println(out, th.Done())
	out, _ = th.Resume("stop")
	fmt.Println(out, th.Done())
	_, err := th.Resume()
	fmt.Println(err)
	// Output:
	// [10] false
	// [11] false
	// [stopped at 11] true
	// cannot resume dead coroutine
}

// CallContext calls a Lua function under a deadline: a mod's update(dt),
// called every tick, cannot hang the server.
func ExampleFunction_CallContext() {
	env, _ := zlua.New(zlua.Options{Libs: zlua.LibsSafe})
	defer env.Close()

	env.DoString(`function update(dt)
		if dt > 1 then while true do end end -- a bug in the mod
		return dt * 2
	end`)
	var update *zlua.Function
	env.GetFunction("update", &update)
	defer update.Release()

	for _, dt := range []float64{0.5, 2} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		out, err := update.CallContext(ctx, dt)
		cancel()
		fmt.Println(out, errors.Is(err, context.DeadlineExceeded))
	}
	// A typed func whose first parameter is a context.Context does the same.
	var tick func(ctx context.Context, dt float64) error
	env.GetFunction("update", &tick)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	fmt.Println(tick(ctx, 3))
	// Output:
	// [1] false
	// [] true
	// (dostring):2: interrupted: context deadline exceeded
}

// A coroutine stepped every frame through a typed resume func: the frame
// time goes in, the time the script wants to wait comes out, and no
// allocation is made per step.
func ExampleThread_BindResume() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()
	env.SetGlobal("say", func(s string) { fmt.Println(s) })
	env.DoString(`
		function blink(dt)
			local on = false
			while true do
				on = not on
				say(on and "on" or "off")
				dt = coroutine.yield(on and 0.5 or 1.5) -- the next wait
			end
		end`)
	var blink *zlua.Function
	env.GetFunction("blink", &blink)
	th, _ := env.NewThread(blink)

	var step func(dt float64) (wait float64, err error)
	th.BindResume(&step)
	for i := 0; i < 3; i++ {
		wait, err := step(1.0 / 60)
		fmt.Println("wait", wait, err)
	}
	// Output:
	// on
	// wait 0.5 <nil>
	// off
	// wait 1.5 <nil>
	// on
	// wait 0.5 <nil>
}
