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
// # Chunks and modules
//
// [Env.DoString] runs a chunk, [Env.Eval] runs one and returns its values
// (Eval("a + b", &sum)), [Env.LoadString] compiles a named chunk into a
// [Function], [Env.DoFile] runs a file the way the lua interpreter loads it.
// Errors and tracebacks name the chunk: "(dostring):3:", "(eval):1:", the
// LoadString name, or the file's path.
//
// [Options].Modules is where require finds modules: require("game.items")
// loads game/items.lua (or game/items/init.lua) from an fs.FS such as an
// embed.FS, also in the sandbox, where it is the only source of modules.
// [Env.Preload] offers a Go value as a module: a map of Go functions
// becomes the module table. Under a MemoryLimit, a module file larger
// than the limit is refused by its size, unread. To reload a module, a
// host sets package.loaded[name] = nil and requires it again; after a
// load that failed, LuaJIT (as stock) keeps a marker there that makes
// the next require fail with "loop or previous error loading module"
// until it is cleared the same way (Lua 5.4 tries again by itself).
//
// Every Env has a global table zlua: zlua.version, zlua.backend (the
// [Backend] string), zlua.resumable(co) (whether coroutine co is
// suspended) and zlua.to_delegate(f) (checks that f is callable and
// returns it, for scripts written against the ZLua spec).
//
// # Lua values in Go
//
// A [Table] is a handle on a Lua table: [Table.Get] and [Table.Set] index
// it as Lua does (metamethods run), [Table.Len] is Lua 5.4's #,
// [Table.ForEach] walks it, [Table.Method] binds t:name(...) to a typed Go
// func. [Env.NewTable] makes one, [Env.Globals] is the global table, and a
// Lua table read into a *Table (Env.Global, Table.Get, a Go function
// parameter) becomes one. A [Function] is the same for functions
// ([Env.GetFunction], or any func-typed or *Function parameter; a table or
// userdata whose metatable has __call is accepted there too, as Lua calls
// it). Both keep
// their Lua value alive until Release or until Go drops them (the next
// Pump releases it), fail with [ErrStale] after Reset or Close, and are
// refused by other Envs; pushed back into their own Env they are the Lua
// value itself. Each crossing makes a new handle: [Function.Same] (and
// Table's, Thread's) tells whether two hold one Lua value. Global,
// SetGlobal and GetFunction take dotted paths ("Shop.items.sword"); their
// Context variants ([Env.GlobalContext]) bound the metamethods a script
// left on the way. A typed func whose last result is [Values] receives
// all of the Lua function's results from there on.
//
// # Go functions in Lua
//
// [Env.SetGlobal] accepts Go functions of any signature. Arguments are
// converted from Lua with Lua's own rules and wording: a wrong argument
// raises "bad argument #2 to 'add' (number expected, got string)". A last
// result of type error raises a Lua error when non-nil; returning
// [Yield](values...) there yields the calling coroutine. A result of type
// [Values] returns as many results as it has elements (none for nil). A
// panic is recovered and raised as a Lua error naming the function; if no
// pcall catches it, the Go caller gets a [*PanicError]. A nil or missing
// argument for a func-typed or [*Function] parameter arrives as nil, as an
// optional callback does in Go: check it before calling.
//
// A Go function (or method, after its receiver) whose first parameter is
// a context.Context receives the context of the call it runs in: the ctx
// of the innermost limited call in progress ([Env.DoStringContext],
// [Function.CallContext], a typed func with a context,
// [Thread.ResumeContext], nested or not, whichever thread runs the
// script), or context.Background() outside any. A context that is never
// done makes no limited call and is not passed on. Lua does not pass the
// context: its first argument goes to the parameter after it, and
// argument errors count from there ("bad argument #1 to 'fetch'" names
// that one). A function that blocks should watch ctx.Done() and return
// ctx.Err(): the script then ends with the context's error.
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
// under the root table ([Options].Root, default go). A struct field of an
// object (p.Pos, or p.N.Pos) reads as a view of that field inside the
// object, not a copy: local v = p.Pos; v.X = 99 changes the Go object,
// and the view keeps the object alive (values pushed by value read
// nested structs as copies, below).
//
// Type errors read like Lua's: a Go function heal taking a *Player first
// raises "bad argument #1 to 'heal' (Player expected, got FILE*)"; a
// method names its type and method, "bad argument #1 to 'Player:Heal'
// (number expected, got string)", and a bad receiver "calling
// 'Player:Heal' on bad self (Player expected, got FILE*)"; a userdata
// whose object was released (one a finalizer resurrected) gives "attempt
// to use a released object".
//
// # Operators and collections
//
// [Metamethods] gives the userdata of a Go type operators (+, ==, <, #,
// .., calls, tostring) implemented by Go functions, for copies of a
// struct type and for objects of a pointer type. A map or slice pushed
// with [ByRef] works with #, pairs and ipairs, on LuaJIT as on Lua 5.4:
// stock LuaJIT's pairs and ipairs accept only tables, so every Env on
// LuaJIT replaces the two globals with functions that, for a userdata,
// call its __pairs or index it from 1 as Lua 5.4 does, and call the
// original for every other value (same results, same errors). A slice or
// map field of an object is a copy unless tagged lua:",ref": then it reads
// as a view of the field, and appending (t[#t+1] = x) grows the object's
// slice. A struct element of such a slice is a view of the element
// (s[i].X = 1 writes it); one of a map is a copy whose fields refuse
// writes, since a Go map element has no address (assign the whole
// element: m[k] = v).
//
// # Structs by value
//
// A struct value (not a pointer) pushed to Lua becomes a userdata holding
// a copy: changing it in Lua never changes the Go original, and a Go
// function taking the struct receives a copy of Lua's. The copy is Go's
// (shallow): what its pointer fields and embedded pointers point to is
// shared with the original, as after `c := orig` in Go, so v.Ptr.X = 9,
// or v.ID = 5 for an ID promoted from an embedded *Base, writes there. Structs of only
// numbers, booleans, arrays and structs of those are copied into Lua
// memory and their numeric and boolean fields are read and written
// without entering Go; others keep their copy on the Go side until Lua
// collects the userdata ([Env.Stats] LiveStructs). Value-receiver methods
// are callable (v:Len()); a nested struct field reads as a copy, an array
// field as a table copy. [Opaque] lends a pointer to a struct to Lua for
// the duration of one call, as a handle read with zlua.get_opaquevalue and
// written with zlua.set_opaquevalue.
//
// # Tables and structs
//
// A Lua table passed where Go expects a struct or a pointer to one (a
// parameter, [Env.Global], a typed func's result, an element or field of
// those) is decoded into it: place({x = 1, y = 2}) calls func
// place(v Vec2). String keys match the field names Lua sees (the Go name
// or the lua:"name" tag) exactly or without regard to case; nested
// tables fill nested structs, slices, arrays, maps and pointers
// (allocated, a pointer to any type); unknown keys are ignored and
// missing ones leave zero values, unless the out is wrapped in [Overlay],
// which keeps what it held (defaults set in Go). Two keys that match one field only
// without regard to case, or two keys that become one Go map key ("1"
// and 1 into a map[int]string), are an error. Errors name the path to the
// bad value: "zlua: global "cfg": cfg.weapons[2].damage: number expected,
// got string". [AsTable] goes the other way: a struct pushed as a plain
// table copy instead of a userdata. Tables reaching any become []any
// (sequences: keys exactly 1..n, n ≥ 1), map[string]any (string keys;
// the empty table too, so an empty list encodes as a JSON object) or
// map[any]any. Numbers reaching any are int64 or float64: on Lua 5.4 as
// Lua's subtype says (3.0 is float64), on LuaJIT, which has only floats,
// int64 for an integral value within ±2^53 - 1 and float64 otherwise, so
// code that switches on the two types sees 3.0 as int64 there.
//
// # Errors
//
// Errors raised in Lua come back as [*LuaError] with a Message and a
// Traceback. Errors that started in Go stay reachable through errors.Is and
// errors.As as long as the value that reaches Go is the one raised (let
// through, re-raised unchanged with error(e, 0), or returned by a Go
// function), or that value behind the positions error(e) and
// coroutine.wrap put before a string they raise again, within the same
// outermost API call; a script's own error with other text (e .. "!",
// "bag " .. e) is not the Go error.
// A Go error reaches Lua as a string, and Lua strings are values: a string
// equal to the one raised is that value, so a script's own error with
// exactly the same text, raised after the Go error in the same call,
// matches it (the most recent of the last 8 Go errors with that text), and
// a string saved and raised again in a later API call matches nothing. A
// script can therefore make its error read as a host's sentinel error
// (ErrMemory included); a host that must tell them apart raises error
// objects. Error objects (tables raised with error) keep their identity
// through any number of Go frames, and [LuaError.Value] reads one into a
// Go value (error{code = 5} into a struct, a map or a *Table). A Go value
// whose type implements error (an object, or a struct copy with value
// receivers), raised by a script (error(obj)), is the LuaError's cause,
// as if a Go function had returned it, and prints (in Message and
// tostring) as its Error text.
//
// # Lifetimes
//
// A Go function pushed to Lua lives until Lua collects it; what Lua
// released (functions and objects its collector freed) is reclaimed when
// an Env method returns to its outermost caller, and what Go released
// (handles Released or dropped) by the next [Env.Pump]. [Env.Close] runs
// every pending __gc and releases everything; it is idempotent.
//
// A Go object stays alive while Lua holds its userdata: the Env's slot
// table references it. After Lua collects the userdata and the release is
// drained (Pump, or an Env method returning), Go may collect the object.
// A cycle across the two heaps — a Go object that holds a Lua reference
// reaching its own userdata — is never collected; break it explicitly.
// [Env.Stats] reports LiveObjects, PeakObjects, ObjectPushes, CacheHits
// and SlotCapacity.
//
// # Limits and untrusted scripts
//
// [Options].MemoryLimit caps the Lua heap: a script that allocates past it
// gets Lua's "not enough memory" error (pcall can catch it; uncaught, the
// Go caller's error matches [ErrMemory]) and the Env stays usable;
// [Env.Stats] reports the heap. [Env.DoStringContext] ([Env.DoFileContext] for a file) stops a script when
// its context is done, infinite loops included, and ends with the
// context's error even if the script caught the interruption; only
// finalizers, Go code the script calls (a Go function taking a
// context.Context first gets the script's, to watch) and (with LibsAll) a
// script's hook function run on unstopped. [LibsSafe] opens the
// libraries without file, process, debug, native code or bytecode access.
// Deep Lua→Go→Lua recursion ends with a "stack overflow" error. See
// docs/SANDBOX.md and docs/RELIABILITY.md. [Function.CallContext], typed
// funcs whose first parameter is a context.Context, and
// [Thread.ResumeContext] give calls from Go into Lua the same deadline.
//
// # Coroutines driven from Go
//
// [Env.NewThread] makes a Lua thread (a coroutine) that Go runs with
// [Thread.Resume]: it returns the values the thread yields, then its
// function's results, and [Thread.Done] reports when it has finished. A Go
// function returning [Yield] inside a thread Go resumed suspends the thread
// and hands the values to Go; the next Resume's arguments become the Go
// function's results in Lua. That is how a game loop runs scripts that
// wait(seconds) (see the scheduler example). [Thread.BindResume] binds a
// typed func that resumes the thread in one crossing without allocating,
// for threads stepped every frame. A Lua thread reaching a Go parameter of
// type any or *Thread becomes a [*Thread].
//
// # Threads
//
// An Env is used by one goroutine at a time; different Envs are
// independent and may run at the same time on different goroutines. A
// second goroutine calling an Env in use gets [ErrConcurrentUse] and the
// Env is not touched; [Env.Close] from another goroutine makes later calls
// return [ErrClosed] (function handles [ErrStale]), never touching a freed
// state. Other goroutines hand work to the owner with [Env.Post]; every
// function Post accepted runs, in a Pump or in Close. [Env.Stats] may be
// called from any goroutine.
//
// See docs/ARCHITECTURE.md in the repository for the design.
package zlua
