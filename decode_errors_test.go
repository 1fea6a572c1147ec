package zlua_test

import (
	"strings"
	"testing"
	"time"
)

type dArena struct {
	Weapons []dWeapon
	Armory  map[string]dWeapon
	Racks   [2]dWeapon
	Boss    *dHero
	Spawn   dVec2
	MaxHP   int `lua:"max-hp"`
	Scores  map[string][]int
	Hidden  hiddenStats
}

// hiddenStats is embedded through an unexported pointer type: Go code
// cannot allocate it from outside, so decoding refuses its fields.
type hiddenStats struct{ *dStatsHidden }

type dStatsHidden struct{ Speed float64 }

// Decoding errors name the path to the failing value: from the argument
// (bad argument #1 to 'f' (weapons[2].damage: ...)), from the global's name
// for Global, from the result for typed funcs.
func TestTableDecodeErrorsNameThePath(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("f", func(a dArena) {}))
	must(t, e.SetGlobal("fp", func(n int, a *dArena) {}))
	must(t, e.SetGlobal("list", func(ws []dWeapon) {}))
	must(t, e.SetGlobal("byname", func(ws map[string]dWeapon) {}))
	must(t, e.SetGlobal("vec", func(v dVec2) {}))
	const w = `{name = "w", damage = "lots"}`
	for _, c := range []struct{ chunk, want string }{
		{`f({weapons = {{}, ` + w + `}})`, "bad argument #1 to 'f' (weapons[2].damage: number expected, got string)"},
		{`f({Weapons = {{tags = {"a", {}}}}})`, "bad argument #1 to 'f' (Weapons[1].tags[2]: string expected, got table)"},
		{`f({armory = {axe = ` + w + `}})`, `bad argument #1 to 'f' (armory["axe"].damage: number expected, got string)`},
		{`f({racks = {{}, ` + w + `}})`, "bad argument #1 to 'f' (racks[2].damage: number expected, got string)"},
		{`f({racks = {{}, {}, {}}})`, "bad argument #1 to 'f' (racks: table has 3 elements, [2]zlua_test.dWeapon holds 2)"},
		{`f({boss = {pos = {x = "far"}}})`, "bad argument #1 to 'f' (boss.pos.x: number expected, got string)"},
		{`f({boss = 1})`, "bad argument #1 to 'f' (boss: dHero expected, got number)"},
		{`f({spawn = true})`, "bad argument #1 to 'f' (spawn: dVec2 expected, got boolean)"},
		{`f({["max-hp"] = 1.5})`, `bad argument #1 to 'f' (element ["max-hp"]: number has no integer representation)`},
		{`f({scores = {a = {1, "x"}}})`, `bad argument #1 to 'f' (scores["a"][2]: number expected, got string)`},
		{`f({weapons = "all"})`, "bad argument #1 to 'f' (weapons: table expected, got string)"},
		{`f({hidden = {speed = 1}})`, "bad argument #1 to 'f' (hidden.speed: cannot set embedded pointer to unexported struct zlua_test.dStatsHidden)"},
		{`fp(1, {weapons = {` + w + `}})`, "bad argument #2 to 'fp' (weapons[1].damage: number expected, got string)"},
		{`list({{}, ` + w + `})`, "bad argument #1 to 'list' (element [2].damage: number expected, got string)"},
		{`list({{}, 5})`, "bad argument #1 to 'list' (element [2]: dWeapon expected, got number)"},
		{`byname({bow = ` + w + `})`, `bad argument #1 to 'byname' (element ["bow"].damage: number expected, got string)`},
		{`vec("x")`, "bad argument #1 to 'vec' (dVec2 expected, got string)"},
		{`vec()`, "bad argument #1 to 'vec' (dVec2 expected, got no value)"},
	} {
		err := e.DoString(c.chunk)
		if err == nil || !strings.HasSuffix(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant suffix %q", c.chunk, err, c.want)
		}
	}

	run(t, e, `cfg = {weapons = {{}, `+w+`}}; bad = {spawn = {y = {}}}`)
	var a dArena
	if err := e.Global("cfg", &a); err == nil || err.Error() != `zlua: global "cfg": cfg.weapons[2].damage: number expected, got string` {
		t.Errorf("Global: %v", err)
	}
	var p *dArena
	if err := e.Global("bad", &p); err == nil || err.Error() != `zlua: global "bad": bad.spawn.y: number expected, got table` {
		t.Errorf("Global *struct: %v", err)
	}

	run(t, e, `function make() return {boss = {name = {}}} end`)
	var mk func() (dArena, error)
	must(t, e.GetFunction("make", &mk))
	if _, err := mk(); err == nil || err.Error() != `zlua: call "make": result #1: boss.name: string expected, got table` {
		t.Errorf("typed-func result: %v", err)
	}

	// Assignments to struct fields of objects and ByVal values.
	must(t, e.SetGlobal("hero", &dHero{}))
	must(t, e.SetGlobal("line", dLine{}))
	for _, c := range []struct{ chunk, want string }{
		{`hero.Pos = {x = "far"}`, "bad value for field 'Pos' of dHero (x: number expected, got string)"},
		{`hero.Path = {{}, {y = false}}`, "bad value for field 'Path' of dHero (element [2].y: number expected, got boolean)"},
		{`line.B = {X = {}}`, "bad value for field 'B' of dLine (X: number expected, got table)"},
	} {
		err := e.DoString(c.chunk)
		if err == nil || !strings.HasSuffix(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant suffix %q", c.chunk, err, c.want)
		}
	}
}

type dNode struct {
	Name string
	Next *dNode
	Kids []dNode
}

type dFlat struct {
	Name string
	Self dVec2
}

// A table containing itself is an error (never a hang or a stack
// overflow) where the Go type recurses, and harmless where it does not.
func TestTableDecodeCyclesAndDepth(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("node", func(n dNode) {}))
	must(t, e.SetGlobal("nodep", func(n *dNode) {}))
	must(t, e.SetGlobal("flat", func(n dFlat) string { return n.Name }))
	run(t, e, `
		loop = {name = "a"}; loop.next = loop
		kids = {}; kids.kids = {kids}
		wide = {}; wide.next = wide; wide.kids = {wide, wide}
		deep = {}
		local t = deep
		for i = 1, 100 do t.next = {}; t = t.next end
		ok = {}
		local u = ok
		for i = 1, 60 do u.next = {name = tostring(i)}; u = u.next end
		flatloop = {name = "f"}; flatloop.self = flatloop
	`)
	for _, chunk := range []string{`node(loop)`, `nodep(loop)`, `node(kids)`, `node(wide)`, `node(deep)`} {
		start := time.Now()
		err := e.DoString(chunk)
		if err == nil || !strings.HasSuffix(err.Error(), "(value nesting too deep (more than 64 levels: a cycle, or data nested that deep))") {
			t.Errorf("%s: %v", chunk, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s took %v", chunk, d)
		}
	}
	for _, name := range []string{"loop", "deep"} {
		var n dNode
		if err := e.Global(name, &n); err == nil || !strings.Contains(err.Error(), "value nesting too deep") {
			t.Errorf("Global(%s): %v", name, err)
		}
	}
	run(t, e, `node(ok)`)
	var n dNode
	must(t, e.Global("ok", &n))
	depth := 0
	for p := &n; p.Next != nil; p = p.Next {
		depth++
	}
	if depth != 60 {
		t.Errorf("60 nested tables decoded as %d", depth)
	}
	// dFlat's Self is a dVec2: the cycle is never followed.
	run(t, e, `assert(flat(flatloop) == "f")`)
}

// TestRefusedResultsLeaveTheOutsAsTheyWere: a value Eval, Global or
// Table.Get cannot convert changes no out, composite or not, and Eval
// stores none of its outs when a later one is refused.
func TestRefusedResultsLeaveTheOutsAsTheyWere(t *testing.T) {
	e := newEnv(t)
	run(t, e, `seq = {1, "x", 3}; hero = {Name = "ann", Level = "high"}; pair = {1, 2, true}
		cfg = {seq = seq, hero = hero}`)
	type hero struct {
		Name  string
		Level int
	}
	ints := []int{9}
	h := hero{Name: "kept", Level: 7}
	arr := [3]int{4, 5, 6}
	n := 11
	check := func(what string, err error) {
		t.Helper()
		if err == nil {
			t.Fatalf("%s: no error", what)
		}
		if len(ints) != 1 || ints[0] != 9 || h != (hero{"kept", 7}) || arr != [3]int{4, 5, 6} || n != 11 {
			t.Errorf("%s (%v) changed an out: %v %+v %v %d", what, err, ints, h, arr, n)
		}
	}
	check("Eval seq", e.Eval("seq", &ints))
	check("Eval hero", e.Eval("hero", &h))
	check("Eval pair", e.Eval("pair", &arr))
	check("Eval two", e.Eval("5, seq", &n, &ints))
	check("Global seq", e.Global("seq", &ints))
	check("Global hero", e.Global("hero", &h))
	check("Global cfg.hero", e.Global("cfg.hero", &h))
	check("Global pair", e.Global("pair", &arr))
	g, err := e.Globals()
	must(t, err)
	defer g.Release()
	check("Get seq", g.Get("seq", &ints))
	check("Get hero", g.Get("hero", &h))
	// and a value that converts is stored whole
	must(t, e.Eval(`5, {Name = "bo", Level = 2}`, &n, &h))
	if n != 5 || h != (hero{"bo", 2}) {
		t.Errorf("Eval stored %d %+v", n, h)
	}
}
