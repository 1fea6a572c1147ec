package zlua

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"strings"
	"unsafe"

	"github.com/zlua-go/zlua/callbackgate"
	"github.com/zlua-go/zlua/cgo"
)

// begin starts one API call (the caller ends it with e.g.Exit()) and
// returns the thread to use. No closed check before Enter: Close may run
// between the two; Enter reports ErrClosed from the owner word it claims.
func (e *Env) begin() (cgo.Thread, error) {
	if err := e.g.Enter(); err != nil {
		return cgo.Thread{}, err
	}
	return e.g.Current(), nil
}

// Chunk names. Lua prints a name starting with '=' as is and one starting
// with '@' as a file name: errors read "(dostring):3: ..." and
// "scripts/main.lua:3: ...".
const (
	doStringName = "=(dostring)"
	evalName     = "=(eval)"
)

// protect runs f as one API call: it tracks nesting, keeps the stack
// balanced, and turns a failed Lua status into a *LuaError.
func (e *Env) protect(f func(t cgo.Thread) int) error {
	t, err := e.begin()
	if err != nil {
		return err
	}
	g := e.g
	defer g.Exit()
	top := t.Top()
	defer g.RestoreTop(t, top)
	if st := f(t); st != cgo.OK {
		return g.ErrorFromTop(t, st)
	}
	return nil
}

// protectCtx is protect with the Lua code f runs limited by ctx, as
// DoStringContext limits a chunk; a nil ctx is protect's.
func (e *Env) protectCtx(ctx context.Context, f func(t cgo.Thread) int) error {
	if ctx == nil {
		return e.protect(f)
	}
	var fired bool
	err := e.protect(func(t cgo.Thread) int {
		st, done := e.g.Limited(ctx, t, func() int { return f(t) })
		fired = done
		return st
	})
	return callbackgate.CtxResult(ctx, err, fired)
}

// DoString runs chunk. Errors raised in Lua, including Go errors and
// panics raised by Go functions it calls, come back as *LuaError. The
// chunk is named "(dostring)" in errors and tracebacks
// ("(dostring):3: attempt to call a nil value"); LoadString names one.
func (e *Env) DoString(chunk string) error {
	if e.g == nil {
		return errUnmade
	}
	return e.protect(func(t cgo.Thread) int {
		return e.g.S.DoString(t, chunk, doStringName, e.opts.Libs.chunkMode())
	})
}

// DoStringArgs runs chunk with args available to it as `...`.
func (e *Env) DoStringArgs(chunk string, args ...any) error {
	if e.g == nil {
		return errUnmade
	}
	return e.callChunk(chunk, doStringName, e.opts.Libs.chunkMode(), "", args)
}

// callChunk runs chunk, named chunkName in errors and tracebacks, with
// args; Go functions among them are named name in error messages. mode is
// a script's (Libs.chunkMode) or cgo.ModeOwn for zlua's own chunks, which
// are named "=zlua.<what>": the position a deadline names skips them for
// the script's (cgo/interrupt.c, zlua_where_script).
func (e *Env) callChunk(chunk, chunkName, mode, name string, args []any) error {
	var perr error
	err := e.protect(func(t cgo.Thread) int {
		s := e.g.S
		if st := s.Load(t, chunk, chunkName, mode); st != cgo.OK {
			return st
		}
		s.ProgReset()
		for _, a := range args {
			if perr = e.g.Push(a, name); perr != nil {
				return cgo.OK
			}
		}
		if perr = s.Commit(); perr != nil {
			return cgo.OK
		}
		st, _ := s.Run(t, cgo.OpCall, 1, 0, 0)
		return st
	})
	if perr != nil {
		return opErrorf(perr, "arguments")
	}
	return err
}

// Eval runs chunk and stores its results in the out pointers, converted as
// Env.Global converts (extra results are dropped, missing ones read as
// nil); if one cannot be converted, Eval returns that error and changes no
// out. A last out of type *Values receives every result from its position
// on, in their natural forms (as Function.Call returns them).
//
// Like the lua interpreter's prompt, Eval first tries chunk as an
// expression list ("return " + chunk), so Eval("a + b", &sum) works; if
// that does not compile, chunk runs as statements and its return
// statement gives the results. A chunk that begins with a keyword no
// expression begins with (local, return, if, for, while, repeat, do,
// goto, break) runs as statements at once. The chunk is named "(eval)".
//
// On LuaJIT, a chunk that is one function call (Eval("spawn(1, 2)")) is
// a tail call of that added "return": an argument error of a Go function
// called so carries no "(eval):1:" position, as in any tail call on
// LuaJIT (README, "Errors you can use"). Lua 5.4 keeps the position.
func (e *Env) Eval(chunk string, out ...any) error {
	if e.g == nil {
		return errUnmade
	}
	var over []bool // the outs marked Overlay, unwrapped
	for i, o := range out {
		if p, ok := callbackgate.Unwrap(o); ok {
			if over == nil {
				out = append([]any(nil), out...)
				over = make([]bool, len(out))
			}
			out[i], over[i] = p, true
		}
		if rv := reflect.ValueOf(out[i]); rv.Kind() != reflect.Pointer || rv.IsNil() {
			return fmt.Errorf("zlua: eval: out #%d must be a non-nil pointer, got %T", i+1, out[i])
		}
	}
	var rerr error
	err := e.protect(func(t cgo.Thread) int {
		s := e.g.S
		mode := e.opts.Libs.chunkMode()
		top := t.Top()
		if statementFirst(chunk) {
			if st := s.Load(t, chunk, evalName, mode); st != cgo.OK {
				return st
			}
		} else if st := s.Load(t, "return "+chunk, evalName, mode); st != cgo.OK {
			t.SetTop(top) // not an expression list: run it as statements
			if st := s.Load(t, chunk, evalName, mode); st != cgo.OK {
				return st
			}
		}
		s.ProgReset()
		if rerr = s.Commit(); rerr != nil {
			return cgo.OK
		}
		if st, _ := s.Run(t, cgo.OpCall, 1, cgo.MultRet, cgo.MultRet); st != cgo.OK {
			return st
		}
		if !s.Reserve(t, callbackgate.ReadStack+len(out)) {
			rerr = ErrMemory
			return cgo.OK
		}
		nres := t.Top() - top // before the missing ones are filled with nil
		for t.Top() < top+len(out) {
			t.PushNil()
		}
		// Each result is read into a fresh value and the outs are stored
		// only once all converted: a refused result changes no out.
		vals := make([]reflect.Value, len(out))
		e.g.ConvScope() // the outs share one budget
		defer e.g.ConvEndScope()
		for i, o := range out {
			vals[i] = reflect.New(reflect.TypeOf(o).Elem()).Elem()
			if i == len(out)-1 && callbackgate.IsRest(vals[i].Type()) {
				j, err := e.g.ReadRest(t, vals[i], i, nres, func(k int) (cgo.Arg, int) {
					return t.Arg(top + 1 + k), top + 1 + k
				})
				if err != nil {
					rerr = fmt.Errorf("result #%d: %w", j+1, err)
					return cgo.OK
				}
				break
			}
			var err error
			if over != nil && over[i] { // decoded over a copy of *out[i]
				vals[i].Set(reflect.ValueOf(o).Elem())
				prev := e.g.ArmOverlay(vals[i].Addr().UnsafePointer())
				err = e.g.ReadInto(t, top+1+i, vals[i])
				e.g.ArmOverlay(prev)
			} else {
				err = e.g.ReadInto(t, top+1+i, vals[i])
			}
			if err != nil {
				rerr = fmt.Errorf("result #%d: %w", i+1, err)
				return cgo.OK
			}
		}
		for i, o := range out {
			reflect.ValueOf(o).Elem().Set(vals[i])
		}
		return cgo.OK
	})
	if err == nil {
		err = rerr
	}
	if err != nil {
		return opErrorf(err, "eval")
	}
	return nil
}

// statementFirst reports whether chunk begins (after blanks and
// comments) with a keyword no expression begins with: local, return, if,
// for, while, repeat, do, goto, break, a label, function and a name, or
// with an assignment's targets (assignsFirst). Eval then runs it as
// statements at once instead of first compiling "return " + chunk, whose
// syntax error is a raise; on LuaJIT each raise searches the unwind
// tables of every state with compiled code, a cost that grows with the
// number of Envs (probe A1-F2).
func statementFirst(chunk string) bool {
	s := skipBlanks(chunk)
	if strings.HasPrefix(s, "::") {
		return true
	}
	n := 0
	for n < len(s) && (s[n] == '_' || 'a' <= s[n] && s[n] <= 'z' || 'A' <= s[n] && s[n] <= 'Z' || '0' <= s[n] && s[n] <= '9') {
		n++
	}
	switch s[:n] {
	case "local", "return", "if", "for", "while", "repeat", "do", "goto", "break":
		return true
	case "function": // a named function's statement, not function(...) end
		r := strings.TrimLeft(s[n:], " \t\r\n\f\v")
		return r != "" && isNameStart(r[0])
	}
	return n > 0 && assignsFirst(s)
}

// assignsFirst reports whether s (no leading blanks) starts with the
// targets of an assignment: names, dots, commas and white space up to a
// lone '='. No expression list has that prefix (its only '=' signs are
// parts of ==, ~=, <=, >=, or come after a bracket or a quote, where the
// scan stops), so a chunk that has it is statements.
func assignsFirst(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '=':
			return i+1 == len(s) || s[i+1] != '='
		case c == '.' || c == ',' || c == ' ' || c == '\t' || c == '\r' || c == '\n' || isNameStart(c) || '0' <= c && c <= '9':
		default:
			return false
		}
	}
	return false
}

// isNameStart reports whether c can begin a Lua name.
func isNameStart(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// skipBlanks returns s after its leading white space and comments.
func skipBlanks(s string) string {
	for {
		s = strings.TrimLeft(s, " \t\r\n\f\v")
		if !strings.HasPrefix(s, "--") {
			return s
		}
		s = s[2:]
		if level, ok := longBracket(s); ok {
			closing := "]" + strings.Repeat("=", level) + "]"
			i := strings.Index(s, closing)
			if i < 0 {
				return "" // an unfinished comment: let Lua report it
			}
			s = s[i+len(closing):]
			continue
		}
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		} else {
			return ""
		}
	}
}

// longBracket reports whether s opens a long bracket ([[, [=[, ...) and
// its level.
func longBracket(s string) (int, bool) {
	if !strings.HasPrefix(s, "[") {
		return 0, false
	}
	n := 1
	for n < len(s) && s[n] == '=' {
		n++
	}
	if n < len(s) && s[n] == '[' {
		return n - 1, true
	}
	return 0, false
}

// LoadString compiles chunk without running it and returns it as a
// function; calling it runs the chunk (its arguments are the chunk's ...).
// name names the chunk in errors and tracebacks: "main" reads
// "main:3: ...". A name starting with '@' is a file name to Lua (long ones
// are shortened from the left, and debuggers look the file up) and one
// starting with '=' is used as is; any other name gets '=' prepended. An
// empty name is "=(load)", as Lua's load names chunks. Syntax errors come
// back as *LuaError.
func (e *Env) LoadString(name, chunk string) (*Function, error) {
	if e.g == nil {
		return nil, errUnmade
	}
	var f *callbackgate.Function
	var ferr error
	err := e.protect(func(t cgo.Thread) int {
		if st := e.g.S.Load(t, chunk, chunkName(name), e.opts.Libs.chunkMode()); st != cgo.OK {
			return st
		}
		if !e.g.S.Reserve(t, 2) { // NewFunction pushes a copy
			ferr = ErrMemory
			return cgo.OK
		}
		f, ferr = e.g.NewFunction(t, t.Top(), name)
		return cgo.OK
	})
	if err == nil {
		err = ferr
	}
	if err != nil {
		return nil, opErrorf(err, "load %q", name)
	}
	return pubFunction(f), nil
}

// chunkName maps a user's chunk name to Lua's convention (see
// LoadString).
func chunkName(name string) string {
	switch {
	case name == "":
		return "=(load)"
	case strings.HasPrefix(name, "@"), strings.HasPrefix(name, "="):
		return name
	}
	return "=" + name
}

// DoFile runs the Lua file at path, named "@path" (errors read
// "path:line: ..."). It loads the file as lua's luaL_loadfilex does: a
// UTF-8 byte order mark is skipped, and so is a first line starting with
// # (a Unix "#!" line), also before a precompiled chunk where the
// Options.Libs mode allows those. (Stock LuaJIT refuses a # line before
// bytecode; zlua accepts it on both backends: the load mode, not the
// first byte, decides what is allowed.)
func (e *Env) DoFile(path string) error {
	if e.g == nil {
		return errUnmade
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return opErrorf(loaderWords(err), "dofile")
	}
	src := fileChunk(b)
	return e.protect(func(t cgo.Thread) int {
		return e.g.S.DoString(t, src, "@"+path, e.opts.Libs.chunkMode())
	})
}

// fileChunk returns the chunk in a file's contents as luaL_loadfilex
// reads it: without a UTF-8 BOM, and with a first line starting with #
// replaced by its newline (line numbers stay right), or dropped entirely
// before a binary chunk.
func fileChunk(b []byte) string {
	// b was just read and is not kept or changed: its bytes become the
	// string without a copy (a module or file costs its size once).
	src := strings.TrimPrefix(unsafe.String(unsafe.SliceData(b), len(b)), "\xEF\xBB\xBF")
	if strings.HasPrefix(src, "#") {
		if i := strings.IndexByte(src, '\n'); i >= 0 {
			src = src[i:]
		} else {
			src = ""
		}
		if len(src) > 1 && src[1] == luaSignature {
			src = src[1:]
		}
	}
	return src
}

// luaSignature is the first byte of every precompiled chunk (Lua 5.4 and
// LuaJIT alike: "\x1bLua", "\x1bLJ").
const luaSignature = '\x1b'
