package zlua

import (
	"fmt"

	"github.com/zlua-go/zlua/cgo"
)

// Libs selects the standard libraries an Env opens (Options.Libs).
type Libs int

const (
	// LibsAll opens every standard library of the backend, as the lua
	// interpreter does. For trusted scripts.
	LibsAll Libs = iota
	// LibsSafe opens the libraries without file, process, debug, native
	// code or bytecode access, for untrusted scripts (mods):
	//
	//   - base: everything except dofile and loadfile; load (and loadstring
	//     on LuaJIT) accept text chunks only; collectgarbage accepts only
	//     "collect", "count" and "step"; setmetatable refuses metatables
	//     with a __gc field; LuaJIT's newproxy is removed.
	//   - string (without string.dump), table, math, coroutine, utf8 (Lua
	//     5.4), bit (LuaJIT).
	//   - os: only os.time, os.clock, os.date and os.difftime.
	//   - package and require: only modules in package.preload
	//     (Env.Preload) and in Options.Modules (no file or C searchers,
	//     no package.loadlib, package.searchpath, package.path or
	//     package.cpath).
	//   - no io, debug, jit or ffi.
	//
	// Env.DoString, DoStringArgs and DoFile accept text chunks only, so a
	// script file holding bytecode is refused too. docs/SANDBOX.md gives
	// the reasons.
	LibsSafe
)

// String returns the name of the constant, e.g. "LibsSafe".
func (l Libs) String() string {
	switch l {
	case LibsAll:
		return "LibsAll"
	case LibsSafe:
		return "LibsSafe"
	}
	return fmt.Sprintf("Libs(%d)", int(l))
}

// openOp is the protected operation that opens l.
func (l Libs) openOp() int {
	if l == LibsSafe {
		return cgo.OpOpenSafe
	}
	return cgo.OpOpenLibs
}

// chunkMode is the load mode of chunks the Env runs for Go: bytecode can
// crash the VM, so the sandbox loads text only.
func (l Libs) chunkMode() string {
	if l == LibsSafe {
		return "t"
	}
	return "bt"
}
