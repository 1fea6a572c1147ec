package zlua_test

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/zlua-go/zlua"
)

func moduleFS(t testing.TB) fs.FS {
	sub, err := fs.Sub(scripts, "testdata/modules")
	must(t, err)
	return sub
}

func newEnvWith(t testing.TB, opts zlua.Options) *zlua.Env {
	t.Helper()
	e, err := zlua.New(opts)
	must(t, err)
	t.Cleanup(func() { e.Close() })
	return e
}

// require finds a.b as a/b.lua or a/b/init.lua in Options.Modules, under
// both library sets, caches it, and names its chunk after the file.
func TestRequireFromModulesFS(t *testing.T) {
	for _, libs := range []zlua.Libs{zlua.LibsAll, zlua.LibsSafe} {
		t.Run(libs.String(), func(t *testing.T) {
			e := newEnvWith(t, zlua.Options{Modules: moduleFS(t), Libs: libs})
			run(t, e, `
				local items = require("game.items")
				assert(items.greeting == "hello, items", items.greeting)
				assert(items.price("sword") == 10)
				assert(require("game") == require("game"))
				assert(package.loaded["game.items"] == items)
				assert(package.loaded.loads == 1, "game loaded twice")
				local ok, err = pcall(items.price, "axe")
				assert(err == "game/items.lua:7: no price for axe", err)`)
		})
	}
}

// A module that is nowhere reads as Lua's own message, listing the files
// tried; one that does not compile names its file.
func TestRequireErrors(t *testing.T) {
	fsys := fstest.MapFS{
		"bad.lua":     {Data: []byte("return = 1")},
		"dir.lua/x":   {Data: []byte("")},
		"runtime.lua": {Data: []byte("\nerror('at load')")},
	}
	e := newEnvWith(t, zlua.Options{Modules: fsys, Libs: zlua.LibsSafe})
	var le *zlua.LuaError
	err := e.DoString(`require("a.b")`)
	want := "module 'a.b' not found:\n\tno field package.preload['a.b']\n\tno file 'a/b.lua'\n\tno file 'a/b/init.lua'"
	if !errors.As(err, &le) || !strings.HasSuffix(le.Message, want) {
		t.Errorf("missing module = %q\nwant suffix %q", err, want)
	}
	err = e.DoString(`require("bad")`)
	if !errors.As(err, &le) || !strings.HasPrefix(le.Message, "error loading module 'bad' from file 'bad.lua':\n\tbad.lua:1:") {
		t.Errorf("syntax error = %q", err)
	}
	err = e.DoString(`require("dir")`)
	if !errors.As(err, &le) || !strings.HasPrefix(le.Message, "error loading module 'dir' from file 'dir.lua':\n\t") {
		t.Errorf("unreadable file = %q", err)
	}
	err = e.DoString(`require("runtime")`)
	if !errors.As(err, &le) || le.Message != "runtime.lua:2: at load" {
		t.Errorf("error while loading = %q", err)
	}
	err = e.DoString(`require("../etc/passwd")`)
	if !errors.As(err, &le) || !strings.Contains(le.Message, "not found") {
		t.Errorf("path outside the FS = %q", err)
	}

	// With LibsAll, the stock searchers follow the FS one.
	all := newEnvWith(t, zlua.Options{Modules: fsys})
	err = all.DoString(`require("a.b")`)
	if !errors.As(err, &le) || !strings.Contains(le.Message, "preload['a.b']\n\tno file 'a/b.lua'\n\tno file 'a/b/init.lua'\n\tno file '") {
		t.Errorf("missing module under LibsAll = %q", err)
	}
}

// Reset starts with an empty package.loaded: a changed module file is
// loaded again.
func TestRequireAfterReset(t *testing.T) {
	fsys := fstest.MapFS{"cfg.lua": {Data: []byte("return {v = 1}")}}
	e := newEnvWith(t, zlua.Options{Modules: fsys})
	run(t, e, `assert(require("cfg").v == 1)`)
	fsys["cfg.lua"] = &fstest.MapFile{Data: []byte("return {v = 2}")}
	run(t, e, `assert(require("cfg").v == 1, "cached")`)
	e.Reset(nil)
	must(t, e.Pump())
	run(t, e, `assert(require("cfg").v == 2, "reloaded")`)
}

// Preload makes require return a Go value: a map of Go functions is a
// module table, found before the FS modules.
func TestPreload(t *testing.T) {
	e := newEnvWith(t, zlua.Options{Modules: moduleFS(t), Libs: zlua.LibsSafe})
	must(t, e.Preload("util", map[string]any{
		"add":  func(a, b int) int { return a + b },
		"name": "util",
	}))
	must(t, e.Preload("game", map[string]any{"greet": func(s string) string { return "go " + s }}))
	run(t, e, `local util = require("util")
		assert(util.add(1, 2) == 3 and util.name == "util")
		assert(require("util") == util)
		local ok, err = pcall(util.add, "x", 1)
		assert(err:find("bad argument #1 to 'add' (number expected, got string)", 1, true), err)
		assert(require("game.items").greeting == "go items", "preload comes before the FS")`)
	tb, err := e.NewTable()
	must(t, err)
	must(t, tb.Set("k", "v"))
	must(t, e.Preload("tbl", tb))
	run(t, e, `assert(require("tbl").k == "v")`)
	run(t, e, `package.preload = nil`)
	err = e.Preload("x", 1)
	if strings.HasPrefix(zlua.Backend, "LuaJIT") {
		// LuaJIT's require reads the package table's preload field: gone
		if err == nil || err.Error() != `zlua: preload "x": package.preload is not a table` {
			t.Errorf("Preload without package.preload = %v", err)
		}
	} else {
		// Lua 5.4's require reads the registry's _PRELOAD: still there
		must(t, err)
		run(t, e, `assert(require("x") == 1)`)
	}
}

// Preload writes where require looks, whatever a script made of the
// global package or package.preload (probe K1 F2: it wrote into the
// script's replacement, which require never reads, or refused while
// require still worked).
func TestPreloadAfterAScriptReplacedPackage(t *testing.T) {
	for _, libs := range []zlua.Libs{zlua.LibsSafe, zlua.LibsAll} {
		for _, script := range []string{
			`package.preload = {}`,
			`package = {preload = {}}`,
			`package = nil`,
			`_G.package = setmetatable({}, {__index = package})`,
			`package.preload = setmetatable({}, {__newindex = function() error("vetoed") end})`,
		} {
			e := newEnvWith(t, zlua.Options{Libs: libs})
			run(t, e, `local require = require; function req(name) return require(name) end`)
			run(t, e, script)
			if err := e.Preload("m", map[string]any{"v": 7}); err != nil {
				t.Errorf("%v, %s: Preload: %v", libs, script, err)
				continue
			}
			run(t, e, `assert(req("m").v == 7)`)
		}
	}
}

// panicFS is a module file system whose Open panics: a bug in the host's
// code, which require reports as that Go panic.
type panicFS struct{}

func (panicFS) Open(name string) (fs.File, error) { panic("disk on fire: " + name) }

// A panic in an Options.Modules file system reaches the script as zlua's
// module searcher's panic: a *PanicError naming the searcher and the
// searcher's own chunk (zlua.modules), not a "(dostring)" chunk or a Go
// function called require that the user never wrote.
func TestRequireThroughAPanickingModuleFSNamesTheSearcher(t *testing.T) {
	e := newEnvWith(t, zlua.Options{Modules: panicFS{}, Libs: zlua.LibsSafe})
	err := e.DoString(`local ok, err = pcall(require, "x") assert(not ok) error(err, 0)`)
	var pe *zlua.PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("require through a panicking FS = %v (%T), want a *zlua.PanicError", err, err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "go function 'module searcher' panicked: disk on fire: x.lua") ||
		!strings.Contains(msg, "zlua.modules:") || strings.Contains(msg, "(dostring)") {
		t.Errorf("message = %q, want the module searcher's panic at zlua.modules", msg)
	}
	// the Env goes on: a preloaded module still loads
	must(t, e.Preload("y", map[string]any{"v": func() int { return 7 }}))
	run(t, e, `assert(require("y").v() == 7)`)
}

// A module file that exists but cannot be read is reported in the words of
// Lua's own loader, "cannot read <path>: <why>", not Go's "read <path>:
// ..." (probe Y1 F3); the searcher's "error loading module" line stays.
func TestRequireOfAnUnreadableModuleFileSaysCannotRead(t *testing.T) {
	e := newEnvWith(t, zlua.Options{Libs: zlua.LibsSafe,
		Modules: fstest.MapFS{"dir/init.lua": {Data: []byte("return 1")}, "dir.lua": {Mode: fs.ModeDir}}})
	err := e.DoString(`require "dir"`)
	if err == nil || !strings.Contains(err.Error(), "error loading module 'dir' from file 'dir.lua':") ||
		!strings.Contains(err.Error(), "\tcannot read dir.lua: ") || strings.Contains(err.Error(), "read dir.lua: read") {
		t.Errorf("require of a directory: %v", err)
	}
}

// pathsFS records the length of every path asked for and finds nothing.
type pathsFS struct{ longest *int }

func (p pathsFS) Open(name string) (fs.File, error) {
	*p.longest = max(*p.longest, len(name))
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// A module name longer than any path is not handed to the Modules FS (some
// take quadratic time over it, in Go code no deadline stops: probe A3-F2):
// it is not found, as stock require reports a name fopen refuses.
func TestRequireOfAHugeNameDoesNotReachTheFS(t *testing.T) {
	longest := 0
	e := newEnvWith(t, zlua.Options{Modules: pathsFS{&longest}, Libs: zlua.LibsSafe})
	run(t, e, `
		local ok, err = pcall(require, ("a."):rep(500000) .. "b")
		assert(not ok and err:find("module 'a.a.a", 1, true) and err:find("not found", 1, true), err)`)
	if longest != 0 {
		t.Errorf("the FS was asked for a path of %d bytes", longest)
	}
	// a name within the limit is still asked for
	run(t, e, `assert(not pcall(require, ("c."):rep(1000) .. "d"))`)
	if longest != 2000+len("d/init.lua") {
		t.Errorf("longest path asked: %d, want %d", longest, 2000+len("d/init.lua"))
	}
}
