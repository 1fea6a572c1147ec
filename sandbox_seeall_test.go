package zlua_test

import (
	"testing"
)

// On LuaJIT the sandbox's package.seeall refuses a table whose metatable
// is protected: stock writes __index = _G into it through the raw API, so
// a mod could turn the host's read-only proxy into a window on the globals
// for every script (probe B2-F1). module(..., package.seeall) still works.
func TestSandboxSeeallKeepsProtectedMetatables(t *testing.T) {
	e := newSafeEnv(t)
	run(t, e, `config = setmetatable({}, {__index = {max_players = 16},
		__newindex = function() error("read-only", 2) end, __metatable = "locked"})`)
	const mod = `
		local out = {}
		out[1] = select(2, pcall(setmetatable, config, {}))
		if package.seeall then
			out[2] = select(2, pcall(package.seeall, config))
			out[3] = select(2, pcall(package.seeall, 1))
			local m = {}
			package.seeall(m)
			out[4] = tostring(m.print == print)
			module("mymod", package.seeall)
			out[5] = tostring(print ~= nil and _NAME == "mymod")
		end
		return table.concat(out, "|")`
	var got string
	must(t, e.Eval(mod, &got))
	want := "cannot change a protected metatable"
	if onLuaJIT {
		want += "|cannot change a protected metatable|bad argument #1 to '?' (table expected, got number)|true|true"
	}
	if got != want {
		t.Errorf("mod saw %q, want %q", got, want)
	}
	var n int
	var leak bool
	must(t, e.Eval(`config.max_players`, &n))
	must(t, e.Eval(`config.print ~= nil`, &leak))
	if n != 16 || leak {
		t.Errorf("after the mod: config.max_players = %d, config.print visible = %v", n, leak)
	}
}
