// Package callbackgate is the Go side of every Lua→Go call and the
// conversions between Go and Lua values.
//
// # The gate
//
// Lua calls a Go function through one C trampoline, which reads the
// arguments and enters Go once with the function's integer id. The gate
// finds the function, converts the arguments (fast plans for common
// signatures, reflection for the rest), recovers any panic, and returns a
// status with the results, an error or yielded values written as a push
// program. The trampoline pushes them and raises or yields only after Go
// has returned, so no Lua error or yield ever unwinds a Go frame.
//
// # Objects
//
// Go pointers, channels and ByRef maps and slices cross as ByObj userdata:
// [objreg] keeps the objects, this package pushes them (identity cache
// lookups, views), pops them with type checks (popObj, popThis), and binds
// their types: one metatable per (type, view), built once, with method
// plans that call common signatures without reflection.
//
// # Errors
//
// Errors caught by zlua become [*LuaError]; a Go error or panic that Lua did
// not catch is reachable from it with errors.Is / errors.As
// ([*PanicError]). A *LuaError returned by a Go function re-raises the
// original Lua value, so error objects keep their identity across Go frames.
package callbackgate
