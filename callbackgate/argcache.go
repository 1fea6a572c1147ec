package callbackgate

import (
	"reflect"

	"github.com/zlua-go/zlua/cgo"
)

// argHandles remembers the handles the last few *Table, *Function and Go
// func parameters were given, by the Lua object's identity (cgo.Arg.ID),
// so that a script passing the same table or function again and again (an
// object table to a Go method, a callback) gets the same handle (or func
// value) instead of a new ref, a new handle and a new cleanup each call:
// the ref and the cleanup are most of a handle parameter's cost.
//
// An entry's handle holds a ref on its object, so while the entry lives
// the object cannot be collected and no other object can take its
// address: an equal ID is the same object. A released handle no longer
// holds it (its ref is queued), so a released entry never matches. The
// entries are dropped when the outermost call ends (and at Reset and
// Close): a handle nobody else keeps is then collected as before, and
// the cache keeps at most argCacheSize objects alive, only while the
// call that passed them runs.
type argHandles struct {
	ent  [argCacheSize]argEntry
	next uint8 // the entry the next miss replaces (round robin)
	used bool  // an entry was put since the last forget
}

// argCacheSize is the number of handles argHandles keeps: enough for the
// handle parameters of a few Go functions a loop calls in turn.
const argCacheSize = 8

// argEntry is one cached handle: a table's (tb), a function's (fn), or a
// Go func value calling fn (dv, of type dt), never two of them.
type argEntry struct {
	id uintptr
	tb *Table
	fn *Function
	dt reflect.Type
	dv reflect.Value
}

// ref is the registry ref the entry's handle holds.
func (e *argEntry) ref() *luaRef {
	if e.tb != nil {
		return &e.tb.luaRef
	}
	return &e.fn.luaRef
}

// find returns the entry for the object a names whose kind is the one
// asked (a table, or a function as a *Function when dt is nil, or as a
// func of type dt), if its handle is still live; a released or stale
// one is dropped.
func (c *argHandles) find(g *Gate, a *cgo.Arg, table bool, dt reflect.Type) *argEntry {
	id := a.ID()
	if id == 0 {
		return nil
	}
	for i := range c.ent {
		e := &c.ent[i]
		if e.id != id || (e.tb != nil) != table || e.dt != dt {
			continue
		}
		if r := e.ref(); r.released.load() || r.gen != g.gen {
			*e = argEntry{}
			return nil
		}
		return e
	}
	return nil
}

// cachedTable returns the live handle cached for the table a names, or
// nil.
func (c *argHandles) cachedTable(g *Gate, a *cgo.Arg) *Table {
	if e := c.find(g, a, true, nil); e != nil {
		return e.tb
	}
	return nil
}

// cachedFunction is cachedTable for a function argument.
func (c *argHandles) cachedFunction(g *Gate, a *cgo.Arg) *Function {
	if e := c.find(g, a, false, nil); e != nil {
		return e.fn
	}
	return nil
}

// cachedDelegate is cachedTable for a Go func parameter of type typ.
func (c *argHandles) cachedDelegate(g *Gate, a *cgo.Arg, typ reflect.Type) (reflect.Value, bool) {
	if e := c.find(g, a, false, typ); e != nil {
		return e.dv, true
	}
	return reflect.Value{}, false
}

// putDelegate enters dv, a Go func of type typ calling fn, for the
// object a names.
func (c *argHandles) putDelegate(a *cgo.Arg, fn *Function, typ reflect.Type, dv reflect.Value) {
	c.putEntry(argEntry{id: a.ID(), fn: fn, dt: typ, dv: dv})
}

// put enters a new handle for the object a names.
func (c *argHandles) put(a *cgo.Arg, tb *Table, fn *Function) {
	c.putEntry(argEntry{id: a.ID(), tb: tb, fn: fn})
}

// putEntry enters e, replacing the oldest entry.
func (c *argHandles) putEntry(e argEntry) {
	if e.id == 0 {
		return
	}
	c.ent[c.next] = e
	c.next = (c.next + 1) % argCacheSize
	c.used = true
}

// forget drops every entry (the outermost call's end, Reset, Close).
func (c *argHandles) forget() { *c = argHandles{} }
