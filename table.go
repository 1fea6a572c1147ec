package zlua

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/zlua-go/zlua/callbackgate"
	"github.com/zlua-go/zlua/cgo"
)

// Table is a Lua table held by Go, with the lifetime rules of [Function]:
// it keeps the table alive until Release or until Go drops the handle
// (then the next Pump releases it); its uses fail with ErrStale after a
// Reset or Close and with ErrReleased after Release; another Env refuses
// it. Pushed into its own Env it is the table itself.
//
// Get, Set, Len and Method index the table as Lua code does (metamethods
// run, under protection; their Context variants bound them by a context); ForEach, RawGet, RawSet and RawLen read and
// write it raw, and Metatable and SetMetatable reach its metatable as the
// debug library does. Each is one API call, made
// on the Env's goroutine.
//
// A Lua table becomes a *Table when read with Env.Global or Table.Get
// into a *Table, or passed to a Go function parameter of type *Table. An
// any parameter still receives a copy ([]any for a sequence,
// map[string]any when every key is a string, else map[any]any).
type Table struct{ h callbackgate.Table }

// NewTable creates an empty Lua table and returns a handle on it.
func (e *Env) NewTable() (*Table, error) {
	if e.g == nil {
		return nil, errUnmade
	}
	var tb *callbackgate.Table
	var terr error
	err := e.protect(func(t cgo.Thread) int {
		tb, terr = e.g.CreateTable(t)
		return cgo.OK
	})
	if err == nil {
		err = terr
	}
	if err != nil {
		return nil, opErrorf(err, "new table")
	}
	return pubTable(tb), nil
}

// Globals returns a handle on the global table (_G), whatever global
// variable scripts call _G.
func (e *Env) Globals() (*Table, error) {
	if e.g == nil {
		return nil, errUnmade
	}
	tb, err := e.tableHandle(func(t cgo.Thread) (*callbackgate.Table, error) {
		t.PushGlobals()
		return e.g.NewTableRef(t, t.Top())
	})
	if err != nil {
		return nil, opErrorf(err, "globals")
	}
	return pubTable(tb), nil
}

// tableHandle runs get, which makes a handle on a table it pushes (or
// returns nil), as one Env operation with three stack slots reserved.
func (e *Env) tableHandle(get func(t cgo.Thread) (*callbackgate.Table, error)) (*callbackgate.Table, error) {
	var tb *callbackgate.Table
	var terr error
	err := e.protect(func(t cgo.Thread) int {
		if !e.g.S.Reserve(t, 3) {
			terr = ErrMemory
			return cgo.OK
		}
		tb, terr = get(t)
		return cgo.OK
	})
	if err == nil {
		err = terr
	}
	return tb, err
}

// Get reads t[key] into *out, converting it as Env.Global does; __index
// runs. key converts like a SetGlobal value (a Go string is a Lua string,
// a Go int a Lua integer). A missing key reads as nil.
func (t *Table) Get(key, out any) error { return t.get("get", key, out, t.handle().Get) }

// handle is the gate's table (nil for a nil *Table).
func (t *Table) handle() *callbackgate.Table {
	if t == nil {
		return nil
	}
	return &t.h
}

// get checks out and reads t[key] into it with read (Get or RawGet of the
// gate's table); what names the operation in errors.
func (t *Table) get(what string, key, out any, read func(any, reflect.Value, bool) error) error {
	out, over := callbackgate.Unwrap(out)
	rv := reflect.ValueOf(out)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("zlua: table %s %s: out must be a non-nil pointer, got %T", what, keyText(key), out)
	}
	if t == nil {
		return fmt.Errorf("zlua: table %s %s: %w", what, keyText(key), errNilHandle)
	}
	if err := read(key, rv.Elem(), over); err != nil {
		return opErrorf(err, "table %s %s", what, keyText(key))
	}
	return nil
}

// Set does t[key] = value; __newindex runs. key and value convert like
// SetGlobal values; a nil value removes the key, a nil or NaN key is an
// error.
func (t *Table) Set(key, value any) error { return t.set("set", key, value, t.handle().Set) }

// set stores value at key with write (Set or RawSet of the gate's
// table); what names the operation in errors.
func (t *Table) set(what string, key, value any, write func(any, any) error) error {
	if t == nil {
		return fmt.Errorf("zlua: table %s %s: %w", what, keyText(key), errNilHandle)
	}
	if isOpaque(key) || isOpaque(value) {
		return fmt.Errorf("zlua: table %s %s: %w", what, keyText(key), errOpaqueStored)
	}
	if err := write(key, value); err != nil {
		return opErrorf(err, "table %s %s", what, keyText(key))
	}
	return nil
}

// Len returns the length of the table as Lua 5.4's # operator computes it,
// on both backends: the __len metamethod when there is one (its result
// must be an integer), else the border of the sequence part.
func (t *Table) Len() (int, error) {
	if t == nil {
		return 0, fmt.Errorf("zlua: table len: %w", errNilHandle)
	}
	n, err := t.h.Len()
	if err != nil {
		return 0, opErrorf(err, "table len")
	}
	return n, nil
}

// ForEach calls fn for each key and value of the table, in the order of
// Lua's next (raw: neither __pairs nor __index run), and stops at the
// first error fn returns, which ForEach returns. Nested tables arrive as
// *Table handles and functions as *Function handles (fn may keep them);
// other values in their natural form, as an any parameter receives them.
//
// The pairs are read in one API call before fn runs, so fn may use the
// Env, the table included: changes made meanwhile are not seen by this
// ForEach. Coroutines arrive as *Thread handles (fn may keep them); a
// value with no Go form (a light userdata) makes ForEach fail, naming its
// key, before fn is called.
//
// Each nested table and function is a handle made before fn runs, held in
// the Lua registry until Release, or until Go collects the handle and a
// Pump frees its reference, and charged to
// Options.MemoryLimit: under a limit, a table of a million records may
// fail whole with ErrMemory. Decode such a table into a typed slice or map
// (Env.Global, Table.Get) instead.
func (t *Table) ForEach(fn func(key, value any) error) error {
	if t == nil {
		return fmt.Errorf("zlua: table foreach: %w", errNilHandle)
	}
	if fn == nil {
		return errors.New("zlua: table foreach: nil function")
	}
	kv, err := t.h.Pairs()
	if err != nil {
		return opErrorf(err, "table foreach")
	}
	for i := 0; i < len(kv); i += 2 {
		if err := fn(kv[i], kv[i+1]); err != nil {
			callbackgate.ReleaseAll(kv[i+2:]) // handles fn never saw
			return err
		}
	}
	return nil
}

// Method binds the method name of the table to *fnPtr, like
// Env.GetFunction: fnPtr points to a func variable (or a *Function), and
// calling it calls t:name(args...), the table passed as self. The method
// is looked up once, now (__index runs, so methods inherited through a
// metatable are found). It may be any value Lua can call: a function, or
// a table or userdata whose metatable has __call, which then receives the
// value, the table and the arguments, as t:name(args...) passes them; Lua
// looks __call up at each call, so a script changing it later is obeyed.
// A value Lua cannot call is the error "attempt to call a T value (method
// 'name')". The binding holds the table and the method until it is
// dropped or, for a *Function, released; pushed back into Lua, that
// *Function is the method's value.
func (t *Table) Method(name string, fnPtr any) error {
	rv, err := funcTarget(fnPtr)
	if err == nil && t == nil {
		err = errNilHandle
	}
	if err != nil {
		return opErrorf(err, "table method %q", name)
	}
	f, err := t.h.Method(name)
	if err != nil {
		return opErrorf(err, "table method %q", name)
	}
	bindFunc(t.h.Gate(), f, rv)
	return nil
}

// String names the handle for logs and fmt (and tostring of a Go value
// holding it): zlua.Table. It shows no address or reference number and
// reads no Lua state, so any goroutine may call it.
func (t *Table) String() string {
	if t == nil {
		return "zlua.Table(nil)"
	}
	return "zlua.Table"
}

// Release releases the handle now; later uses of it fail with
// ErrReleased. Idempotent. The reference is freed at the next Pump, unless
// other handles on the same table share it: a Go function given the same
// table again within one call of the script gets a handle of its own each
// time, on one reference, which is freed when the last of them is
// released (or collected).
func (t *Table) Release() {
	if t != nil {
		t.h.Release()
	}
}

// keyText spells a table key in error messages (printed: a key whose
// String method panics must not turn the error into a panic).
func keyText(key any) string {
	switch k := key.(type) {
	case string:
		return fmt.Sprintf("%q", k)
	case *Table: // a handle is named, not dumped
		return "[table handle]"
	case *Function:
		return "[function handle]"
	case *Thread:
		return "[thread handle]"
	}
	return "[" + printed(key) + "]"
}
