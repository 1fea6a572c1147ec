package zlua_test

import (
	"errors"
	"testing"

	"github.com/zlua-go/zlua"
)

var errInventoryFull = errors.New("inventory full")

// A Go error or panic raised inside a coroutine.wrap function keeps its Go
// cause: wrap puts the caller's position before the string it raises
// again (stock behaviour, both backends), and the gate knows the string
// behind such positions, as behind error(e)'s.
func TestGoErrorsThroughCoroutineWrapKeepTheirCause(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("pick", func() error { return errInventoryFull }))
	must(t, e.SetGlobal("boom", func() { panic("boom") }))
	for _, chunk := range []string{
		`pick()`,
		`coroutine.wrap(function() pick() end)()`,
		`coroutine.wrap(function() coroutine.wrap(function() pick() end)() end)()`,
		`local ok, err = pcall(pick); error(err)`,
		`local ok, err = pcall(pick); error(err, 2)`,
	} {
		if err := e.DoString(chunk); !errors.Is(err, errInventoryFull) {
			t.Errorf("%s: errors.Is = false: %v", chunk, err)
		}
	}
	for _, chunk := range []string{`boom()`, `coroutine.wrap(function() boom() end)()`} {
		var pe *zlua.PanicError
		if err := e.DoString(chunk); !errors.As(err, &pe) {
			t.Errorf("%s: not a *PanicError: %v", chunk, err)
		}
	}
	// a script's own error that ends like the Go error's text is not it
	for _, chunk := range []string{
		`local ok, err = pcall(pick); error("bag " .. err, 0)`,
		`error("inventory full", 0)`,
		`error("inventory full")`,
	} {
		if err := e.DoString(chunk); errors.Is(err, errInventoryFull) {
			t.Errorf("%s: a script's own error taken for the Go error: %v", chunk, err)
		}
	}
}
