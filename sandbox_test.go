package zlua_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

func newSafeEnv(t testing.TB) *zlua.Env {
	t.Helper()
	e, err := zlua.New(zlua.Options{Libs: zlua.LibsSafe})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { must(t, e.Close()) })
	return e
}

// TestSandboxHasNoFileOrProcessAccess tries every route a script could take
// to files, processes, native code and the debug interface.
func TestSandboxHasNoFileOrProcessAccess(t *testing.T) {
	e := newSafeEnv(t)
	secret := filepath.Join(t.TempDir(), "secret.lua")
	must(t, os.WriteFile(secret, []byte("leaked = true return 'secret'"), 0o600))
	must(t, e.SetGlobal("secret", secret))
	for _, chunk := range []string{
		`io.open(secret)`,
		`io.lines(secret)`,
		`io.popen("echo hi")`,
		`os.execute("echo hi")`,
		`os.remove(secret)`,
		`os.rename(secret, secret .. "2")`,
		`os.getenv("HOME")`,
		`os.exit(1)`,
		`os.tmpname()`,
		`dofile(secret)`,
		`loadfile(secret)`,
		`debug.getregistry()`,
		`debug.sethook()`,
		`require("io")`,
		`require("os").execute("echo hi")`,
		`require("debug")`,
		`require("ffi")`,
		`require("jit")`,
		`require("string.buffer")`, // LuaJIT: its ref() is a raw pointer into the process
		`assert(package.preload["string.buffer"] or package.loaded["string.buffer"])`,
		`require(secret:gsub("%.lua$", ""))`,
		`package.loadlib("libc.so.6", "system")`,
		`package.searchpath("x", "./?.lua")`,
		`string.dump(print)`,
		`jit.off()`,
		`newproxy(true)`,
		`collectgarbage("stop")`,
		`collectgarbage("setpause", 1000)`,
		`setmetatable({}, {__gc = function() end})`,
		`assert(load(string.char(27) .. "Lua"))`,
		`assert(loadstring(string.char(27) .. "LJ"))`,
		`local parts = {string.char(27), "Lua"} local i = 0
		 assert(load(function() i = i + 1 return parts[i] end))`,
	} {
		err := e.DoString(chunk)
		var le *zlua.LuaError
		if !errors.As(err, &le) {
			if chunk == `assert(loadstring(string.char(27) .. "LJ"))` && strings.HasPrefix(zlua.Backend, "Lua 5") {
				continue // no loadstring in 5.4: the call fails anyway
			}
			t.Errorf("%s: err = %v, want a Lua error", chunk, err)
			continue
		}
		t.Logf("%-50s → %s", strings.Fields(chunk)[0], le.Message)
	}
	var leaked any
	must(t, e.Global("leaked", &leaked))
	if leaked != nil {
		t.Error("a script read the file")
	}
	if _, err := os.Stat(secret); err != nil {
		t.Errorf("the file was touched: %v", err)
	}
}

func TestSandboxMessagesAreClear(t *testing.T) {
	e := newSafeEnv(t)
	run(t, e, `
		local f, err = load(string.char(27) .. "Lua")
		assert(f == nil and err == "attempt to load a binary chunk (mode is 't')", err)
		local ok, err2 = pcall(collectgarbage, "stop")
		assert(not ok and err2:find("option 'stop' is not allowed in the sandbox", 1, true), err2)
		ok, err2 = pcall(setmetatable, {}, {__gc = print})
		assert(not ok and err2:find("__gc metamethods are not allowed in the sandbox", 1, true), err2)
		ok, err2 = pcall(require, "io")
		assert(not ok and err2:find("module 'io' not found", 1, true), err2)`)
}

func TestSandboxKeepsTheSafeLibraries(t *testing.T) {
	e := newSafeEnv(t)
	run(t, e, `
		assert(os.time() and os.clock() and os.date("%Y") and os.difftime(2, 1) == 1)
		assert(string.format("%d", 3) == "3" and ("abc"):upper() == "ABC")
		assert(table.concat({1, 2}, ",") == "1,2" and math.floor(2.5) == 2)
		assert(coroutine.wrap(function() coroutine.yield(7) end)() == 7)
		assert(load("return 1 + 1")() == 2)
		assert(load("return x", "chunk", "bt", {x = 5})() == 5)
		local parts, i = {"return ", "40 + 2"}, 0
		assert(load(function() i = i + 1 return parts[i] end)() == 42)
		assert(select("#", load("syntax error here")) == 2)
		local f, err = load(function() return {} end)
		assert(f == nil and err:find("reader function must return a string", 1, true), err)
		assert(collectgarbage("count") > 0 and collectgarbage() == 0)
		local mt = {__index = function() return "dflt" end}
		assert(setmetatable({}, mt).anything == "dflt")
		assert(pcall(setmetatable, setmetatable({}, {__metatable = 1}), {}) == false)
		package.preload.mymod = function(name) return {name = name} end
		assert(require("mymod").name == "mymod")
		assert(package.loaded.os == os and os.execute == nil)
		assert(zlua and zlua.backend)`)
}

func TestSandboxRefusesBytecodeFromGo(t *testing.T) {
	e := newSafeEnv(t)
	all := newEnv(t)
	for _, chunk := range []string{"\x1bLua\x54\x00", "\x1bLJ\x02"} {
		if err := e.DoString(chunk); err == nil || !strings.Contains(err.Error(), "binary") && !strings.Contains(err.Error(), "mode") {
			t.Errorf("DoString of bytecode in the sandbox = %v", err)
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "mod.luac")
	must(t, os.WriteFile(path, []byte("\x1bLua\x54\x00garbage"), 0o600))
	if err := e.DoFile(path); err == nil {
		t.Error("DoFile of bytecode in the sandbox succeeded")
	}
	// LibsAll keeps the full library, string.dump and bytecode included.
	run(t, all, `assert(io and debug and os.execute and string.dump)
		local f = load(string.dump(function() return 9 end)) assert(f() == 9)`)
}

// TestSandboxLoadMatchesStockForText: the sandbox's load refuses binary
// chunks, and for text behaves as the stock function: a mode without 't'
// refuses the chunk, bad arguments are named as load names them (before:
// the mode was ignored, a table name was "bad argument #2 to '?'", a
// missing chunk "string expected").
func TestSandboxLoadMatchesStockForText(t *testing.T) {
	_, want := conformanceFiles(t, "sandboxload")
	e := newSafeEnv(t)
	src, err := os.ReadFile("testdata/sandboxload.lua")
	must(t, err)
	run(t, e, string(src))
	if got := global[string](t, e, "result") + "\n"; got != want {
		t.Errorf("the sandbox's load differs from stock:\n%s\nwant:\n%s", got, want)
	}
}

// The sandbox's load returns nil and the message for a memory error while
// it gathers a reader's pieces, as stock load does for any error while
// reading (it raised it), and words every reader failure as the stock load
// of its backend (compared with a LibsAll Env's).
func TestSandboxLoadReturnsAReaderMemoryError(t *testing.T) {
	const script = `
		local out = {}
		local function try(...)
			local ok, f, err = pcall(load, ...)
			out[#out + 1] = tostring(ok) .. " " .. tostring(f == nil) .. " " .. (type(err) == "table" and "table" or tostring(err))
		end
		local n = 0
		try(function() n = n + 1 return ("x"):rep(1024 * 1024) .. n end)
		try(function() error("boom") end)
		try(function() error({}) end)
		try(function() return {} end)
		local parts, i = {"return ", "40 + 2"}, 0
		out[#out + 1] = tostring(load(function() i = i + 1 return parts[i] end)())
		return table.concat(out, "\n")`
	var got [2]string
	for i, libs := range []zlua.Libs{zlua.LibsSafe, zlua.LibsAll} {
		e := newEnvWith(t, zlua.Options{Libs: libs, MemoryLimit: 16 << 20})
		must(t, e.Eval(script, &got[i]))
	}
	if got[0] != got[1] {
		t.Errorf("sandbox load:\n%s\nstock load:\n%s", got[0], got[1])
	}
	if !strings.HasPrefix(got[0], "true true not enough memory\n") || !strings.HasSuffix(got[0], "\n42") {
		t.Errorf("sandbox load:\n%s", got[0])
	}
}

// A reader that never ends: the stock load stops it at the chunk's first
// error; the sandbox's load must stop too, not gather it until the host's
// memory runs out (Lua 5.4 streams to the parser as stock; LuaJIT refuses
// a binary chunk at its first piece, and stops at the limit or at 64 MiB).
func TestSandboxLoadStopsAnEndlessReader(t *testing.T) {
	e := newSafeEnv(t)
	run(t, e, `
		local f, err = load(function() return "\27Lua" end)
		assert(f == nil and err == "attempt to load a binary chunk (mode is 't')", err)`)
	if !onLuaJIT {
		run(t, e, `
			local f, err = load(function() return "x x " end)
			assert(f == nil and err:find("syntax error", 1, true), err)`)
	}
	lim := newEnvWith(t, zlua.Options{Libs: zlua.LibsSafe, MemoryLimit: 16 << 20})
	run(t, lim, `
		local f, err = load(function() return "x x " end)
		assert(f == nil and (err:find("syntax error", 1, true) or err == "not enough memory"), err)`)
}

// load of a reader returns the function alone on success, as stock load
// does (LuaJIT's wrapper returned an extra nil).
func TestLoadOfAReaderReturnsOneValue(t *testing.T) {
	for _, e := range []*zlua.Env{newEnv(t), newSafeEnv(t)} {
		run(t, e, `
			local i = 0
			assert(select("#", load(function() i = i + 1 if i == 1 then return "return 5" end end)) == 1)
			assert(select("#", load(function() return nil end)) == 1)
			local j = 0
			assert(select("#", load(function() j = j + 1 if j == 1 then return "x x" end end)) == 2)`)
	}
}

// The sandbox's setmetatable fails as the stock one, in its words and
// order, for everything but its own refusal (a __gc field on a table
// whose metatable is not protected).
func TestSandboxSetmetatableErrorsAreStock(t *testing.T) {
	const script = `
		local out = {}
		local locked = setmetatable({}, {__metatable = "locked"})
		for _, c in ipairs({
			function() return setmetatable({}, 5) end,
			function() return setmetatable({}) end,
			function() return setmetatable(5, {}) end,
			function() return setmetatable(locked, {}) end,
			function() return setmetatable(locked, {__gc = print}) end,
			function() return setmetatable(locked, {__gc = false}) end,
			function() return setmetatable({}, obj) end, -- named by its __name (A2-F4)
		}) do
			local ok, err = pcall(c)
			out[#out + 1] = tostring(ok) .. " " .. tostring(err)
		end
		return table.concat(out, "\n")`
	var got [2]string
	for i, e := range []*zlua.Env{newSafeEnv(t), newEnv(t)} {
		must(t, e.SetGlobal("obj", &wMob{HP: 1}))
		must(t, e.Eval(script, &got[i]))
	}
	if !strings.Contains(got[0], "got wMob") && !onLuaJIT {
		t.Errorf("a Go object's type is not named: %s", got[0])
	}
	if got[0] != got[1] {
		t.Errorf("sandbox:\n%s\nstock:\n%s", got[0], got[1])
	}
	run(t, newSafeEnv(t), `local ok, err = pcall(setmetatable, {}, {__gc = print})
		assert(not ok and err:find("__gc metamethods are not allowed in the sandbox", 1, true), err)`)
}

// A reader's error levels in the sandbox's load are the stock load's: the
// reader is called from load itself (before, one C level deeper, an
// error(msg, 3) lost its position and nested loads overflowed at half the
// depth). Compared with a LibsAll Env's; LuaJIT gathers the pieces, and
// only the levels are compared there.
func TestSandboxLoadReaderLevelsAreStock(t *testing.T) {
	script := `
		local out = {}
		local function E(n) return function() error("L" .. n, n) end end
		for n = 1, 3 do
			local ok, f, err = pcall(function() return load(E(n)) end)
			out[#out + 1] = tostring(ok) .. " " .. tostring(f) .. " " .. tostring(err)
		end
		local depth = 0
		local function viaload(n) depth = n local f = load(function() viaload(n + 1) end) end
		pcall(viaload, 1)
		out[#out + 1] = "depth " .. depth
		return table.concat(out, "\n")`
	if onLuaJIT {
		script = strings.Replace(script, `out[#out + 1] = "depth " .. depth`, ``, 1)
	}
	var got [2]string
	for i, e := range []*zlua.Env{newSafeEnv(t), newEnv(t)} {
		must(t, e.Eval(script, &got[i]))
	}
	if got[0] != got[1] {
		t.Errorf("sandbox:\n%s\nstock:\n%s", got[0], got[1])
	}
}

// TestLoadReaderErrorsArePositionedAsStock: a reader returning a
// non-string makes load return the stock words at the position of load's
// caller, as each backend's stock load does, in LibsAll (LuaJIT: through
// zlua's C stack wrapper, which positioned it at itself and then gave no
// position at all) and in the sandbox (outside probe F1-F2).
func TestLoadReaderErrorsArePositionedAsStock(t *testing.T) {
	_, want := conformanceFiles(t, "readerpos")
	for _, e := range []*zlua.Env{newEnv(t), newSafeEnv(t)} {
		must(t, e.DoFile("testdata/readerpos.lua"))
		if got := global[string](t, e, "result") + "\n"; got != want {
			t.Errorf("load's reader errors differ from stock:\n%s\nwant:\n%s", got, want)
		}
	}
}
