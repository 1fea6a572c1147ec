package zlua

import (
	"fmt"

	"github.com/zlua-go/zlua/callbackgate"
)

// RawGet reads t[key] into out, a non-nil pointer, as Lua's rawget does:
// no __index runs, so a proxy table's own contents are read. out converts
// as in Get.
func (t *Table) RawGet(key, out any) error { return t.get("rawget", key, out, t.handle().RawGet) }

// RawSet does t[key] = value as Lua's rawset does: no __newindex runs.
// key and value convert as in Set; a nil value removes the key, a nil or
// NaN key is an error.
func (t *Table) RawSet(key, value any) error { return t.set("rawset", key, value, t.handle().RawSet) }

// RawLen returns the length of the table as Lua's rawlen does: the border
// of its sequence part, without __len. Appending is
// t.RawSet(n+1, v) with n from RawLen.
func (t *Table) RawLen() (int, error) {
	if t == nil {
		return 0, fmt.Errorf("zlua: table rawlen: %w", errNilHandle)
	}
	n, err := t.h.RawLen()
	if err != nil {
		return 0, opErrorf(err, "table rawlen")
	}
	return n, nil
}

// Metatable returns a handle on the table's metatable (to release), or
// nil when it has none. As debug.getmetatable, it is the metatable itself
// whatever its __metatable field says: the host sees what scripts cannot.
func (t *Table) Metatable() (*Table, error) {
	if t == nil {
		return nil, fmt.Errorf("zlua: table metatable: %w", errNilHandle)
	}
	mt, err := t.h.Metatable()
	if err != nil {
		return nil, opErrorf(err, "table metatable")
	}
	if mt == nil {
		return nil, nil
	}
	return pubTable(mt), nil
}

// SetMetatable sets the table's metatable to mt, a table of the same Env,
// or removes it when mt is nil. As debug.setmetatable, a __metatable
// field does not protect the old one, and a __gc field is honoured (on
// Lua 5.4) even in a LibsSafe Env: the host decides what scripts may not.
func (t *Table) SetMetatable(mt *Table) error {
	if t == nil {
		return fmt.Errorf("zlua: table setmetatable: %w", errNilHandle)
	}
	var h *callbackgate.Table
	if mt != nil {
		h = &mt.h
	}
	if err := t.h.SetMetatable(h); err != nil {
		return opErrorf(err, "table setmetatable")
	}
	return nil
}
