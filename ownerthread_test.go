package zlua_test

import (
	"errors"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

// spinLua keeps Lua running, without calling Go, for about half a second
// of CPU time: long enough for another goroutine to look at the gate
// between two Go functions of one call.
const spinLua = `local t = os.clock() while os.clock() - t < 0.5 do end`

// TestOwnerThreadIsRecordedOnlyWhileGoRuns: the owner's OS thread is
// named (so Env calls made from inside a Go function Lua called nest)
// exactly while such a function runs: not while Lua runs between two of
// them, after one panicked, nor after the outermost call. Other
// goroutines meanwhile get ErrConcurrentUse.
func TestOwnerThreadIsRecordedOnlyWhileGoRuns(t *testing.T) {
	for _, tc := range []struct{ name, script string }{
		{"returned", "cb() " + spinLua},
		{"panicked", "assert(not pcall(boom)) " + spinLua},
		{"nested", "outer() " + spinLua},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			inside := make(chan uintptr, 1)
			tell := func() { // the first Go function's record, for the test
				select {
				case inside <- zlua.OwnerThread(e):
				default:
				}
			}
			fail := make(chan string, 4)
			must := func(err error) {
				if err != nil {
					t.Fatal(err)
				}
			}
			must(e.SetGlobal("cb", tell))
			must(e.SetGlobal("boom", func() {
				tell()
				panic("boom")
			}))
			must(e.SetGlobal("outer", func() error {
				// a nested call's Go function leaves the record to the
				// outermost one: a second nested call still passes
				if err := e.DoString("cb()"); err != nil {
					return err
				}
				if zlua.OwnerThread(e) == 0 {
					fail <- "the record ended with a nested Go function"
				}
				return e.DoString("cb()")
			}))
			done := make(chan error, 1)
			go func() { done <- e.DoString(tc.script) }()
			if w := <-inside; w == 0 {
				t.Fatal("no owner thread recorded while a Go function runs")
			}
			time.Sleep(50 * time.Millisecond) // Lua is spinning now
			if err := e.DoString("x = 1"); !errors.Is(err, zlua.ErrConcurrentUse) {
				t.Fatalf("another goroutine during the call: %v, want ErrConcurrentUse", err)
			}
			if w := zlua.OwnerThread(e); w != 0 {
				t.Errorf("owner thread %#x recorded while only Lua runs", w)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			select {
			case msg := <-fail:
				t.Fatal(msg)
			default:
			}
			if w := zlua.OwnerThread(e); w != 0 {
				t.Errorf("owner thread %#x recorded after the call", w)
			}
		})
	}
}
