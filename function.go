package zlua

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"

	"github.com/zlua-go/zlua/callbackgate"
	"github.com/zlua-go/zlua/cgo"
)

// Function is a Lua function held by Go. It keeps the Lua function alive
// until Release, or until Go drops the handle (then a cleanup queues it and
// the next Pump releases it). Call converts arguments like SetGlobal and
// results to their natural Go form. Calls of a handle whose Env was reset
// or closed return ErrStale, after Release ErrReleased.
//
// A Lua function passed to a Go parameter of type *Function or of a func
// type, or read with Global into one, becomes a handle (wrapped in a typed
// func for func types); so does one reaching an any parameter. Pushed back
// into its own Env — as an argument, a result, an element, a field — a
// *Function is the original Lua function; another Env refuses it.
type Function struct{ h callbackgate.Function }

// ErrReleased is returned by uses of a Function or Table after Release.
var ErrReleased = callbackgate.ErrReleased

// ErrStale is returned by uses of a Function or Table whose Env was reset
// or closed.
var ErrStale = callbackgate.ErrStale

// ErrCopied is returned by uses of a copy of a Function, Table or Thread
// struct (`v := *f`, a field or map element of the value type): only the
// handle an Env returned, used through its pointer, holds its Lua value.
// A copy's Release does nothing.
var ErrCopied = callbackgate.ErrCopied

// errNilHandle is the error of a method called on a nil handle; each
// method wraps it with its own context ("zlua: resume: nil handle").
var errNilHandle = errors.New("nil handle")

// Call calls the function with args (converted like SetGlobal values) and
// returns all its results in their natural Go form (see Env.Global with an
// any). A Lua error comes back as *LuaError.
func (f *Function) Call(args ...any) ([]any, error) {
	if f == nil {
		return nil, fmt.Errorf("zlua: call: %w", errNilHandle)
	}
	out, err := f.h.Call(args...)
	if err != nil && isHandleError(err) {
		return nil, opErrorf(err, "call %q", f.h.Name())
	}
	return out, err
}

// CallContext is Call under ctx, with the guarantees of DoStringContext:
// the Lua code the call runs is interrupted within at most 1000
// instructions once ctx is done, pcall, xpcall and coroutines cannot swallow the
// interruption, and the error matches both ctx.Err() and *LuaError (also
// when the script caught every interruption and returned). On LuaJIT the
// call runs interpreted. A nil or never-done ctx calls as Call does,
// without the hook; a ctx already done calls nothing.
//
// A typed func whose first parameter is a context.Context (bound with
// GetFunction, Table.Method, or received for a Lua function by a Go
// parameter) calls the same way: func(context.Context, float64) error runs
// the Lua function with one argument under the context it is given.
func (f *Function) CallContext(ctx context.Context, args ...any) ([]any, error) {
	if f == nil {
		return nil, fmt.Errorf("zlua: call: %w", errNilHandle)
	}
	return f.h.CallContext(ctx, args...)
}

// Name returns the name the handle was made under: the global or path
// given to GetFunction, the chunk name given to LoadString, ":name" for a
// method bound with Table.Method, "function" for a value converted from
// Lua.
func (f *Function) Name() string {
	if f == nil {
		return ""
	}
	return f.h.Name()
}

// String names the handle for logs and fmt (and tostring of a Go value
// holding it): zlua.Function("name"), with the name Name returns. It
// shows no address or reference number and reads no Lua state, so any
// goroutine may call it, on a released or stale handle too.
func (f *Function) String() string {
	if f == nil {
		return "zlua.Function(nil)"
	}
	return "zlua.Function(" + strconv.Quote(f.h.Name()) + ")"
}

// Release releases the handle now; later calls fail with ErrReleased.
// Idempotent. The reference is freed at the next Pump, unless other
// handles on the same function share it (arguments of one call of the
// script, as for tables: see Table.Release).
func (f *Function) Release() {
	if f != nil {
		f.h.Release()
	}
}

// GetFunction binds the Lua function at name — a global, or a dotted path
// such as "Shop.buy" (see Env.Global) — to *fnPtr, which must be a pointer
// to a func variable (e.g. *func(int, int) (int, error)) or to a
// *Function. Calling the func enters Lua once. If the func type's last
// result is error, Lua errors come back there as *LuaError; otherwise the
// func panics with it. Arguments and results convert as in SetGlobal and
// Global; common signatures call without reflection and allocation.
//
// The error result receives only errors the Lua function raises. Lua's
// "return nil, message" idiom is two results: bind it with a string second
// result (func(string) (*Item, string)) to read the message.
func (e *Env) GetFunction(name string, fnPtr any) error { return e.getFunction(nil, name, fnPtr) }

// GetFunctionContext is GetFunction with the Lua code the lookup runs (an
// __index on the way) limited by ctx, with the guarantees of
// DoStringContext: after untrusted scripts ran in the Env, looking up an
// optional hook they did not define runs whatever __index they gave _G.
// Calls of the bound func are not limited by ctx (give the func a
// context.Context first parameter for that). A ctx already done binds
// nothing.
func (e *Env) GetFunctionContext(ctx context.Context, name string, fnPtr any) error {
	c, err := hostCtx(ctx)
	if err != nil {
		return fmt.Errorf("zlua: get function %q: %w", name, err)
	}
	return e.getFunction(c, name, fnPtr)
}

// getFunction is GetFunction under ctx (nil: unlimited).
func (e *Env) getFunction(ctx context.Context, name string, fnPtr any) error {
	if e.g == nil {
		return errUnmade
	}
	rv, err := funcTarget(fnPtr)
	if err != nil {
		return opErrorf(err, "get function %q", name)
	}
	var ferr error
	err = e.protectCtx(ctx, func(t cgo.Thread) int {
		s := e.g.S
		st, err := e.pushPath(t, name)
		if err != nil || st != cgo.OK {
			ferr = err
			return st
		}
		if !e.g.CallableAt(t, t.Top()) {
			ferr = fmt.Errorf("function expected, got %s", s.TypeName(t, -1))
			return cgo.OK
		}
		f, err := e.g.NewFunction(t, t.Top(), name)
		if err != nil {
			ferr = err
			return cgo.OK
		}
		bindFunc(e.g, f, rv)
		return cgo.OK
	})
	if err == nil {
		err = ferr
	}
	if err != nil {
		return opErrorf(err, "get function %q", name)
	}
	return nil
}

// funcTarget checks fnPtr (a pointer to a func variable or to a
// *Function) and returns the variable.
func funcTarget(fnPtr any) (reflect.Value, error) {
	rv := reflect.ValueOf(fnPtr)
	if rv.Kind() != reflect.Pointer || rv.IsNil() ||
		(rv.Elem().Kind() != reflect.Func && rv.Elem().Type() != reflect.TypeFor[*Function]()) {
		return rv, fmt.Errorf("want a pointer to a func variable or *Function, got %T", fnPtr)
	}
	return rv.Elem(), nil
}

// bindFunc stores f into the variable v: a typed func calling it, or the
// handle itself.
func bindFunc(g *callbackgate.Gate, f *callbackgate.Function, v reflect.Value) {
	if v.Kind() == reflect.Func {
		v.Set(g.MakeDelegate(f, v.Type()))
	} else {
		v.Set(reflect.ValueOf(pubFunction(f)))
	}
}
