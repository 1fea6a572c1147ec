package zlua

import (
	"fmt"
	"reflect"

	"github.com/zlua-go/zlua/cgo"
)

// SetGlobal sets the Lua global name to v: nil, booleans, every Go integer
// and float kind, strings and []byte become Lua values; maps, slices and
// arrays are copied into new tables; functions of any signature become Lua
// functions (see the package documentation for argument and result rules).
func (e *Env) SetGlobal(name string, v any) error {
	// One crossing: the program (name, value) runs in one protected
	// operation, which leaves the stack as it found it.
	t, err := e.begin()
	if err != nil {
		return fmt.Errorf("zlua: set global %q: %w", name, err)
	}
	g := e.g
	defer g.Exit()
	s := g.S
	s.ProgReset()
	s.PutStr(name)
	err = g.Push(v, name)
	if err == nil {
		err = s.Commit()
	}
	if err == nil {
		if st, _ := s.Run(t, cgo.OpSetGlobal, 0, 0, 0); st != cgo.OK {
			err = g.ErrorFromTop(t, st)
		}
	}
	if err != nil {
		return fmt.Errorf("zlua: set global %q: %w", name, err)
	}
	return nil
}

// setField sets table global tbl's field key to v (used at init).
func (e *Env) setField(tbl, key string, v any) error {
	return e.DoStringArgs("local t, k, v = ...; _G[t][k] = v", tbl, key, v)
}

// DoStringArgs runs chunk with args available to it as `...`.
func (e *Env) DoStringArgs(chunk string, args ...any) error {
	return e.callChunk(chunk, "", args)
}

// callChunk runs chunk with args; Go functions among them are named name
// in error messages.
func (e *Env) callChunk(chunk, name string, args []any) error {
	var perr error
	err := e.protect(func(t cgo.Thread) int {
		s := e.g.S
		if st := s.Load(t, chunk, chunk, e.opts.Libs.chunkMode()); st != cgo.OK {
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
		return fmt.Errorf("zlua: arguments: %w", perr)
	}
	return err
}

// Global reads the Lua global name into *out, converting it to out's
// element type with the same rules as Go function arguments. A missing
// global reads as nil.
func (e *Env) Global(name string, out any) error {
	rv := reflect.ValueOf(out)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("zlua: global %q: out must be a non-nil pointer, got %T", name, out)
	}
	t, err := e.begin()
	if err == nil {
		err = e.g.ReadGlobal(t, name, rv.Elem())
		e.g.Exit()
	}
	if err != nil {
		return fmt.Errorf("zlua: global %q: %w", name, err)
	}
	return nil
}

// pushGlobal pushes _G[name] (metamethods of _G run, under protection).
// A Lua error comes back as its status with the error value on the stack;
// err reports a program that could not be built (then the status is OK
// and nothing was pushed).
func (e *Env) pushGlobal(t cgo.Thread, name string) (status int, err error) {
	s := e.g.S
	s.ProgReset()
	s.PutStr(name)
	if err := s.Commit(); err != nil {
		return cgo.OK, err
	}
	st, _ := s.Run(t, cgo.OpGetGlobal, 0, 1, 0)
	return st, nil
}
