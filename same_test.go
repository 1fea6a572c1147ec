package zlua_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// Handles made by separate crossings of one Lua value are Same; of two
// values, not, whatever __eq says (Z1-F7: an event bus's off(handler)).
func TestSameTellsHandlesOfOneLuaValue(t *testing.T) {
	e := newEnv(t)
	var subs []*zlua.Function
	must(t, e.SetGlobal("on", func(f *zlua.Function) { subs = append(subs, f) }))
	must(t, e.SetGlobal("off", func(f *zlua.Function) (int, error) {
		removed := 0
		kept := subs[:0]
		for _, s := range subs {
			same, err := s.Same(f)
			if err != nil {
				return 0, err
			}
			if same {
				removed++
				continue
			}
			kept = append(kept, s)
		}
		subs = kept
		return removed, nil
	}))
	var tabs []*zlua.Table
	must(t, e.SetGlobal("keep", func(a, b *zlua.Table) { tabs = append(tabs, a, b) }))
	var ths []*zlua.Thread
	must(t, e.SetGlobal("keepco", func(a, b *zlua.Thread) { ths = append(ths, a, b) }))
	run(t, e, `
		local function h1() end
		local function h2() end
		on(h1); on(h2); on(h1)
		assert(off(h1) == 2, "both h1 removed")
		-- tables whose __eq says equal are still two tables
		local mt = {__eq = function() return true end}
		local a, b = setmetatable({}, mt), setmetatable({}, mt)
		assert(a == b)
		keep(a, a); keep(a, b)
		local co = coroutine.create(h1)
		keepco(co, co); keepco(co, coroutine.create(h2))`)
	if len(subs) != 1 {
		t.Fatalf("subscriptions left: %d, want 1 (h2)", len(subs))
	}
	for i, want := range []bool{true, false} {
		got, err := tabs[2*i].Same(tabs[2*i+1])
		if err != nil || got != want {
			t.Errorf("tables %d: Same = %v, %v; want %v", i, got, err, want)
		}
		got, err = ths[2*i].Same(ths[2*i+1])
		if err != nil || got != want {
			t.Errorf("threads %d: Same = %v, %v; want %v", i, got, err, want)
		}
	}
	// a handle is the same as itself; a method binding compares its function
	var g *zlua.Table
	must(t, e.Global("string", &g))
	var viaMethod, viaGlobal *zlua.Function
	must(t, g.Method("upper", &viaMethod))
	must(t, e.GetFunction("string.upper", &viaGlobal))
	for _, p := range [][2]*zlua.Function{{viaGlobal, viaGlobal}, {viaMethod, viaGlobal}} {
		if same, err := p[0].Same(p[1]); err != nil || !same {
			t.Errorf("Same(%s, %s) = %v, %v; want true", p[0].Name(), p[1].Name(), same, err)
		}
	}
}

// Same refuses what every other use of a handle refuses, on either side,
// and handles of two Envs are never the same.
func TestSameRefusesUnusableHandles(t *testing.T) {
	e, other := newEnv(t), newEnv(t)
	run(t, e, `f, g = print, tostring`)
	run(t, other, `f = print`)
	var f, g, f2, fo *zlua.Function
	must(t, e.GetFunction("f", &f))
	must(t, e.GetFunction("g", &g))
	must(t, e.GetFunction("f", &f2))
	must(t, other.GetFunction("f", &fo))
	if same, err := f.Same(fo); err != nil || same {
		t.Errorf("handles of two Envs: Same = %v, %v; want false, nil", same, err)
	}
	var nilFn *zlua.Function
	for name, c := range map[string]struct {
		a, b *zlua.Function
		want string
	}{
		"nil receiver": {nilFn, f, "zlua: function same: nil handle"},
		"nil other":    {f, nil, "zlua: function same: nil handle"},
		"zero handle":  {f, &zlua.Function{}, "zlua: function same: handle not made by an Env"},
	} {
		same, err := c.a.Same(c.b)
		if same || err == nil || err.Error() != c.want {
			t.Errorf("%s: Same = %v, %v; want %q", name, same, err, c.want)
		}
	}
	copied := *g
	if _, err := f.Same(&copied); !errors.Is(err, zlua.ErrCopied) {
		t.Errorf("copied handle: err = %v, want ErrCopied", err)
	}
	f2.Release()
	for _, p := range [][2]*zlua.Function{{f, f2}, {f2, f}} {
		if _, err := p[0].Same(p[1]); !errors.Is(err, zlua.ErrReleased) {
			t.Errorf("released handle: err = %v, want ErrReleased", err)
		}
	}
	e.Reset(nil)
	must(t, e.Pump())
	if _, err := f.Same(g); !errors.Is(err, zlua.ErrStale) || !strings.HasPrefix(err.Error(), "zlua: function same: ") {
		t.Errorf("after Reset: err = %v, want ErrStale named", err)
	}
	// another Env's handle is only checked for what needs no claim of
	// that Env (made, not copied, not released): it is never the same
	if same, err := fo.Same(f); err != nil || same {
		t.Errorf("fresh against another Env's stale handle: Same = %v, %v; want false, nil", same, err)
	}
	var tnil *zlua.Table
	var thnil *zlua.Thread
	if _, err := tnil.Same(nil); err == nil || err.Error() != "zlua: table same: nil handle" {
		t.Errorf("nil table: %v", err)
	}
	if _, err := thnil.Same(nil); err == nil || err.Error() != "zlua: thread same: nil handle" {
		t.Errorf("nil thread: %v", err)
	}
}
