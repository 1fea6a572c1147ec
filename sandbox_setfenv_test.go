package zlua_test

import (
	"testing"

	"github.com/zlua-go/zlua"
)

// On LuaJIT the sandbox's setfenv refuses level 0, the running thread's
// globals: on the main thread they are the environment of every chunk the
// host loads later (probe A3-F6). Functions and levels of the script's own
// stack work, with stock's errors.
func TestSandboxSetfenvKeepsTheThreadsGlobals(t *testing.T) {
	if !onLuaJIT {
		t.Skip("setfenv is LuaJIT's")
	}
	e := newSafeEnv(t)
	var msg string
	must(t, e.Eval(`select(2, pcall(setfenv, 0, setmetatable({}, {__index = _G})))`, &msg))
	if msg != "'setfenv' cannot change the thread's environment in the sandbox" {
		t.Errorf("setfenv(0): %q", msg)
	}
	run(t, e, `secret = "host"`)
	var got string
	must(t, e.Global("secret", &got))
	if got != "host" {
		t.Errorf("a later chunk's global went elsewhere: %q", got)
	}
	const script = `
		local out = {}
		local function f() return x end
		out[#out + 1] = tostring(setfenv(f, {x = 5}) == f and f())
		local function g() setfenv(1, {y = 7}) return y end
		out[#out + 1] = tostring(g())
		for _, c in ipairs({{-1, {}}, {nil, {}}, {1.5, {}}, {1, nil}, {"x", {}}, {50, {}}}) do
			out[#out + 1] = select(2, pcall(setfenv, c[1], c[2]))
		end
		return table.concat(out, "\n")`
	var safe, all string
	must(t, e.Eval(script, &safe))
	must(t, newEnvWith(t, zlua.Options{}).Eval(script, &all))
	if safe != all {
		t.Errorf("sandbox:\n%s\nstock:\n%s", safe, all)
	}
}
