package zlua_test

import (
	"testing"

	"github.com/zlua-go/zlua"
)

// On Lua 5.4 a plain binding's metatable has no __eq: two of its userdata
// are one object only when they are one userdata, which == sees without a
// metamethod, and a view's __eq answers when one operand is a view (5.4
// takes either operand's). Every comparison keeps the answer the shared
// __eq gave; LuaJIT, which calls an __eq only when both operands share
// it, keeps it on every object metatable.
func TestObjectEqualityWithoutEqOnPlainBindings(t *testing.T) {
	e := equalityEnv(t)
	must(t, e.SetGlobal("self", func(p *Player) *Player { return p }))
	run(t, e, `
		local has = debug.getmetatable(a).__eq ~= nil
		assert(has == `+map[bool]string{true: "true", false: "false"}[onLuaJIT]+`, "plain __eq")
		assert(debug.getmetatable(va).__eq ~= nil and debug.getmetatable(sa).__eq ~= nil)
		local s = self(a)
		assert(rawequal(s, a) and a == a2 and a == s)
		assert(a ~= b and b ~= a and not (a == b))
		assert(a == va and va == a and a2 == va and va ~= b and b ~= va and vb ~= a)
		assert(a ~= sa and sa ~= a and a ~= io.stdout and io.stdout ~= a and a ~= {} and a ~= 1)`)
}

// A userdata pushed without identity (a script replaced the identity
// cache through debug.getregistry) is another userdata for the same
// object: its metatable gets the shared __eq then, so == still says
// they are one object.
func TestUnkeyedPushAddsEq(t *testing.T) {
	e := newEnv(t)
	p := &Player{Name: "p"}
	bind := func(e *zlua.Env) error {
		must(t, e.SetGlobal("held", p))
		must(t, e.SetGlobal("get", func() *Player { return p }))
		must(t, e.SetGlobal("other", func() *Player { return &Player{Name: "o"} }))
		return nil
	}
	must(t, bind(e))
	run(t, e, unkeyedEqScript)
	// a Reset builds a new state: its shared __eq is the one C adds
	e.Reset(bind)
	must(t, e.Pump())
	run(t, e, unkeyedEqScript)
}

const unkeyedEqScript = `
		local reg = debug.getregistry()
		for k, v in pairs(reg) do
			if type(v) == "table" then
				for _, u in pairs(v) do
					if rawequal(u, held) then reg[k] = 42 end
				end
			end
		end
		local x, y = get(), get()
		assert(not rawequal(x, y), "the cache still answers")
		assert(x == y and y == x and x == held and held == x, "one object")
		assert(x ~= other() and debug.getmetatable(x).__eq ~= nil)`
