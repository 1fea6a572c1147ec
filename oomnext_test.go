package zlua_test

import (
	"testing"

	"github.com/zlua-go/zlua"
)

// TestACaughtMemoryErrorDoesNotFailTheNextCall: a script that catches its
// own memory error and returns normally leaves the heap at the limit full
// of garbage. The next call, whatever its kind, must not fail for it. On
// LuaJIT, which reports a failed allocation without collecting first, it
// did (ErrMemory for an innocent chunk, probe P2 F5); zlua now collects
// before the next outermost operation. Lua 5.4 collects on its own.
func TestACaughtMemoryErrorDoesNotFailTheNextCall(t *testing.T) {
	const bomb = `pcall(function() local t = {} while true do t[#t+1] = {} end end)`
	for name, next := range map[string]func(e *zlua.Env) error{
		"DoString": func(e *zlua.Env) error {
			return e.DoString(`local t = {} for i = 1, 100 do t[i] = {i} end`)
		},
		"Function.Call": func(e *zlua.Env) error {
			var f *zlua.Function
			if err := e.GetFunction("innocent", &f); err != nil {
				return err
			}
			defer f.Release()
			_, err := f.Call(100)
			return err
		},
		"typed func": func(e *zlua.Env) error {
			var f func(int) (int, error)
			if err := e.GetFunction("innocent", &f); err != nil {
				return err
			}
			_, err := f(100)
			return err
		},
	} {
		e, err := zlua.New(zlua.Options{Libs: zlua.LibsSafe, MemoryLimit: 8 << 20})
		must(t, err)
		run(t, e, `function innocent(n) local t = {} for i = 1, n do t[i] = {i} end return #t end`)
		for i := 0; i < 2; i++ {
			run(t, e, bomb)
			if err := next(e); err != nil {
				t.Errorf("%s after a caught memory error (round %d): %v", name, i, err)
			}
		}
		must(t, e.Close())
	}
}
