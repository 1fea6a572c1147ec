package zlua

import (
	"fmt"
	"reflect"

	"github.com/zlua-go/zlua/callbackgate"
	"github.com/zlua-go/zlua/cgo"
)

// Function is a Lua function held by Go. It keeps the Lua function alive
// until Release, or until Go drops the handle (then a cleanup queues it and
// the next Pump releases it). Call converts arguments like SetGlobal and
// results to their natural Go form. Calls of a handle whose Env was reset
// or closed return an error.
//
// A Lua function passed to a Go parameter of type *Function or of a func
// type, or read with Global into one, becomes a handle (wrapped in a typed
// func for func types). Pushed back to Lua, a *Function is the original
// Lua function.
type Function = callbackgate.Function

// ErrReleased is returned by calls of a Function after Release.
var ErrReleased = callbackgate.ErrReleased

// ErrStale is returned by calls of a Function whose Env was reset or
// closed.
var ErrStale = callbackgate.ErrStale

// GetFunction binds the Lua global function name to *fnPtr, which must be
// a pointer to a func variable (e.g. *func(int, int) (int, error)) or to a
// *Function. Calling the func enters Lua once. If the func type's last
// result is error, Lua errors come back there as *LuaError; otherwise the
// func panics with it. Arguments and results convert as in SetGlobal and
// Global; common signatures call without reflection and allocation.
func (e *Env) GetFunction(name string, fnPtr any) error {
	rv := reflect.ValueOf(fnPtr)
	if rv.Kind() != reflect.Pointer || rv.IsNil() ||
		(rv.Elem().Kind() != reflect.Func && rv.Elem().Type() != reflect.TypeFor[*Function]()) {
		return fmt.Errorf("zlua: get function %q: want a pointer to a func variable or *Function, got %T", name, fnPtr)
	}
	var ferr error
	err := e.protect(func(t cgo.Thread) int {
		s := e.g.S
		st, err := e.pushGlobal(t, name)
		if err != nil || st != cgo.OK {
			ferr = err
			return st
		}
		if t.Type(-1) != cgo.TFunction {
			ferr = fmt.Errorf("function expected, got %s", s.TypeName(t, -1))
			return cgo.OK
		}
		f, err := e.g.NewFunction(t, t.Top(), name)
		if err != nil {
			ferr = err
			return cgo.OK
		}
		if elem := rv.Elem(); elem.Kind() == reflect.Func {
			elem.Set(e.g.MakeDelegate(f, elem.Type()))
		} else {
			elem.Set(reflect.ValueOf(f))
		}
		return cgo.OK
	})
	if err == nil {
		err = ferr
	}
	if err != nil {
		return fmt.Errorf("zlua: get function %q: %w", name, err)
	}
	return nil
}
