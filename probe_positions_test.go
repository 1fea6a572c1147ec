package zlua_test

import (
	"context"
	"strings"
	"testing"
	"time"
)

// An interruption of a limited call names the script's line, never one of
// zlua's own Lua closures (LuaJIT's leaf and field closures, chunk
// =zlua.index, its pairs and gmatch helpers), wherever the count hook
// lands: those closures are how zlua serves the script's own call or
// index, as a C function serves them on Lua 5.4.
func TestInterruptionPositionSkipsZluaClosures(t *testing.T) {
	e := newEnv(t)
	w := &Leafer{HP: 1 << 20}
	must(t, e.SetGlobal("w", w))
	interrupted := 0
	for pad := 0; pad < 64; pad++ {
		script := strings.Repeat("local _ = 1\n", pad) + `
			for i = 1, 1e9 do
				w:Move(0, 0); local x, y = w:Position(); w.X = 0; local hp = w.HP
				for k, v in pairs({}) do end
				for s in ("a b"):gmatch("%a") do end
			end`
		// a deadline that expired before the chunk started runs nothing
		// (a loaded machine): try again
		for try := 0; try < 5; try++ {
			ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
			err := e.DoStringContext(ctx, script)
			cancel()
			if err == nil {
				t.Fatal("a limited endless loop returned nil")
			}
			msg := err.Error()
			if !strings.Contains(msg, "interrupted: context deadline exceeded") {
				continue
			}
			interrupted++
			if strings.Contains(msg, "zlua.") {
				t.Errorf("pad %d: the interruption names zlua's own closure: %v", pad, msg)
			}
			break
		}
	}
	if interrupted < 32 {
		t.Fatalf("only %d of 64 limited calls were interrupted inside Lua", interrupted)
	}
}
