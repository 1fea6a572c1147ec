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
// # Go objects in Lua
//
// Pointers and channels pushed to Lua (with [Env.SetGlobal], as arguments
// or results of Go functions, inside other values) become userdata that
// hold the Go object by reference. The same pointer pushed twice is the
// same userdata (rawequal, usable as a table key) while Lua holds it.
// Scripts call exported methods with obj:Method(args) and read and write
// exported fields with obj.Field (the struct tag lua:"name" renames a
// field, lua:"-" hides it); tostring uses a String method when there is
// one, and == compares objects. [AsView] restricts what Lua sees to an
// interface's methods; a Go function whose declared result is an
// interface does the same. Maps and slices are copied into tables unless
// wrapped in [ByRef]. [Env.Register] places constructors and constants
// under the root table go.
//
// Type errors read like Lua's: "bad argument #1 to 'Heal' (Player
// expected, got FILE*)"; a userdata whose object was released (one a
// finalizer resurrected) gives "attempt to use a released object".
//
// # Structs by value
//
// A struct value (not a pointer) pushed to Lua becomes a userdata holding
// a copy: changing it in Lua never changes the Go original, and a Go
// function taking the struct receives a copy of Lua's. Structs of only
// numbers, booleans, arrays and structs of those are copied into Lua
// memory and their numeric and boolean fields are read and written
// without entering Go; others keep their copy on the Go side until Lua
// collects the userdata ([Env.Stats] LiveStructs). Value-receiver methods
// are callable (v:Len()); a nested struct field reads as a copy, an array
// field as a table copy. [Opaque] lends a pointer to a struct to Lua for
// the duration of one call, as a handle read with zlua.get_opaquevalue and
// written with zlua.set_opaquevalue.
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
// A Go object stays alive while Lua holds its userdata: the Env's slot
// table references it. After Lua collects the userdata and the release is
// drained (Pump, or an Env method returning), Go may collect the object.
// A cycle across the two heaps — a Go object that holds a Lua reference
// reaching its own userdata — is never collected; break it explicitly.
// [Env.Stats] reports LiveObjects, PeakObjects, ObjectPushes, CacheHits
// and SlotCapacity.
// # Limits and untrusted scripts
//
// [Options].MemoryLimit caps the Lua heap: a script that allocates past it
// gets Lua's "not enough memory" error (pcall can catch it; uncaught, the
// Go caller's error matches [ErrMemory]) and the Env stays usable;
// [Env.Stats] reports the heap. [Env.DoStringContext] stops a script when
// its context is done, infinite loops included, and ends with the
// context's error even if the script caught the interruption; only
// finalizers, Go code the script calls and (with LibsAll) a script's hook
// function run on unstopped. [LibsSafe] opens the
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
