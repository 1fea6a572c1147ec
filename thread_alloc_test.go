package zlua

import (
	"reflect"
	"strings"
	"testing"
)

// TestThreadWhoseStackCannotGrowIsNeverLeftBroken: resuming a yielded
// thread with many arguments grows its stack. LuaJIT raises a failed
// growth on the thread itself and that resets its status, so stock LuaJIT
// leaves a yielded coroutine looking not started: a later resume calls
// whatever its stack holds ("attempt to call a string value"). zlua
// grows it under its own protection and kills a thread the raise broke.
// For allocations failing from each k on: the failed Resume reports the
// memory error, and the thread is either intact (it resumes where it
// yielded) or dead for Go and for scripts, never anything else.
func TestThreadWhoseStackCannotGrowIsNeverLeftBroken(t *testing.T) {
	args := make([]any, 300)
	for i := range args {
		args[i] = i
	}
	dead := 0
	for k := uint64(1); ; k++ {
		e, err := New(Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.DoString(`function many() return select("#", coroutine.yield()) end`); err != nil {
			t.Fatal(err)
		}
		var many *Function
		if err := e.GetFunction("many", &many); err != nil {
			t.Fatal(err)
		}
		th, err := e.NewThread(many)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := th.Resume(); err != nil {
			t.Fatal(err)
		}
		s := e.g.S
		start := s.AllocCount()
		s.FailAllocAt(k)
		out, err := th.Resume(args...)
		s.FailAllocAt(0)
		if s.AllocCount()-start < k { // the failure was never reached
			if err != nil || !reflect.DeepEqual(out, []any{int64(300)}) {
				t.Fatalf("k=%d: Resume = %v, %v", k, out, err)
			}
			th.Release()
			many.Release()
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			break
		}
		if err == nil || !strings.Contains(err.Error(), "not enough memory") {
			t.Fatalf("k=%d: Resume under failing allocations = %v, %v", k, out, err)
		}
		if err := e.SetGlobal("th", th); err != nil {
			t.Fatal(err)
		}
		if th.Done() { // killed, or failed inside: dead for Go and for scripts
			dead++
			if _, err := th.Resume(1, 2); err == nil || !strings.HasSuffix(err.Error(), "cannot resume dead coroutine") {
				t.Fatalf("k=%d: dead thread resumed: %v", k, err)
			}
			if err := e.DoString(`local ok, err = coroutine.resume(th)
				assert(not ok and err == "cannot resume dead coroutine", tostring(err))`); err != nil {
				t.Fatalf("k=%d: dead thread resumed by a script: %v", k, err)
			}
		} else { // intact: it resumes where it yielded
			if err := e.DoString(`local ok, n = coroutine.resume(th, 1, 2) assert(ok and n == 2, tostring(n))`); err != nil {
				t.Fatalf("k=%d: intact thread resumed by a script: %v", k, err)
			}
		}
		th.Release()
		many.Release()
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("threads dead after the failure: %d", dead)
}
