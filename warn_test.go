package zlua_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

func TestWarningsGoToTheWarnOption(t *testing.T) {
	if !strings.HasPrefix(zlua.Backend, "Lua 5.4") {
		t.Skip("LuaJIT has no warnings")
	}
	var got []string
	e, err := zlua.New(zlua.Options{Warn: func(msg string) { got = append(got, msg) }})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	err = e.DoString(`
		warn("on from the start")
		warn("a", "b", "c")
		setmetatable({}, {__gc = function() error({}) end})
		collectgarbage()
		warn("@off")
		warn("hidden")
		warn("x", "@on") -- as in stock Lua: "@on" as the last piece turns them on
		warn("@bogus")   -- unknown control messages are ignored
		warn("@on")
		warn("shown")`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"on from the start", "abc", "error in __gc (error object is not a string)", "shown"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("warnings = %q, want %q", got, want)
	}
	// a warning raised while Reset closes the state reaches the sink too
	got = nil
	must(t, e.DoString(`setmetatable({}, {__gc = function() error("at close", 0) end})`))
	e.Reset(nil)
	must(t, e.Pump())
	if len(got) != 1 || got[0] != "error in __gc (at close)" {
		t.Fatalf("warnings at reset = %q", got)
	}
	must(t, e.DoString(`warn("after reset")`))
	if len(got) != 2 || got[1] != "after reset" {
		t.Fatalf("warnings after reset = %q", got)
	}
}

func TestWarningSinkPanicIsContained(t *testing.T) {
	if !strings.HasPrefix(zlua.Backend, "Lua 5.4") {
		t.Skip("LuaJIT has no warnings")
	}
	e, err := zlua.New(zlua.Options{Warn: func(msg string) { panic("sink broke") }})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	must(t, e.DoString(`warn("x") y = 1`))
	var y int
	must(t, e.Global("y", &y))
	if y != 1 {
		t.Fatalf("y = %d", y)
	}
}

func TestWarningsAreBounded(t *testing.T) {
	if !strings.HasPrefix(zlua.Backend, "Lua 5.4") {
		t.Skip("LuaJIT has no warnings")
	}
	var got []string
	e, err := zlua.New(zlua.Options{Warn: func(msg string) { got = append(got, msg) }})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	must(t, e.DoString(`local s = ("x"):rep(1 << 16) warn(s, s, s)`))
	if len(got) != 1 || len(got[0]) != 64<<10 {
		t.Fatalf("got %d warnings, first %d bytes; want one of 64 KiB", len(got), len(got[0]))
	}
}

// The Warn function runs inside the Lua call that warned: an Env call it
// makes is refused as ErrBusy, naming the Warn function. (It said
// ErrConcurrentUse, "two goroutines at once", though one goroutine made
// both calls; found by an outside probe.)
func TestEnvCallFromTheWarnFunctionIsRefusedAsBusy(t *testing.T) {
	if !strings.HasPrefix(zlua.Backend, "Lua 5.4") {
		t.Skip("LuaJIT has no warnings")
	}
	var e *zlua.Env
	var inner error
	e = newEnvWith(t, zlua.Options{Warn: func(string) { inner = e.DoString(`x = 1`) }})
	must(t, e.DoString(`warn("hello")`))
	if !errors.Is(inner, zlua.ErrBusy) || errors.Is(inner, zlua.ErrConcurrentUse) || !strings.Contains(fmt.Sprint(inner), "Warn function") {
		t.Errorf("DoString from the Warn function = %v, want ErrBusy naming the Warn function", inner)
	}
	// other goroutines still get ErrConcurrentUse while a Warn function runs
	var other error
	e2 := newEnvWith(t, zlua.Options{Warn: func(string) {
		done := make(chan error)
		go func() { done <- e.DoString(`x = 2`) }()
		other = <-done
	}})
	e = e2
	must(t, e2.DoString(`warn("hello")`))
	if !errors.Is(other, zlua.ErrConcurrentUse) {
		t.Errorf("DoString from another goroutine during the Warn function = %v, want ErrConcurrentUse", other)
	}
}
