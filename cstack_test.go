package zlua_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// Recursion through a library function that runs Lua on the C stack, with
// no Go call in between, in a plain (unlimited) call. Lua 5.4 stops each at
// 200 C levels; LuaJIT has no such bound and, before cstack.c, each of
// these killed the test binary with SIGSEGV (checked by hand on the
// LuaJIT build). Each chunk leaves the innermost message in MSG.
var cstackRecursions = []struct {
	name, chunk string
	safe        bool // also runs in LibsSafe
}{
	{"coroutine.resume chain", `
		local function f(n)
			local co = coroutine.create(function() return f(n + 1) end)
			local ok, e = coroutine.resume(co)
			if not ok then error(e, 0) end
			return e
		end
		MSG = select(2, pcall(f, 1))`, true},
	{"coroutine.wrap chain", `
		local function f() return coroutine.wrap(f)() end
		MSG = select(2, pcall(f))`, true},
	{"coroutine.wrap chain that yields", `
		local function f(n)
			local co = coroutine.wrap(function() coroutine.yield(f(n + 1)) end)
			-- each level's wrap adds a position: keep the message short
			local ok, e = pcall(co)
			if not ok then error(e:match("C stack overflow") or e, 0) end
			return e
		end
		MSG = select(2, pcall(f, 1))`, true},
	{"gsub with a function", `
		local function f(s) return (s:gsub(".", f)) end
		MSG = select(2, pcall(f, "x"))`, true},
	{"gsub with a table whose __index calls gsub", `
		local t
		t = setmetatable({}, {__index = function() return (("x"):gsub(".", t)) end})
		MSG = select(2, pcall(string.gsub, "x", ".", t))`, true},
	{"load with a reader that loads", `
		local function f()
			local fn, e = load(function() f() return nil end)
			if not fn then MSG = MSG or e end
			return fn
		end
		f()`, true},
	{"table.sort comparator", `
		local function f() table.sort({3, 2, 1}, function(a, b) f() return a < b end) end
		MSG = select(2, pcall(f))`, true},
	{"table.sort through __lt", `
		local mt = {}
		mt.__lt = function(a, b)
			table.sort({setmetatable({}, mt), setmetatable({}, mt)})
			return false
		end
		MSG = select(2, pcall(table.sort, {setmetatable({}, mt), setmetatable({}, mt)}))`, true},
	{"require through a preload __index", `
		setmetatable(package.preload, {__index = function(t, k)
			return function() return require(k .. "x") end
		end})
		MSG = select(2, pcall(require, "a"))`, true},
	{"print through __tostring", `
		local t = setmetatable({}, {__tostring = function(x) print(x) return "" end})
		MSG = select(2, pcall(print, t))`, true},
}

// stackStopped reports whether msg is the error that stopped recursion c:
// C stack overflow, or for LuaJIT's sandboxed load of a reader that loads,
// LuaJIT's own Lua stack overflow, which comes first there since the
// sandbox's load keeps no 8 KiB string buffer on the C stack per level
// (twenty-sixth round): either stops it before the C stack runs out.
func stackStopped(libs zlua.Libs, name, msg string) bool {
	if onLuaJIT && libs == zlua.LibsSafe && name == "load with a reader that loads" {
		return strings.Contains(msg, "stack overflow")
	}
	return strings.Contains(msg, "C stack overflow")
}

func TestLibraryRecursionStopsWithCStackOverflow(t *testing.T) {
	for _, libs := range []zlua.Libs{zlua.LibsAll, zlua.LibsSafe} {
		for _, c := range cstackRecursions {
			if libs == zlua.LibsSafe && !c.safe {
				continue
			}
			t.Run(fmt.Sprintf("libs%d/%s", libs, c.name), func(t *testing.T) {
				e := newEnvWith(t, zlua.Options{Libs: libs})
				run(t, e, c.chunk)
				if msg := global[string](t, e, "MSG"); !stackStopped(libs, c.name, msg) {
					t.Errorf("message %.200q, want C stack overflow", msg)
				}
				run(t, e, `MSG = nil x = coroutine.wrap(function() return 1 end)()`)
			})
		}
	}
}

// dofile recursion needs a file (LibsAll).
func TestDofileRecursionStopsWithCStackOverflow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "self.lua")
	must(t, os.WriteFile(path, []byte(`return dofile(PATH)`), 0o600))
	e := newEnv(t)
	must(t, e.SetGlobal("PATH", path))
	run(t, e, `MSG = select(2, pcall(dofile, PATH))`)
	if msg := global[string](t, e, "MSG"); !strings.Contains(msg, "C stack overflow") {
		t.Fatalf("message %.200q, want C stack overflow", msg)
	}
}

// The probe: a ten-line sandboxed script with a memory limit must
// end with an error (C stack overflow, or ErrMemory first), never kill the
// process, and leave the Env usable.
func TestSandboxedCoroutineChainUnderAMemoryLimit(t *testing.T) {
	for _, limit := range []int64{16 << 20, 64 << 20} {
		e := newEnvWith(t, zlua.Options{Libs: zlua.LibsSafe, MemoryLimit: limit})
		err := e.DoString(`
			local function f(n)
				local co = coroutine.create(function() return f(n + 1) end)
				local ok, e = coroutine.resume(co)
				if not ok then error(e, 0) end
				return e
			end
			local ok, e = pcall(f, 1)
			MSG = e`)
		if err != nil && !errors.Is(err, zlua.ErrMemory) {
			t.Fatalf("limit %d: %v", limit, err)
		}
		if err == nil {
			if msg := global[string](t, e, "MSG"); msg != "C stack overflow" && !strings.Contains(msg, "memory") {
				t.Fatalf("limit %d: message %q", limit, msg)
			}
		}
		run(t, e, `collectgarbage() x = 1`)
	}
}

// The wrappers cstack.c installs on LuaJIT must be indistinguishable from
// the library functions they replace, apart from debug.getinfo's `what`:
// each case runs once with the Env's functions and once with the originals
// (found through the wrappers' upvalues; on Lua 5.4 they are the same
// functions), and the results, errors and messages are compared.
const cstackDifferential = `
local function orig(fn)
	for i = 1, 20 do
		local n, v = debug.getupvalue(fn, i)
		if n == nil then break end
		if n == "resume" or n == "wrap" or n == "sort" or n == "f" or n == "load" or n == "time" then return v end
	end
	return fn
end
local mine = {resume = coroutine.resume, wrap = coroutine.wrap, sort = table.sort,
	require = require, print = print, load = load, loadstring = loadstring, dofile = dofile,
	time = os.time}
local stock = {}
for k, v in pairs(mine) do stock[k] = orig(v) end
local wrapped = 0
for k, v in pairs(mine) do if stock[k] ~= v then wrapped = wrapped + 1 end end
WRAPPED = wrapped

local function ser(...)
	local t = {select("#", ...)}
	for i = 1, select("#", ...) do
		local v = select(i, ...)
		local ty = type(v)
		if ty == "string" or ty == "number" or ty == "boolean" or ty == "nil" then
			t[#t + 1] = ty .. ":" .. tostring(v)
		else
			t[#t + 1] = ty
		end
	end
	return table.concat(t, "|")
end

local cases = {
	function(F) return F.resume(coroutine.create(function(a, b)
		local x, y = coroutine.yield(a + b, coroutine.isyieldable())
		return x * y, select("#", coroutine.running())
	end), 1, 2) end,
	function(F)
		local co = coroutine.create(function(a) local x = coroutine.yield(a) return x end)
		local r = {F.resume(co, 1)}
		local r2 = {F.resume(co, 5)}
		local r3 = {F.resume(co)}
		return ser(unpack(r)) .. ";" .. ser(unpack(r2)) .. ";" .. ser(unpack(r3)) .. ";" .. coroutine.status(co)
	end,
	function(F) return F.resume(coroutine.create(function() error("boom") end)) end,
	function(F) return F.resume(coroutine.create(function() error({}) end)) end,
	function(F) return F.resume(coroutine.create(function() error("plain", 0) end)) end,
	function(F) return F.resume(1) end,
	function(F) return F.resume() end,
	function(F) local co co = coroutine.create(function() return F.resume(co) end) return F.resume(co) end,
	function(F) return F.resume(coroutine.running()) end,
	function(F) local w = F.wrap(function(a) local b = coroutine.yield(a * 2) return b + 1, coroutine.isyieldable() end)
		return w(4), w(10) end,
	function(F) local w = F.wrap(function() error("inside") end) return w() end,
	function(F) local w = F.wrap(function() error({}) end) return w() end,
	function(F) local w = F.wrap(function() return 1 end) w() return w() end,
	function(F) return F.wrap(nil) end,
	function(F) return F.wrap(1) end,
	function(F) return F.wrap() end,
	function(F) local w = F.wrap(function(...) return select("#", ...), ... end) return w(nil, nil, 3) end,
	function(F)
		local outer = coroutine.create(function()
			local w = F.wrap(function() coroutine.yield("in") return "done" end)
			local a = w()
			local b = coroutine.yield(a)
			return b, w()
		end)
		local r1 = {F.resume(outer)}
		local r2 = {F.resume(outer, "back")}
		return ser(unpack(r1)) .. ";" .. ser(unpack(r2))
	end,
	function(F) return pcall(F.resume) end,
	function(F) return pcall(F.wrap) end,
	function(F) local t = {5, 1, 4, 2, 3} F.sort(t) return unpack(t) end,
	function(F) local t = {5, 1, 4, 2, 3} F.sort(t, function(a, b) return a > b end) return unpack(t) end,
	function(F) local t = {} for i = 1, 50 do t[i] = (i * 37) % 11 end F.sort(t, function(a, b) return true end) return t[1] end,
	function(F) return F.sort(nil) end,
	function(F) return F.sort({1, "x", 2}) end,
	function(F) return F.sort({3, 2, 1}, 42) end,
	function(F) return F.require("string") == string end,
	function(F) return F.require("no.such.module") end,
	function(F) return F.require() end,
	function(F) return F.print(setmetatable({}, {__tostring = function() return {} end})) end,
	function(F) return F.load("return 1 + ...", "=c")(41) end,
	function(F) return F.load("return +", "=c") end,
	function(F) local parts = {"return ", "'a'", " .. 'b'"} local i = 0
		return F.load(function() i = i + 1 return parts[i] end)() end,
	function(F) return F.load(function() return {} end) end,
	function(F) return F.load(function() error("reader") end) end,
	function(F) return F.load(nil) end,
	function(F) return F.load() end,
	function(F) return F.loadstring("return ...", "=n")(7, 8) end,
	function(F) return F.dofile("/no/such/file.lua") end,
	function(F) return F.dofile(42) end,
	function(F) return F.time({year = 2020, month = 2, day = 3, hour = 4}) end,
	function(F) return type(F.time()) end,
	function(F) return F.time({}) end,
	function(F) return F.time(1) end,
	function(F) return F.time(setmetatable({}, {__index = function(t, k) return k == "year" and 2001 or 1 end})) end,
}
local bad = {}
for i, c in ipairs(cases) do
	local a = ser(pcall(c, mine))
	local b = ser(pcall(c, stock))
	if a ~= b then bad[#bad + 1] = "case " .. i .. ":\n  zlua:  " .. a .. "\n  stock: " .. b end
end
BAD = table.concat(bad, "\n")
`

func TestCStackWrappersBehaveLikeTheOriginals(t *testing.T) {
	e := newEnv(t)
	run(t, e, `unpack = unpack or table.unpack loadstring = loadstring or load`)
	run(t, e, cstackDifferential)
	if bad := global[string](t, e, "BAD"); bad != "" {
		t.Fatal(bad)
	}
	want := 0
	if strings.HasPrefix(zlua.Backend, "LuaJIT") {
		want = 9 // resume, wrap, sort, require, print, load, loadstring, dofile, os.time
	}
	if n := global[int](t, e, "WRAPPED"); n != want {
		t.Fatalf("%d functions compared against an original, want %d", n, want)
	}
}
