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
}

// pokeScenario runs a limited call, which installs zlua's handler (unless
// ZLUA_POKE_SIGNAL=off), prints whether it is ready, and with taken lets
// the program take the signal (signal.Ignore, then signal.Notify): a slow
// limited call must then still end at its deadline, by the count hook,
// and the program must receive none of zlua's signals.
func pokeScenario(taken bool) error {
	e, err := New(Options{})
	if err != nil {
		return err
	}
	defer e.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	err = e.DoStringContext(ctx, `BIG = {} for i = 1, 1e5 do BIG[i] = i end`)
	cancel()
	if err != nil {
		return err
	}
	fmt.Println("ready:", cgo.PokeReady())
	if !taken {
		return nil
	}
	sig := syscall.Signal(cgo.PokeSignal())
	signal.Ignore(sig)
	got := make(chan os.Signal, 16)
	signal.Notify(got, sig)
	fmt.Println("ready after Notify:", cgo.PokeReady())
	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
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
}
