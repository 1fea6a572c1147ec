package zlua_test

import (
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

type Door struct{ Open bool }

func (d *Door) Wait() error { return zlua.Yield("waiting") }
func (d *Door) Boom()       { panic("hinge broke") }
func (d *Door) Toggle()     { d.Open = !d.Open }

func TestMethodsInCoroutinesYieldAndPanic(t *testing.T) {
	e := newEnv(t)
	d := &Door{}
	must(t, e.SetGlobal("door", d))
	run(t, e, `
		local co = coroutine.create(function()
			door:Toggle()
			door:Wait()
			door:Toggle()
			return "done"
		end)
		local ok, v = coroutine.resume(co)
		assert(ok and v == "waiting", tostring(v))
		assert(door.Open == true)
		ok, v = coroutine.resume(co)
		assert(ok and v == "done", tostring(v))
		assert(door.Open == false)
	`)
	err := e.DoString(`door:Boom()`)
	if err == nil || !strings.Contains(err.Error(), "go function 'Door:Boom' panicked: hinge broke") {
		t.Errorf("err = %v", err)
	}
}

// Methods with common signatures run without reflection; the others
// through reflect: both must convert arguments and results alike.
func TestMethodSignatures(t *testing.T) {
	e := newEnv(t)
	p := &Player{Name: "ann", HP: 1}
	must(t, e.SetGlobal("p", p))
	run(t, e, `
		p:Heal(2)                       -- i:
		assert(p:Health() == 3)         -- :i
		p:MoveTo(1, 2)                  -- ff:
		p:Rename("bo")                  -- s:
		assert(p:Alive())               -- :b
		local x, y = p:Position()       -- :ff
		assert(x == 1 and y == 2, x)
		assert(p:Hurt(1) == true and p:Hurt(-1) == true) -- i:b
		local ok, err = pcall(p.Hurt, p, "x")
		assert(not ok and err:find("bad argument #1 to 'Player:Hurt' (number expected, got string)", 1, true), err)
		assert(tostring(p) == "Player(bo)") -- :s through __tostring
		assert(p:Sum() == 0 and p:Sum(4, 5) == 9) -- variadic: reflect
		local ok, err = pcall(p.Heal, p, 1.5)
		assert(not ok and err:find("bad argument #1 to 'Player:Heal' %(number has no integer representation%)"), err)
	`)
	if p.HP != 3 || p.Name != "bo" || p.Pos != (Vec{1, 2}) {
		t.Errorf("player = %+v", p)
	}
}
