package zlua

import "github.com/zlua-go/zlua/callbackgate"

// LuaError is an error raised in Lua and caught by zlua: its Message and
// the Traceback where it was raised. When the error started as a Go error
// or panic in a Go function, errors.Is / errors.As reach it (see
// [PanicError]).
//
// Returned unchanged from a Go function called by Lua, a LuaError re-raises
// the original Lua value: a table raised with error{...} stays the same
// table (rawequal) across any number of Go frames.
type LuaError = callbackgate.LuaError

// PanicError is a Go panic recovered at the gate. Lua sees it as an error
// whose message names the function and the panic value; pcall catches it.
// If no pcall does, the Go caller's error satisfies errors.As(err, &pe).
type PanicError = callbackgate.PanicError

// ErrMemory reports that Lua could not allocate memory.
var ErrMemory = callbackgate.ErrMemory

// ErrClosed is returned by methods of an Env after Close (also when Close
// ran on another goroutine while the call was starting), and by Post once
// Close has begun.
var ErrClosed = callbackgate.ErrClosed

// ErrBusy is returned by Close and Pump while Lua code of the Env is
// running (from inside a Go function that Lua called).
var ErrBusy = callbackgate.ErrBusy

// ErrConcurrentUse is returned when a goroutine uses an Env while another
// goroutine is running Lua code in it. The Env is not touched.
var ErrConcurrentUse = callbackgate.ErrConcurrentUse

// Yield returns an error that, returned as the last result of a Go function
// called from Lua inside a coroutine, yields the coroutine with values. When
// the coroutine is resumed, the values passed to resume become the results
// of the Go function's call in Lua.
func Yield(values ...any) error { return callbackgate.Yield(values...) }

// ErrCannotPush reports a Go value that has no Lua form; errors.Is
// matches it.
var ErrCannotPush = callbackgate.ErrCannotPush
