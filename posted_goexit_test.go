package zlua_test

import (
	"errors"
	"runtime"
	"testing"

	"github.com/zlua-go/zlua"
)

// A posted function that calls runtime.Goexit ends its goroutine, but
// not the Env's promises: the functions posted after it still run, and a
// Close it interrupts still closes the state. Before, Close left the Env
// held for good (every later call said another goroutine was using it,
// the state was never freed) and Pump dropped the rest of its batch.
// Found by an outside probe.
func TestGoexitInAPostedFunctionDuringClose(t *testing.T) {
	e, err := zlua.New(zlua.Options{})
	must(t, err)
	ran := 0
	must(t, e.Post(func(*zlua.Env) { ran++ }))
	must(t, e.Post(func(*zlua.Env) { runtime.Goexit() }))
	must(t, e.Post(func(*zlua.Env) { ran++ }))
	must(t, e.Post(func(*zlua.Env) { runtime.Goexit() })) // a second, run from the first's unwinding
	must(t, e.Post(func(*zlua.Env) { ran++ }))
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.Close()
		t.Error("Close returned on a goroutine that called runtime.Goexit")
	}()
	<-done
	if ran != 3 {
		t.Errorf("%d of the 3 other posted functions ran", ran)
	}
	if err := e.Close(); err != nil {
		t.Errorf("Close after = %v, want nil (already closed)", err)
	}
	if err := e.DoString(`x = 1`); !errors.Is(err, zlua.ErrClosed) {
		t.Errorf("DoString after = %v, want ErrClosed", err)
	}
	if b := e.Stats().LuaBytes; b != 0 {
		t.Errorf("%d bytes of the Lua state still allocated", b)
	}
}

func TestGoexitInAPostedFunctionDuringPump(t *testing.T) {
	e := newEnv(t)
	ran := 0
	must(t, e.Post(func(*zlua.Env) { runtime.Goexit() }))
	must(t, e.Post(func(e *zlua.Env) { ran++; must(t, e.DoString(`y = 2`)) }))
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.Pump()
	}()
	<-done
	if ran != 1 {
		t.Errorf("the function posted after the Goexit ran %d times", ran)
	}
	var y int
	must(t, e.Global("y", &y))
	if y != 2 {
		t.Errorf("y = %d", y)
	}
	must(t, e.Pump())
}
