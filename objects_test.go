package zlua_test

import (
	"strings"
	"testing"
)

func TestPointerPushedTwiceIsTheSameUserdata(t *testing.T) {
	e := newEnv(t)
	p := &Player{Name: "ann"}
	must(t, e.SetGlobal("a", p))
	must(t, e.SetGlobal("b", p))
	must(t, e.SetGlobal("get", func() *Player { return p }))
	run(t, e, `
		assert(type(a) == "userdata")
		assert(rawequal(a, b), "same pointer, two userdata")
		assert(rawequal(get(), a))
		local t = {}
		t[a] = 1
		assert(t[b] == 1 and t[get()] == 1, "not the same table key")
	`)
	if s := e.Stats(); s.LiveObjects != 1 || s.CacheHits < 2 {
		t.Errorf("stats = %+v, want 1 live object and cache hits", s)
	}
}

func TestMethodsAndFields(t *testing.T) {
	e := newEnv(t)
	p := &Player{Name: "ann", HP: 10, Level: 3, Secret: "s"}
	p.ID = 7
	must(t, e.SetGlobal("p", p))
	run(t, e, `
		p:MoveTo(1.5, 2)
		p:Heal(5)
		assert(p:Health() == 15)
		assert(p.HP == 15 and p.Name == "ann")
		p.Name = "bob"
		p:Rename(p.Name .. "!")
		assert(p:Alive() == true)
		assert(rawequal(p:Self(), p))
		assert(p:Describe() == "entity 7", "promoted value-receiver method")
		assert(p.ID == 7, "promoted field")
		assert(p.lvl == 3, "renamed field")
		assert(p.Pos.X == 1.5 and p.Pos.Y == 2)
		p.Pos.X = 9
		assert(p:Sum(1, 2, 3) == 6)
		assert(tostring(p) == "Player(bob!)")
		local ok, err = pcall(p.Fail, p)
		assert(not ok and err:find("player failed"), err)
	`)
	if p.Name != "bob!" || p.HP != 15 || p.Pos != (Vec{9, 2}) {
		t.Errorf("player = %+v", p)
	}
}

func TestMissingAndHiddenFields(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("p", &Player{}))
	for _, c := range []struct{ chunk, want string }{
		{`return p.Fly`, `(dostring):1: Player has no field or method 'Fly'`},
		{`p.Fly = 1`, `(dostring):1: Player has no field 'Fly'`},
		{`return p.Secret`, "Player has no field or method 'Secret'"},
		{`return p.hidden`, "Player has no field or method 'hidden'"},
		{`return p.Level`, "Player has no field or method 'Level'"},
		{`p.Fly = 1`, "Player has no field 'Fly'"},
		{`p.HP = "lots"`, "bad value for field 'HP' of Player (number expected, got string)"},
		{`getmetatable(p).__index = nil`, "attempt to index a string value"},
	} {
		err := e.DoString(c.chunk)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.chunk, err, c.want)
		}
	}
}

// A slot is handed out while the push program is written, before C makes
// its userdata. When the push fails later in the same program, the
// userdata never exists and the slot must not stay live.
func TestFailedPushReleasesSlots(t *testing.T) {
	e := newEnv(t)
	base := e.Stats().LiveObjects
	if err := e.SetGlobal("x", []any{&Player{}, &Monster{}, complex(1, 1)}); err == nil {
		t.Fatal("SetGlobal with a complex number inside succeeded")
	}
	if got := e.Stats().LiveObjects; got != base {
		t.Errorf("LiveObjects = %d after a failed push, want %d", got, base)
	}
	// The same inside a Go function whose result cannot be pushed.
	must(t, e.SetGlobal("bad", func() []any { return []any{&Player{}, complex(1, 1)} }))
	if err := e.DoString(`bad()`); err == nil {
		t.Fatal("bad() succeeded")
	}
	if got := e.Stats().LiveObjects; got != base {
		t.Errorf("LiveObjects = %d after a failed result push, want %d", got, base)
	}
}
