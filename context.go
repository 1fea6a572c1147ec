package zlua

import (
	"context"
	"fmt"
	"os"

	"github.com/zlua-go/zlua/callbackgate"
	"github.com/zlua-go/zlua/cgo"
)

// DoStringContext runs chunk like DoString and stops it when ctx is done:
// a goroutine watching ctx marks the call and signals the OS thread
// running it (a real-time signal, SIGRTMIN+8), whose handler makes the
// hook fire at the next instruction and raise the Lua error "interrupted:
// context deadline exceeded" (or "... canceled"); the next allocation
// does the same. Until ctx is done no hook runs, so a limited chunk runs
// as fast as DoString's on Lua 5.4. Without the signal (the environment
// variable ZLUA_POKE_SIGNAL=off, or 0, false, no in any case, or a
// handler installed for it by other
// code) a count hook checks the mark every 1000 instructions, or more
// often when instructions are slow, from the call's start, which makes
// plain Lua code about twice as slow on Lua 5.4. The signal set to
// ignored or to its default (signal.Ignore, signal.Reset) is taken back.
// A program that installs its own handler for it must do so before its
// limited calls begin, or set ZLUA_POKE_SIGNAL=off: a call that began
// with zlua's handler and loops without allocating is then stopped only
// by its end. Once raised, the error
// is raised again at every instruction, so a script's pcall cannot keep it
// from reaching the caller, and a message handler (xpcall) is not run for
// it. Once ctx is done the call ends with its error even if the script
// caught every interruption and returned. The returned error satisfies
// errors.Is(err, ctx.Err()) and errors.As with *LuaError, and
// errors.Is(err, context.Cause(ctx)) when the context was given its own
// cause (context.WithCancelCause …), which the error's text names last:
// "… interrupted: context canceled (cause: server shutting down)". Pattern matching
// runs no Lua instructions, so zlua's string.find, match, gmatch and gsub
// check the same flag while they work and raise the same error; on Lua
// 5.4 so do table.move, insert and remove (their loops can be as long as
// an argument or __len says). Other C calls run to their end (one
// table.sort of a few million elements takes seconds on Lua 5.4; on
// LuaJIT a sort without comparator of more than 16 elements is given a C
// comparator inside limited calls, whose calls the check stops). A chunk
// compiles in 1 KB pieces with the check between two, host chunks and
// the LibsSafe load and require; with LibsAll a script's own load and
// require compile in one piece. After the
// interruption no script code runs: on Lua 5.4 pending to-be-closed
// variables are closed, but every __close handler, Lua or Go function,
// is stopped at its start by the same error.
//
// Lua code run by nested calls (a Go function that calls DoString, a
// coroutine resumed by the chunk) is limited too. A hook the script sets
// with debug.sethook (LibsAll) coexists with the limit. Go code is not
// limited: a Go function called from the chunk runs to completion. One
// whose first parameter is a context.Context receives ctx there (the
// context of the innermost limited call in progress: see "Go functions
// in Lua" in the package documentation) and should return when it is
// done, typically with ctx.Err(). Finalizers (__gc) and a script's hook function
// run with hooks disabled on both backends, and so does a limited call a
// Go function makes from inside one of them (it is not stopped either);
// Options.Libs = LibsSafe keeps scripts from defining either. On LuaJIT,
// compiled code never runs hooks, so the JIT compiler is off and compiled
// traces are flushed while a limited call runs; the outermost one's end
// gives the compiler back the state it had before (or the last one the
// script asked for with jit.on or jit.off meanwhile). With LibsAll the
// debug library reaches what zlua's wrappers keep in their upvalues and
// the registry (the original jit.on, the stock coroutine functions): a
// script using it that way, like one loading native code, is outside
// these guarantees. C code that installs its own handler for the signal
// or blocks it on the call's thread while a limited call runs leaves a
// loop that never allocates to its end; set ZLUA_POKE_SIGNAL=off in such
// a program. A nil context, or one that is never done (ctx.Done() ==
// nil), runs the chunk as DoString does, without the hook.
func (e *Env) DoStringContext(ctx context.Context, chunk string) error {
	if e.g == nil {
		return errUnmade
	}
	if err := callbackgate.CtxDone(ctx); err != nil {
		return fmt.Errorf("zlua: do string: %w", err)
	}
	if callbackgate.Unlimited(ctx) { // nil too, as CallContext takes it
		return e.DoString(chunk)
	}
	return e.doLimited(ctx, chunk, doStringName)
}

// DoFileContext runs the file at path like DoFile (a UTF-8 byte order
// mark and a first line starting with # skipped, positions named
// "path:line") under ctx, as DoStringContext runs a chunk. The file is
// read before the limit starts: its reading is not interrupted.
func (e *Env) DoFileContext(ctx context.Context, path string) error {
	if e.g == nil {
		return errUnmade
	}
	if err := callbackgate.CtxDone(ctx); err != nil {
		return fmt.Errorf("zlua: dofile: %w", err)
	}
	if callbackgate.Unlimited(ctx) {
		return e.DoFile(path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return opErrorf(loaderWords(err), "dofile")
	}
	return e.doLimited(ctx, fileChunk(b), "@"+path)
}

// doLimited loads chunk under name and runs it limited by ctx, whose
// Done channel is not nil.
func (e *Env) doLimited(ctx context.Context, chunk, name string) error {
	var fired bool
	err := e.protect(func(t cgo.Thread) int {
		st, f := e.g.Limited(ctx, t, func() int {
			return e.g.S.DoString(t, chunk, name, e.opts.Libs.chunkMode())
		})
		fired = f
		return st
	})
	return callbackgate.CtxResult(ctx, err, fired)
}
