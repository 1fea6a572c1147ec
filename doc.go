// Package zlua embeds native Lua 5.4 (default) or LuaJIT (build tag luajit)
// in Go programs, with a C/Go boundary that is correct by construction.
//
// # Quick start
//
//	env, err := zlua.New(zlua.Options{})
//	if err != nil { ... }
//	defer env.Close()
//	env.SetGlobal("add", func(a, b int) int { return a + b })
//	err = env.DoString(`print(add(1, 2))`)
//
// # Go functions in Lua
//
// [Env.SetGlobal] accepts Go functions of any signature. Arguments are
// converted from Lua with Lua's own rules and wording: a wrong argument
// raises "bad argument #2 to 'add' (number expected, got string)". A last
// result of type error raises a Lua error when non-nil; returning
// [Yield](values...) there yields the calling coroutine. A panic is
// recovered and raised as a Lua error naming the function; if no pcall
// catches it, the Go caller gets a [*PanicError].
//
// # Errors
//
// Errors raised in Lua come back as [*LuaError] with a Message and a
// Traceback. Errors that started in Go stay reachable through errors.Is and
// errors.As. Error objects (tables raised with error) keep their identity
// through any number of Go frames.
//
// # Lifetimes
//
// A Go function pushed to Lua lives until Lua collects it; [Env.Pump] (or
// the return of any Env method to its outermost caller) reclaims what Lua
// and Go released. [Env.Close] runs every pending __gc and releases
// everything; it is idempotent.
//
// # Limits and untrusted scripts
//
// [Options].MemoryLimit caps the Lua heap: a script that allocates past it
// gets Lua's "not enough memory" error (pcall can catch it; uncaught, the
// Go caller's error matches [ErrMemory]) and the Env stays usable;
// [Env.Stats] reports the heap. [Env.DoStringContext] stops a script when
// its context is done, infinite loops included. [LibsSafe] opens the
// libraries without file, process, debug, native code or bytecode access.
// Deep Lua→Go→Lua recursion ends with a "stack overflow" error. See
// docs/SANDBOX.md and docs/RELIABILITY.md.
//
// # Threads
//
// An Env is used by one goroutine at a time; different Envs are
// independent and may run at the same time on different goroutines.
//
// See docs/ARCHITECTURE.md in the repository for the design.
package zlua
