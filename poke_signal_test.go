package zlua

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zlua-go/zlua/cgo"
)

// The signal that stops slow calls of limited calls (cgo/poke.c) is
// process-wide, so these scenarios run in helper processes.

func init() {
	helpers["poke-ready"] = func() error { return pokeScenario(false) }
	helpers["poke-taken"] = func() error { return pokeScenario(true) }
	helpers["poke-taken-unasked"] = pokeTakenUnasked
	helpers["poke-no-queue"] = pokeNoQueue
	helpers["poke-ignored-during"] = func() error { return pokeIgnored(true) }
	helpers["poke-ignored-before"] = func() error { return pokeIgnored(false) }
	helpers["sethook-loop"] = sethookLoop
}

// sethookLoop: a loop that does nothing but call debug.sethook, under a
// 50 ms deadline, run by the count hook alone (the test runs it with
// ZLUA_POKE_SIGNAL=off): each sethook restarted the count, which never
// ran out (outside probe E1-F7). Prints "stopped" once the deadline ended
// it; exits with status 3 when still running 5 s later.
func sethookLoop() error {
	e, err := New(Options{})
	if err != nil {
		return err
	}
	for _, loop := range []string{
		`while true do debug.sethook() end`,
		`local f = function() end while true do debug.sethook(f, "", 0) end`,
	} {
		done := make(chan error, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			done <- e.DoStringContext(ctx, loop)
		}()
		select {
		case err := <-done:
			if !errors.Is(err, context.DeadlineExceeded) {
				return fmt.Errorf("%s: %v, want the deadline", loop, err)
			}
		case <-time.After(5 * time.Second):
			fmt.Println("still running 5 s after its deadline:", loop)
			os.Exit(3)
		}
	}
	fmt.Println("stopped")
	return e.Close()
}

// pokeIgnored: the program sets the signal to ignored (signal.Ignore),
// during a lazy limited call running a loop that neither allocates nor
// calls, or just before one (within the start's 10 ms reuse of its last
// look at the handler, so the call still starts lazy). Nothing but the
// signal can stop that loop, and nobody handles the signal any more:
// zlua takes it back (outside probe E1-F1: the loop ran on forever).
func pokeIgnored(during bool) error {
	e, err := envAfterALimitedCall()
	if err != nil {
		return err
	}
	defer e.Close()
	sig := syscall.Signal(cgo.PokeSignal())
	if during {
		go func() {
			time.Sleep(20 * time.Millisecond)
			signal.Ignore(sig)
		}()
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
		err := e.DoStringContext(ctx, `x = 1`) // a fresh look at the handler
		cancel()
		if err != nil {
			return err
		}
		signal.Ignore(sig)
	}
	if err := pureLoopStops(e); err != nil {
		return err
	}
	fmt.Println("ready after:", cgo.PokeReady())
	return nil
}

// rlimitSigpending is Linux's RLIMIT_SIGPENDING (the syscall package has
// no name for it).
const rlimitSigpending = 11

// pokeNoQueue: with a pending-signal limit of 0 no real-time signal can
// be queued (tgkill fails with EAGAIN), so a lazy limit would never be
// armed: the limited call must count from its start and stop a loop that
// neither allocates nor calls (outside probe D1-F3).
func pokeNoQueue() error {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(rlimitSigpending, &rl); err != nil {
		return err
	}
	rl.Cur = 0
	if err := syscall.Setrlimit(rlimitSigpending, &rl); err != nil {
		return err
	}
	e, err := New(Options{})
	if err != nil {
		return err
	}
	if err := pureLoopStops(e); err != nil {
		return err
	}
	return e.Close()
}

// pureLoopStops runs a loop that neither allocates nor calls under a 50
// ms deadline and prints "stopped" once the deadline ended it; still
// running 5 s later, the helper process exits with status 3 (the Env is
// busy: it cannot be closed).
func pureLoopStops(e *Env) error {
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		done <- e.DoStringContext(ctx, `while true do end`)
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("pure loop: %v, want the deadline", err)
		}
	case <-time.After(5 * time.Second):
		fmt.Println("still running 5 s after its deadline")
		os.Exit(3)
	}
	fmt.Println("stopped")
	return nil
}

// pokeTakenUnasked: the program takes the signal after zlua's first
// limited call and, without asking zlua anything, runs a limited loop that
// neither allocates nor calls once the start's last look at the handler
// is stale (cgo/zlua.h, ZLUA_POKE_RECHECK_NS: 10 ms). That call must see
// the handler is not zlua's and count from its start: with no count hook
// (a lazy limit) and no signal, nothing would stop it.
func pokeTakenUnasked() error {
	e, err := envAfterALimitedCall()
	if err != nil {
		return err
	}
	defer e.Close()
	sig := syscall.Signal(cgo.PokeSignal())
	signal.Ignore(sig)
	signal.Notify(make(chan os.Signal, 16), sig)
	time.Sleep(30 * time.Millisecond)
	return pureLoopStops(e)
}

// envAfterALimitedCall returns a new Env that has made one limited call
// (which installs zlua's handler of the poke signal, unless
// ZLUA_POKE_SIGNAL=off) and holds BIG, a sorted table of 10^5 integers.
func envAfterALimitedCall() (*Env, error) {
	e, err := New(Options{})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	if err := e.DoStringContext(ctx, `BIG = {} for i = 1, 1e5 do BIG[i] = i end`); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// pokeScenario runs a limited call, which installs zlua's handler (unless
// ZLUA_POKE_SIGNAL=off), prints whether it is ready, and with taken lets
// the program take the signal (signal.Ignore, then signal.Notify): a slow
// limited call must then still end at its deadline, by the count hook,
// and the program must receive none of zlua's signals.
func pokeScenario(taken bool) error {
	e, err := envAfterALimitedCall()
	if err != nil {
		return err
	}
	defer e.Close()
	fmt.Println("ready:", cgo.PokeReady())
	if !taken {
		return nil
	}
	sig := syscall.Signal(cgo.PokeSignal())
	signal.Ignore(sig)
	got := make(chan os.Signal, 16)
	signal.Notify(got, sig)
	fmt.Println("ready after Notify:", cgo.PokeReady())
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := e.DoStringContext(ctx, `while true do table.sort(BIG) end`); !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("slow loop: %v, want the deadline", err)
	}
	select {
	case s := <-got:
		return fmt.Errorf("the program received %v from zlua", s)
	case <-time.After(200 * time.Millisecond):
	}
	return nil
}

// TestPokeSignalCanBeTurnedOffOrTaken: the handler is installed by the
// first limited call; ZLUA_POKE_SIGNAL=off keeps it out; once the program
// takes the signal, zlua sends it no more.
func TestPokeSignalCanBeTurnedOffOrTaken(t *testing.T) {
	out, _ := runInProcess(t, "poke-ready")
	if !strings.Contains(out, "ready: true") {
		t.Errorf("default: %q, want the handler installed", out)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=poke-ready", "ZLUA_POKE_SIGNAL=off")
	b, err := cmd.Output()
	if err != nil || !strings.Contains(string(b), "ready: false") {
		t.Errorf("ZLUA_POKE_SIGNAL=off: %q, %v; want no handler", b, err)
	}
	out, _ = runInProcess(t, "poke-taken")
	if !strings.Contains(out, "ready after Notify: false") {
		t.Errorf("taken: %q", out)
	}
	out, _ = runInProcess(t, "poke-taken-unasked")
	if !strings.Contains(out, "stopped") {
		t.Errorf("taken, unasked: %q", out)
	}
	out, _ = runInProcess(t, "poke-no-queue")
	if !strings.Contains(out, "stopped") {
		t.Errorf("no signal queue: %q", out)
	}
	cmd = exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=sethook-loop", "ZLUA_POKE_SIGNAL=off")
	if b, err := cmd.Output(); err != nil || !strings.Contains(string(b), "stopped") {
		t.Errorf("sethook in a loop, count hook alone: %q, %v", b, err)
	}
	for _, h := range []string{"poke-ignored-during", "poke-ignored-before"} {
		out, _ = runInProcess(t, h)
		if !strings.Contains(out, "stopped") || !strings.Contains(out, "ready after: true") {
			t.Errorf("%s: %q, want the loop stopped and the signal zlua's again", h, out)
		}
	}
}
