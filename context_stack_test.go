package zlua

import (
	"context"
	"testing"
	"time"
)

// TestDoStringContextKeepsTheStackBalanced is the stack guard for the
// limited calls, on success, error and interruption, at top level and
// inside Go functions and coroutines.
func TestDoStringContextKeepsTheStackBalanced(t *testing.T) {
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	live, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	calls := func() {
		for name, chunk := range map[string]string{
			"success": `x = 1`, "error": `error({})`, "syntax": `x = = 1`,
		} {
			before := e.stackTop()
			_ = e.DoStringContext(live, chunk)
			if after := e.stackTop(); after != before {
				t.Errorf("DoStringContext %s: stack top %d -> %d", name, before, after)
			}
		}
		ctx, stop := context.WithTimeout(context.Background(), time.Millisecond)
		defer stop()
		before := e.stackTop()
		_ = e.DoStringContext(ctx, `while true do end`)
		if after := e.stackTop(); after != before {
			t.Errorf("DoStringContext interrupted: stack top %d -> %d", before, after)
		}
	}
	calls()
	if err := e.SetGlobal("nested", calls); err != nil {
		t.Fatal(err)
	}
	if err := e.DoString(`nested(); coroutine.wrap(nested)()`); err != nil {
		t.Fatal(err)
	}
	if err := e.DoStringContext(live, `nested(); coroutine.wrap(nested)()`); err != nil {
		t.Fatal(err)
	}
}
