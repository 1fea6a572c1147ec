package zlua_test

import (
	"errors"
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

func TestLibraryRecursionStopsWithCStackOverflow(t *testing.T) {
	for _, libs := range []zlua.Libs{zlua.LibsAll, zlua.LibsSafe} {
		e := newEnvWith(t, zlua.Options{Libs: libs})
		for _, c := range cstackRecursions {
			if libs == zlua.LibsSafe && !c.safe {
				continue
			}
			if err := e.DoString(c.chunk); err != nil {
				t.Errorf("libs %d, %s: %v", libs, c.name, err)
				continue
			}
			if msg := global[string](t, e, "MSG"); !strings.Contains(msg, "C stack overflow") {
				t.Errorf("libs %d, %s: message %.200q, want C stack overflow", libs, c.name, msg)
			}
			run(t, e, `MSG = nil x = coroutine.wrap(function() return 1 end)()`)
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
	if msg := global[string](t, e, "MSG"); !strings.Contains(msg, "stack overflow") {
		t.Fatalf("message %.200q, want a stack overflow", msg)
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
