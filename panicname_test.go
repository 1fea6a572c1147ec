package zlua_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// A Go func another Go function returned has its maker's name; its panics
// name it as the call site does, as its argument errors do (probe Z1-F10),
// and keep the maker's name where the call names nothing. Funcs
// registered by name keep that name.
func TestPanicsOfReturnedFuncsNameTheCallSite(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("newTimer", func(limit int) func(dt int) int {
		left := limit
		return func(dt int) int {
			if dt < 0 {
				panic("negative dt")
			}
			left -= dt
			return left
		}
	}))
	must(t, e.SetGlobal("explode", func() { panic("boom") }))
	must(t, e.SetGlobal("kit", func() map[string]any {
		return map[string]any{"fire": func() { panic("jam") }}
	}))
	for _, c := range []struct{ chunk, fn, msg string }{
		{`local tick = newTimer(10); tick(-1)`, "tick", "(dostring):1: go function 'tick' panicked: negative dt"},
		{`clock = newTimer(10); clock(-1)`, "clock", "(dostring):1: go function 'clock' panicked: negative dt"},
		{`local t = {step = newTimer(1)}; t.step(-1)`, "step", "(dostring):1: go function 'step' panicked: negative dt"},
		{`local f = newTimer(1); local function g() f(-1) end; g()`, "f", "(dostring):1: go function 'f' panicked: negative dt"},
		{`local ok, err = pcall(newTimer(1), -1); error(err, 0)`, "newTimer", "go function 'newTimer' panicked: negative dt"},
		{`local k = kit(); k.fire()`, "fire", "(dostring):1: go function 'fire' panicked: jam"},
		{`local k = kit(); local shoot = k.fire; shoot()`, "shoot", "(dostring):1: go function 'shoot' panicked: jam"},
		{`local boom = explode; boom()`, "explode", "(dostring):1: go function 'explode' panicked: boom"},
	} {
		err := e.DoString(c.chunk)
		var pe *zlua.PanicError
		if !errors.As(err, &pe) || pe.Func != c.fn || !strings.HasPrefix(err.Error(), c.msg) {
			t.Errorf("%s:\n got %v (Func %q)\nwant %q (Func %q)", c.chunk, err, funcOf(pe), c.msg, c.fn)
		}
	}
}

func funcOf(pe *zlua.PanicError) string {
	if pe == nil {
		return "-"
	}
	return pe.Func
}
