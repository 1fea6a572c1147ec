package zlua_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

// TestTwoEnvsOnTwoGoroutines runs two Envs at once, each on its own
// goroutine, through Go callbacks, caught and uncaught errors, panics,
// memory errors and deadlines: they must not see each other (and -race
// must stay quiet).
func TestTwoEnvsOnTwoGoroutines(t *testing.T) {
	const rounds = 300
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for w := range 2 {
		e, err := zlua.New(zlua.Options{MemoryLimit: 16 * mib, Libs: zlua.Libs(w)})
		must(t, err)
		defer e.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- worker(e, w, rounds)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func worker(e *zlua.Env, id, rounds int) error {
	calls := 0
	errBad := fmt.Errorf("bad input for env %d", id)
	if err := e.SetGlobal("id", id); err != nil {
		return err
	}
	if err := e.SetGlobal("add", func(a, b int) int { calls++; return a + b }); err != nil {
		return err
	}
	if err := e.SetGlobal("fail", func() error { return errBad }); err != nil {
		return err
	}
	if err := e.SetGlobal("boom", func() { panic(id) }); err != nil {
		return err
	}
	for i := range rounds {
		if err := e.DoString(`local s = 0 for i = 1, 100 do s = add(s, i) end assert(s == 5050 and id == ` + fmt.Sprint(id) + `)`); err != nil {
			return fmt.Errorf("env %d round %d: %w", id, i, err)
		}
		if err := e.DoString(`assert(not pcall(fail)) assert(not pcall(boom))`); err != nil {
			return fmt.Errorf("env %d round %d: %w", id, i, err)
		}
		if err := e.DoString(`fail()`); !errors.Is(err, errBad) {
			return fmt.Errorf("env %d: uncaught Go error = %v", id, err)
		}
		var pe *zlua.PanicError
		if err := e.DoString(`boom()`); !errors.As(err, &pe) || pe.Value != id {
			return fmt.Errorf("env %d: panic = %v", id, err)
		}
		if i%50 == 0 {
			if err := e.DoString(`local t = {} for i = 1, 1e8 do t[i] = i end`); !errors.Is(err, zlua.ErrMemory) {
				return fmt.Errorf("env %d: memory bomb = %v", id, err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
			err := e.DoStringContext(ctx, `while true do end`)
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				return fmt.Errorf("env %d: deadline = %v", id, err)
			}
		}
	}
	if calls != rounds*100 {
		return fmt.Errorf("env %d: %d calls, want %d", id, calls, rounds*100)
	}
	return nil
}
