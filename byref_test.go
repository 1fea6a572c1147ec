package zlua_test

import (
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

func TestMapsAndSlicesAreCopiedUnlessByRef(t *testing.T) {
	e := newEnv(t)
	inv := map[string]int{"sword": 1}
	xs := []int{1, 2, 3}
	must(t, e.SetGlobal("invCopy", inv))
	must(t, e.SetGlobal("inv", zlua.ByRef(inv)))
	must(t, e.SetGlobal("inv2", zlua.ByRef(inv)))
	must(t, e.SetGlobal("xs", zlua.ByRef(xs)))
	run(t, e, `
		assert(type(invCopy) == "table" and type(inv) == "userdata")
		assert(rawequal(inv, inv2), "a map by reference keeps its identity")
		assert(inv.sword == 1 and inv.shield == nil and #inv == 1)
		inv.shield = 2
		inv.sword = nil
		invCopy.bow = 9
		assert(#xs == 3 and xs[2] == 2)
		xs[2] = 20
		assert(xs[4] == nil and xs[0] == nil, "past the end reads nil, as a table does")
		local ok, err = pcall(function() xs[4] = 1 end)
		assert(not ok and err:find("index 4 out of range for %[%]int of length 3 %(a slice pushed with ByRef%(s%) cannot grow"), err)
		ok, err = pcall(function() inv.sword = "x" end)
		assert(not ok and err:find("number expected, got string"), err)
	`)
	if inv["shield"] != 2 || len(inv) != 1 || inv["bow"] != 0 {
		t.Errorf("inv = %v", inv)
	}
	if xs[1] != 20 {
		t.Errorf("xs = %v", xs)
	}
	if err := e.SetGlobal("bad", zlua.ByRef(3)); err == nil || !strings.Contains(err.Error(), "map or slice or a pointer to one") {
		t.Errorf("ByRef(3) err = %v", err)
	}
}

func TestChannelsAndPointersToScalars(t *testing.T) {
	e := newEnv(t)
	ch := make(chan int, 1)
	n := 5
	must(t, e.SetGlobal("ch", ch))
	must(t, e.SetGlobal("ch2", ch))
	must(t, e.SetGlobal("send", func(c chan int, v int) { c <- v }))
	must(t, e.SetGlobal("np", &n))
	must(t, e.SetGlobal("inc", func(p *int) { *p++ }))
	run(t, e, `
		assert(type(ch) == "userdata" and rawequal(ch, ch2))
		send(ch, 7)
		inc(np)
	`)
	if got := <-ch; got != 7 || n != 6 {
		t.Errorf("got %d from the channel, n = %d", got, n)
	}
}

func TestRegisterUnderTheRootTable(t *testing.T) {
	e := newEnv(t)
	must(t, e.Register("game.NewPlayer", func(name string) *Player { return &Player{Name: name} }))
	must(t, e.Register("game.rules.MaxHP", 100))
	must(t, e.Register("version", "1.0"))
	run(t, e, `
		local p = go.game.NewPlayer("ann")
		assert(p.Name == "ann" and go.game.rules.MaxHP == 100 and go.version == "1.0")
	`)
	err := e.DoString(`go.game.NewPlayer({})`)
	if err == nil || !strings.Contains(err.Error(), "bad argument #1 to 'NewPlayer' (string expected, got table)") {
		t.Errorf("err = %v", err)
	}
	if err := e.Register("version.x", 1); err == nil || !strings.Contains(err.Error(), "'version' is not a table") {
		t.Errorf("Register over a value: %v", err)
	}
	if err := e.Register("a..b", 1); err == nil {
		t.Error("Register with an empty segment succeeded")
	}
}
