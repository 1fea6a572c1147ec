package zlua

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unsafe"

	"github.com/zlua-go/zlua/callbackgate"
	"github.com/zlua-go/zlua/cgo"
)

// SetGlobal sets the Lua global name to v: nil, booleans, every Go integer
// and float kind, strings and []byte become Lua values; maps, slices and
// arrays are copied into new tables; functions of any signature become Lua
// functions (see the package documentation for argument and result rules);
// a *Function or *Table of this Env is its Lua value.
//
// A dotted name sets a field: SetGlobal("Shop.discount", 0.1) does
// Shop.discount = 0.1, with __newindex running as in Lua. The tables on the
// way must exist (see Env.Global); none is created.
func (e *Env) SetGlobal(name string, v any) error { return e.setGlobal(nil, name, v) }

// SetGlobalContext is SetGlobal with the Lua code it runs (a __newindex
// on the way) limited by ctx, with the guarantees of DoStringContext. After
// untrusted scripts ran in the Env, a plain SetGlobal runs whatever
// metamethods they set, with no deadline; this one stops them. A ctx
// already done sets nothing.
func (e *Env) SetGlobalContext(ctx context.Context, name string, v any) error {
	c, err := hostCtx(ctx)
	if err != nil {
		return fmt.Errorf("zlua: set global %q: %w", name, err)
	}
	return e.setGlobal(c, name, v)
}

// hostCtx is the context a host call that may run script code runs
// under: nil (the plain call) for a nil context or one never done, and the
// context's error, with nothing run, for one already done.
func hostCtx(ctx context.Context) (context.Context, error) {
	if err := callbackgate.CtxDone(ctx); err != nil {
		return nil, err
	}
	if callbackgate.Unlimited(ctx) { // nil too, as CallContext takes it
		return nil, nil
	}
	return ctx, nil
}

// setGlobal is SetGlobal under ctx (nil: unlimited).
func (e *Env) setGlobal(ctx context.Context, name string, v any) error {
	if e.g == nil {
		return errUnmade
	}
	if isOpaque(v) {
		return fmt.Errorf("zlua: set global %q: %w", name, errOpaqueStored)
	}
	parent, key, dotted := cutLastDot(name)
	if dotted && (parent == "" || key == "" || strings.Contains(parent, "..")) {
		return fmt.Errorf("zlua: set global %q: %w", name, errEmptySegment)
	}
	if !dotted && ctx == nil {
		return e.setPlainGlobal(name, v)
	}
	var perr error
	err := e.protectCtx(ctx, func(t cgo.Thread) int {
		s := e.g.S
		op, nargs := cgo.OpSetGlobal, 0
		if dotted {
			st, err := e.pushPath(t, parent)
			if err == nil && st == cgo.OK {
				err = e.checkIndexable(t, parent)
			}
			if err != nil || st != cgo.OK {
				perr = err
				return st
			}
			op, nargs = cgo.OpNewIndex, 1
		}
		s.ProgReset()
		s.PutStr(key)
		if perr = e.g.Push(v, key); perr != nil {
			return cgo.OK
		}
		if perr = s.Commit(); perr != nil {
			return cgo.OK
		}
		st, _ := s.Run(t, op, nargs, 0, 0)
		return st
	})
	if perr != nil {
		return opErrorf(perr, "set global %q", name)
	}
	if err != nil {
		return opErrorf(err, "set global %q", name)
	}
	return nil
}

// setPlainGlobal is SetGlobal of a name without dots in one crossing: the
// program (name, value) runs in one protected operation, which leaves the
// stack as it found it (no closure, no Top and SetTop crossings).
func (e *Env) setPlainGlobal(name string, v any) error {
	t, err := e.begin()
	if err != nil {
		return opErrorf(err, "set global %q", name)
	}
	g := e.g
	defer g.Exit()
	s := g.S
	err = g.PutGlobal(name, v)
	if err == nil {
		err = s.Commit()
	}
	if err == nil {
		if st, _ := s.Run(t, cgo.OpSetGlobal, 0, 0, 0); st != cgo.OK {
			err = g.ErrorFromTop(t, st)
		}
	}
	if err != nil {
		return opErrorf(err, "set global %q", name)
	}
	return nil
}

// setField sets table global tbl's field key to v (used at init).
func (e *Env) setField(tbl, key string, v any) error {
	return e.DoStringArgs("local t, k, v = ...; _G[t][k] = v", tbl, key, v)
}

// Overlay marks p, an out pointer of Env.Global, Env.GlobalContext,
// Env.Eval, Table.Get or Table.RawGet, to decode a table over the value
// *p already holds, as json.Unmarshal does: the Go defaults the table does
// not name stay.
//
//	cfg := Config{MaxPlayers: 8, Net: Net{Port: 7777}} // defaults
//	err := env.Global("config", zlua.Overlay(&cfg))     // the script's overrides
//
// A struct field the table lacks keeps its value; nested structs, and
// structs reached through non-nil pointers, are decoded over the same way
// (the pointed-to struct is copied, not changed); a map keeps the entries
// whose keys the table lacks. Slices, arrays, map elements and values that
// are not tables are replaced whole, as without Overlay. A value that does
// not convert leaves *p unchanged, as always.
func Overlay(p any) any { return callbackgate.Overlay{P: p} }

// Global reads the Lua global name into *out, converting it to out's
// element type with the same rules as Go function arguments (a *Table or
// *Function out gets a handle). A missing global reads as nil. A value
// that cannot be converted leaves *out unchanged (a struct, slice or map
// is stored only once the whole of it converted) and the error names the
// path inside it that failed. A value that converts replaces *out whole:
// a struct field the table does not name is zero afterwards, nested
// structs and maps included; to keep what *out holds, as json.Unmarshal
// does, pass Overlay(out).
//
// A dotted name reads a field path: Global("Shop.items.sword", &v) reads
// Shop.items.sword, indexing as Lua does (__index runs, under protection).
// A missing last field reads as nil; a nil on the way, or a value that is
// neither a table nor a userdata, is an error naming the path so far:
// "attempt to index a nil value (Shop.items)". For a global whose name
// contains a dot, use Env.Globals.
func (e *Env) Global(name string, out any) error { return e.global(nil, name, out) }

// GlobalContext is Global with the Lua code it runs (an __index on the
// way) limited by ctx, with the guarantees of DoStringContext. After
// untrusted scripts ran in the Env, a plain Global of a name they did not
// define runs whatever __index they gave _G, with no deadline; this one
// stops it. A ctx already done reads nothing.
func (e *Env) GlobalContext(ctx context.Context, name string, out any) error {
	c, err := hostCtx(ctx)
	if err != nil {
		return fmt.Errorf("zlua: global %q: %w", name, err)
	}
	return e.global(c, name, out)
}

// global is Global under ctx (nil: unlimited).
func (e *Env) global(ctx context.Context, name string, out any) error {
	if e.g == nil {
		return errUnmade
	}
	out, over := callbackgate.Unwrap(out)
	rv := reflect.ValueOf(out)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("zlua: global %q: out must be a non-nil pointer, got %T", name, out)
	}
	if ctx == nil && !strings.Contains(name, ".") {
		// One crossing for a scalar: C reads it with the lookup.
		t, err := e.begin()
		if err == nil {
			var prev unsafe.Pointer
			if over { // armed once the Env is ours (overlay.go)
				prev = e.g.ArmOverlay(rv.UnsafePointer())
			}
			err = e.g.GetGlobalInto(t, name, rv.Elem())
			if over {
				e.g.ArmOverlay(prev)
			}
			e.g.Exit()
		}
		if err != nil {
			return opErrorf(err, "global %q", name)
		}
		return nil
	}
	var rerr error
	err := e.protectCtx(ctx, func(t cgo.Thread) int {
		s := e.g.S
		st, err := e.pushPath(t, name)
		if err != nil || st != cgo.OK {
			rerr = err
			return st
		}
		if !s.Reserve(t, callbackgate.ReadStack) {
			rerr = ErrMemory
			return cgo.OK
		}
		if over { // armed once the Env is ours, after the path's Lua code ran
			defer e.g.ArmOverlay(e.g.ArmOverlay(rv.UnsafePointer()))
		}
		rerr = e.g.ReadGlobal(t, t.Top(), rv.Elem(), name)
		return cgo.OK
	})
	if err == nil {
		err = rerr
	}
	if err != nil {
		return opErrorf(err, "global %q", name)
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

// pushPath pushes the value at name: a global, or for a dotted name the
// global indexed field by field (metamethods run, under protection). It
// returns like pushGlobal; err also reports a path that cannot be
// followed.
func (e *Env) pushPath(t cgo.Thread, name string) (status int, err error) {
	if !strings.Contains(name, ".") {
		return e.pushGlobal(t, name)
	}
	if name[0] == '.' || name[len(name)-1] == '.' || strings.Contains(name, "..") {
		return cgo.OK, errEmptySegment
	}
	// The segments are walked in place: the path so far is a prefix of
	// name, so neither splitting nor joining allocates.
	end := strings.IndexByte(name, '.')
	if st, err := e.pushGlobal(t, name[:end]); err != nil || st != cgo.OK {
		return st, err
	}
	s := e.g.S
	for end < len(name) {
		start := end + 1
		if err := e.checkIndexable(t, name[:end]); err != nil {
			return cgo.OK, err
		}
		if i := strings.IndexByte(name[start:], '.'); i >= 0 {
			end = start + i
		} else {
			end = len(name)
		}
		s.ProgReset()
		s.PutStr(name[start:end])
		if err := s.Commit(); err != nil {
			return cgo.OK, err
		}
		if st, _ := s.Run(t, cgo.OpIndex, 1, 1, 0); st != cgo.OK {
			return st, nil
		}
	}
	return cgo.OK, nil
}

var errEmptySegment = errors.New("empty name segment")

// checkIndexable refuses to index the value on top, reached by path,
// unless it is a table or a userdata (whose metatable decides), in the
// words Lua uses.
func (e *Env) checkIndexable(t cgo.Thread, path string) error {
	switch t.Type(-1) {
	case cgo.TTable, cgo.TUserdata:
		return nil
	}
	return fmt.Errorf("attempt to index a %s value (%s)", e.g.S.TypeName(t, -1), path)
}

// cutLastDot splits "a.b.c" into "a.b" and "c".
func cutLastDot(name string) (parent, key string, dotted bool) {
	i := strings.LastIndexByte(name, '.')
	if i < 0 {
		return "", name, false
	}
	return name[:i], name[i+1:], true
}
