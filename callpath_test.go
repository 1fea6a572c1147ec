package zlua_test

import (
	"fmt"
	"testing"

	"github.com/zlua-go/zlua"
)

// Guards of the Lua→Go method call path's shortcuts (issue 10, second
// pass): the receiver read in C (argument 1 is tried as a full userdata
// first), __eq checking both metatables in one push, and a method's
// pointer result reusing the binding it got last.

// A receiver that is not a live object of the method's type is refused
// with the stock wording, whatever userdata it is: a light userdata (a
// pointer, length 0), an object whose metatable a script replaced, one of
// another type, a struct value.
func TestMethodReceiverReadFirstAsUserdata(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("p", &Player{Name: "p", HP: 3}))
	must(t, e.SetGlobal("q", &Player{Name: "q", HP: 4}))
	must(t, e.SetGlobal("m", &Monster{HP: 1}))
	must(t, e.SetGlobal("v", Vec3{1, 2, 3}))
	for _, c := range []struct{ chunk, want string }{
		{`local x; local lu = debug.upvalueid(function() return x end, 1)
		  local f = p.Hurt; f(lu, 1)`, "calling 'Player:Hurt' on bad self (Player expected, got light userdata)"},
		{`local f, mt = p.Hurt, debug.getmetatable(q)
		  debug.setmetatable(q, {__name = "Fake"})
		  local ok, err = pcall(f, q, 1)
		  debug.setmetatable(q, mt) -- its __gc releases the slot
		  error(err, 0)`,
			"calling 'Player:Hurt' on bad self (Player expected, got Fake)"},
		{`local f = p.Hurt; f(m, 1)`, "calling 'Player:Hurt' on bad self (Player expected, got Monster)"},
		{`local f = p.Hurt; f(v, 1)`, "calling 'Player:Hurt' on bad self (Player expected, got Vec3)"},
		{`local f = p.Hurt; f()`, "calling 'Player:Hurt' on bad self (Player expected, got no value)"},
		{`local f = p.Hurt; f(p, "x")`, "bad argument #1 to 'Player:Hurt' (number expected, got string)"},
	} {
		wantErr(t, e.DoString(c.chunk), c.want)
	}
	run(t, e, `assert(p:Hurt(1) == true and p:Health() == 2)`)
}

// __eq decides in C only for two live objects whose metatables are both
// the env's: an object whose metatable a script replaced compares unequal
// (what Go answers), in either position and through the metamethod called
// directly; restoring the metatable restores identity.
func TestEqualityWithAReplacedMetatable(t *testing.T) {
	e := newEnv(t)
	p := &Player{Name: "p"}
	must(t, e.SetGlobal("a", p))
	must(t, e.SetGlobal("a2", p))
	must(t, e.SetGlobal("b", &Player{Name: "b"}))
	must(t, e.SetGlobal("view", zlua.AsView[Mover](p)))
	run(t, e, `
		local mt = debug.getmetatable(a)
		local eq = debug.getmetatable(view).__eq -- the shared one (on Lua 5.4 plain objects have none)
		assert(eq(a, a2) == true and eq(a, b) == false)
		debug.setmetatable(b, {__eq = eq})
		assert(eq(a, b) == false and eq(b, a) == false and eq(b, b) == false)
		debug.setmetatable(a2, {__eq = eq})
		assert(eq(a, a2) == false and eq(a2, a) == false)
		debug.setmetatable(a2, nil)
		assert(eq(a, a2) == false and eq(a2, a) == false)
		debug.setmetatable(a2, mt)
		debug.setmetatable(b, mt)
		assert(a == a2 and eq(a, a2) == true and a ~= b)
	`)
}

// A method returning a pointer keeps identity (the same userdata each
// time) while other types are bound and pushed between its calls, which
// changes the binding the gate used last.
func TestPointerResultIdentityAcrossBindings(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("p", &Player{Name: "p", HP: 3}))
	must(t, e.SetGlobal("monster", func(hp int) *Monster { return &Monster{HP: hp} }))
	must(t, e.SetGlobal("vec", func() Vec3 { return Vec3{1, 2, 3} }))
	run(t, e, `
		local first = p:Self()
		assert(rawequal(first, p))
		for i = 1, 50 do
			local s = p:Self()
			assert(rawequal(s, p) and s:Health() == 3)
			local mo = monster(i)
			assert(mo:Health() == i)
			if i % 2 == 0 then assert(vec().X == 1) end
			assert(rawequal(p:Self(), first))
		end
	`)
}

// The trampoline reads argument 1 in the order that won at the function's
// last call (userdata first or not): a function called alternately with
// an object and with other values reads each correctly, and a method
// called with a bad self after good calls (and back) still says so.
func TestFirstArgumentReadOrderFollowsTheCalls(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("p", &Player{Name: "p", HP: 100}))
	must(t, e.SetGlobal("v", Vec3{1, 2, 3}))
	must(t, e.SetGlobal("describe", func(x any) string { return fmt.Sprintf("%T %v", x, x) }))
	run(t, e, `
		local x; local lu = debug.upvalueid(function() return x end, 1)
		local want = {describe(p), describe(1.5), describe(7), describe("s"), describe(v), describe(true)}
		assert(want[1]:find("Player", 1, true) and want[2] == "float64 1.5" and want[4] == "string s")
		local hurt = p.Hurt
		for i = 1, 20 do
			assert(describe(p) == want[1] and describe(1.5) == want[2] and describe(p) == want[1])
			assert(describe(7) == want[3] and describe("s") == want[4] and describe(v) == want[5])
			assert(describe(true) == want[6] and describe(p) == want[1])
			assert(p:Hurt(1) == true)
			local ok, err = pcall(hurt, i, 1)
			assert(not ok and err:find("bad self (Player expected, got number)", 1, true), err)
			ok, err = pcall(hurt, lu, 1)
			assert(not ok and err:find("bad self (Player expected, got light userdata)", 1, true), err)
			assert(hurt(p, 1) == true)
		end
		assert(p:Health() == 60)
	`)
}
