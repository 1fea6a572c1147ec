package zlua_test

import (
	"strings"
	"testing"
)

func TestObjectArgumentErrors(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("p", &Player{HP: 1}))
	must(t, e.SetGlobal("m", &Monster{HP: 2}))
	must(t, e.SetGlobal("Heal", func(p *Player, n int) { p.HP += n }))
	must(t, e.SetGlobal("mover", func(m Mover) {}))
	must(t, e.SetGlobal("anything", func(x any) any { return x }))
	run(t, e, `
		Heal(p, 1)
		assert(p.HP == 2)
		mover(p)
		assert(rawequal(anything(p), p), "any keeps the object")
	`)
	for _, c := range []struct{ chunk, want string }{
		{`p:MoveTo("x", 1)`, "bad argument #1 to 'Player:MoveTo' (number expected, got string)"},
		{`p:MoveTo(1)`, "bad argument #2 to 'Player:MoveTo' (number expected, got no value)"},
		{`Heal(io.stdout, 1)`, "bad argument #1 to 'Heal' (Player expected, got FILE*)"},
		{`Heal(m, 1)`, "bad argument #1 to 'Heal' (Player expected, got Monster)"},
		{`Heal(true, 1)`, "bad argument #1 to 'Heal' (Player expected, got boolean)"},
		{`Heal(Heal, 1)`, "bad argument #1 to 'Heal' (Player expected, got function)"},
		{`mover(m)`, "bad argument #1 to 'mover' (Mover expected, got Monster)"},
		{`p.MoveTo(m, 1, 2)`, "calling 'Player:MoveTo' on bad self (Player expected, got Monster)"},
		{`p.MoveTo(io.stdout, 1, 2)`, "calling 'Player:MoveTo' on bad self (Player expected, got FILE*)"},
		{`p.Health(42)`, "calling 'Player:Health' on bad self (Player expected, got number)"},
	} {
		err := e.DoString(c.chunk)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.chunk, err, c.want)
		}
	}
}

func TestReleasedObjectErrors(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("p", &Player{HP: 1}))
	must(t, e.SetGlobal("Heal", func(p *Player, n int) { p.HP += n }))
	// Finalizers resurrect the userdata after its own __gc released it.
	run(t, e, `
		local function sentinel(fn)
			if newproxy then
				local s = newproxy(true); getmetatable(s).__gc = fn; return s
			end
			return setmetatable({}, {__gc = fn})
		end
		do
			local o = p
			p = nil
			sentinel(function() saved = o end)
		end
		if jit then jit.flush() end
		collectgarbage(); collectgarbage()
		assert(saved, "finalizer did not run")
	`)
	for _, chunk := range []string{
		`return saved.HP`,
		`saved.HP = 3`,
		`saved:Heal(1)`,
		`Heal(saved, 1)`,
		`return tostring(saved)`,
	} {
		err := e.DoString(chunk)
		if err == nil || !strings.Contains(err.Error(), "attempt to use a released object") {
			t.Errorf("%s: err = %v, want the released-object error", chunk, err)
		}
	}
	run(t, e, `assert(saved ~= nil and not (saved == saved and false))`)
}

// Go reads a foreign or released userdata through Global with the same
// checks as arguments.
func TestGlobalReadsObjects(t *testing.T) {
	e := newEnv(t)
	p := &Player{Name: "ann"}
	must(t, e.SetGlobal("p", p))
	if got := global[*Player](t, e, "p"); got != p {
		t.Errorf("Global(*Player) = %p, want %p", got, p)
	}
	if got := global[Player](t, e, "p"); got.Name != "ann" {
		t.Errorf("Global(Player) = %+v", got)
	}
	var m *Monster
	if err := e.Global("p", &m); err == nil || !strings.Contains(err.Error(), "Monster expected, got Player") {
		t.Errorf("Global(*Monster) err = %v", err)
	}
	run(t, e, `f = io.stdout; s = "text"`)
	if err := e.Global("s", &m); err == nil || !strings.Contains(err.Error(), "Monster expected, got string") {
		t.Errorf("Global(string) err = %v", err)
	}
	if err := e.Global("f", &m); err == nil || !strings.Contains(err.Error(), "Monster expected, got FILE*") {
		t.Errorf("Global(FILE*) err = %v", err)
	}
}
