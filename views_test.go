package zlua_test

import (
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

func TestViewShowsOnlyItsMethods(t *testing.T) {
	e := newEnv(t)
	p := &Player{Name: "ann", HP: 3}
	must(t, e.SetGlobal("mv", zlua.AsView[Mover](p)))
	run(t, e, `mv:MoveTo(4, 5)`)
	if p.Pos != (Vec{4, 5}) {
		t.Errorf("Pos = %+v after MoveTo through the view", p.Pos)
	}
	for _, c := range []struct{ chunk, want string }{
		{`mv:Heal(1)`, "Mover has no field or method 'Heal'"},
		{`return mv.HP`, "Mover has no field or method 'HP'"},
		{`mv.HP = 1`, "Mover has no field 'HP'"},
	} {
		err := e.DoString(c.chunk)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.chunk, err, c.want)
		}
	}
	run(t, e, `assert(tostring(mv):find("^Mover: 0x"), tostring(mv))`)
}

func TestInterfaceResultPushesWithItsView(t *testing.T) {
	e := newEnv(t)
	p := &Player{Name: "ann"}
	must(t, e.SetGlobal("p", p))
	must(t, e.SetGlobal("asMover", func() Mover { return p }))
	must(t, e.SetGlobal("asAny", func() any { return p }))
	must(t, e.SetGlobal("none", func() Mover { return nil }))
	must(t, e.SetGlobal("nilPlayer", func() *Player { return nil }))
	must(t, e.SetGlobal("takeMover", func(m Mover) bool { return m.(*Player) == p }))
	run(t, e, `
		local m = asMover()
		assert(not rawequal(m, p), "declared interface result lost its view")
		assert(rawequal(m, asMover()), "views are identity-cached too")
		assert(rawequal(asAny(), p), "an empty interface is no view")
		assert(m == p)
		assert(none() == nil)
		assert(select("#", nilPlayer()) == 1 and nilPlayer() == nil)
		assert(takeMover(m) and takeMover(p))
		assert(not pcall(function() return m.Name end))
	`)
}

func TestAsViewRefusesNonInterfaces(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "interface") {
			t.Errorf("recover() = %v", r)
		}
	}()
	zlua.AsView[*Player](&Player{})
}
