package zlua

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/zlua-go/zlua/cgo"
)

// installModules adds the searcher of Options.Modules to package.searchers
// (package.loaders on LuaJIT), right after the preload searcher: under
// LibsAll before the file and C searchers, under LibsSafe as the only
// other one. The searcher keeps the load function the Env started with,
// so scripts replacing the global load do not change how modules load.
func (e *Env) installModules() error {
	if e.opts.Modules == nil {
		return nil
	}
	fsys := e.opts.Modules
	limit := e.opts.MemoryLimit
	read := func(name string) (src, path, msg any) { return readModule(fsys, name, limit) }
	return e.callChunk(`local read, mode = ...
		local load, error, format = load, error, string.format
		local searchers = package.searchers or package.loaders
		local function search(name)
			local src, path, msg = read(name)
			if src == nil and path ~= nil then
				error(format("error loading module '%s' from file '%s':\n\t%s", name, path, msg), 0)
			elseif src == nil then
				return msg
			end
			local f, err = load(src, "@" .. path, mode)
			if not f then
				error(format("error loading module '%s' from file '%s':\n\t%s", name, path, err), 0)
			end
			return f, path
		end
		for i = #searchers, 2, -1 do
			searchers[i + 1] = searchers[i]
		end
		searchers[2] = search`, "=zlua.modules", cgo.ModeOwn, "module searcher", []any{read, e.opts.Libs.chunkMode()})
}

// errTooBig is readAtMost's refusal of a file that outgrew the limit.
var errTooBig = errors.New("larger than the memory limit")

// readAtMost reads the file p of fsys, refusing it once it passes limit
// bytes (limit 0: no bound): a file may grow between the Stat and the read.
func readAtMost(fsys fs.FS, p string, limit int64) ([]byte, error) {
	if limit <= 0 {
		return fs.ReadFile(fsys, p)
	}
	f, err := fsys.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = errTooBig
	}
	return b, err
}

// tooBig is the module searcher's refusal of a file of n bytes.
func tooBig(n, limit int64) string {
	return fmt.Sprintf("file of %d bytes is larger than the memory limit (%d bytes)", n, limit)
}

// maxModulePath is the longest module path readModule asks the Modules
// file system for: Linux's PATH_MAX.
const maxModulePath = 4096

// readModule finds module name in fsys as Lua's file searcher does with
// package.path "?.lua;?/init.lua": the dots of name become slashes. It
// returns the chunk and its path; or the path of a file it found but could
// not read, and why; or only the "no file" lines, in the form each
// backend's require expects (Lua 5.4: lines joined by "\n\t"; LuaJIT:
// each line starting with "\n\t"). Under a memory limit (limit > 0) a
// file larger than the limit is refused before it is read: its chunk
// could never fit in the Lua heap, and reading it would cost Go that much
// memory, and the time, first.
func readModule(fsys fs.FS, name string, limit int64) (src any, path, msg any) {
	base := strings.ReplaceAll(name, ".", "/")
	var tried strings.Builder
	for _, p := range [...]string{base + ".lua", base + "/init.lua"} {
		// A path longer than any file system takes is not asked for:
		// fopen fails with ENAMETOOLONG there, and some fs.FS
		// implementations take quadratic time over such a name, in Go
		// code no deadline interrupts (fstest.MapFS: 12 s for 10^6 dots,
		// probe A3-F2). It is not found, as stock require reports it.
		if len(p) <= maxModulePath && fs.ValidPath(p) {
			// Only regular files (and directories, which fail to read
			// as they do for Lua's loader) are read: a FIFO would block
			// and a device (a link to /dev/zero) never end, in Go code
			// that neither the deadline nor the memory limit stops
			// (probe A1-F1).
			fi, err := fs.Stat(fsys, p)
			if err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
				return nil, p, "cannot read " + p + ": not a regular file"
			}
			if err == nil && limit > 0 && fi.Mode().IsRegular() && fi.Size() > limit {
				return nil, p, tooBig(fi.Size(), limit)
			}
			b, err := readAtMost(fsys, p, limit)
			if errors.Is(err, errTooBig) {
				return nil, p, fmt.Sprintf("file larger than the memory limit (%d bytes)", limit)
			}
			if err == nil {
				return fileChunk(b), p, nil
			}
			if !errors.Is(err, fs.ErrNotExist) {
				// in the words of Lua's loader ("cannot read x.lua: Is a
				// directory"): the path once, then the cause
				var pe *fs.PathError
				if errors.As(err, &pe) {
					err = pe.Err
				}
				return nil, p, "cannot read " + p + ": " + err.Error()
			}
		}
		if tried.Len() > 0 || !cgo.HasIntegers {
			tried.WriteString("\n\t")
		}
		fmt.Fprintf(&tried, "no file '%s'", p)
	}
	return nil, nil, tried.String()
}

// Preload makes require(name) return v, converted as SetGlobal converts
// it: a map of Go functions becomes a module table, a Go function a
// function, a *Table of this Env that table. v is converted now, once;
// require caches the result in package.loaded as usual. Preloaded modules
// are found before the ones in Options.Modules, under every Libs set.
// Like SetGlobal, Preload belongs to the state: after Reset, call it again
// (from the Reset loader).
func (e *Env) Preload(name string, v any) error {
	if e.g == nil {
		return errUnmade
	}
	if err := e.preload(name, v); err != nil {
		return opErrorf(err, "preload %q", name)
	}
	return nil
}

// errNoPreload is Preload's refusal when the state has no package.preload.
var errNoPreload = errors.New("package.preload is not a table")

// preload stores the loader raw in the table require's preload searcher
// reads (Lua 5.4: the registry's _PRELOAD; LuaJIT: the preload field of
// the package table the libraries opened), whatever a script made of the
// global package or package.preload since: a mod can neither veto the
// host's modules nor make Preload write where require does not look
// (probe K1 F2). Nothing is read through metamethods, which would run
// with no deadline in this host call (probe A3-F4).
func (e *Env) preload(name string, v any) error {
	tb, err := e.tableHandle(e.g.PreloadTable)
	if err != nil {
		return err
	}
	if tb == nil {
		return errNoPreload
	}
	pre := pubTable(tb)
	defer pre.Release()
	maker, err := e.LoadString("=zlua.preload", "local v = ... return function() return v end")
	if err != nil {
		return err
	}
	defer maker.Release()
	out, err := maker.Call(v)
	if err != nil {
		var le *LuaError
		if u := errors.Unwrap(err); u != nil && !errors.As(err, &le) {
			err = u // v could not be converted: the conversion's own words
		}
		return err
	}
	loader := out[0].(*Function)
	defer loader.Release()
	return pre.RawSet(name, loader)
}
