package zlua_test

import (
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// Opaque handles are plain light userdata: zlua gives light userdata no
// metatable, so what scripts see of any light userdata (their own, or
// debug.upvalueid's) is stock Lua, and handles are recognised by Go.
func TestLightUserdataKeepStockBehaviour(t *testing.T) {
	e := newEnv(t)
	run(t, e, `
		local function f() return f end
		local lu = debug.upvalueid(f, 1)
		assert(type(lu) == "userdata")
		assert(getmetatable(lu) == nil, "light userdata got a metatable")
		assert(tostring(lu):match("^userdata: "), tostring(lu))
		local ok, err = pcall(function() return lu.x end)
		assert(not ok and err:match("a userdata value"), err)
		ok, err = pcall(function() lu.x = 1 end)
		assert(not ok and err:match("a userdata value"), err)
		-- a script may give light userdata a metatable of its own
		assert(debug.setmetatable(lu, {__index = function() return 42 end}))
		assert(lu.anything == 42)
		debug.setmetatable(lu, nil)
		assert(getmetatable(lu) == nil)`)
	if strings.HasPrefix(zlua.Backend, "Lua 5.4") {
		run(t, e, `
			local lu = debug.upvalueid(function() return e end, 1)
			local ok, err = pcall(debug.setuservalue, lu, {})
			assert(not ok and err:match("got light userdata"), err)`)
	}
}

// Errors about light userdata name handles "opaque handle" only while
// their call runs; other light userdata read "light userdata".
func TestOpaqueHandlesRecognisedByValue(t *testing.T) {
	e := newEnv(t)
	must(t, e.Register("heal", func(p *Player) {}))
	must(t, e.Register("name", func(s string) {}))
	run(t, e, `
		local up = {}
		function lu() return debug.upvalueid(function() return up end, 1) end
		function try(h, chunk) return load(chunk)(h) end`)
	var try func(any, string) error
	must(t, e.GetFunction("try", &try))
	p := &Vec3{}
	for _, c := range []struct{ chunk, want string }{
		{`go.heal(lu())`, "bad argument #1 to 'heal' (Player expected, got light userdata)"},
		{`go.name(lu())`, "bad argument #1 to 'name' (string expected, got light userdata)"},
		{`zlua.get_opaquevalue(lu())`, "bad argument #1 to 'get_opaquevalue' (opaque handle expected, got light userdata)"},
		{`local h = ...; go.name(h)`, "bad argument #1 to 'name' (string expected, got opaque handle)"},
		{`local h = ...; go.heal(h)`, "bad argument #1 to 'heal' (Player expected, got opaque handle of Vec3)"},
	} {
		wantErr(t, try(zlua.Opaque(p), c.chunk), c.want)
	}
	// after its call a handle is invalid, whatever it is passed to
	run(t, e, `function keep(h) kept = h end`)
	var keep func(any) error
	must(t, e.GetFunction("keep", &keep))
	must(t, keep(zlua.Opaque(p)))
	wantErr(t, e.DoString(`zlua.get_opaquevalue(kept)`), "invalid opaque parameter handle")
	wantErr(t, e.DoString(`go.heal(kept)`), "invalid opaque parameter handle")
}
