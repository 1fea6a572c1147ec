package callbackgate

import (
	"reflect"

	"github.com/zlua-go/zlua/cgo"
)

// argHandles remembers the refs made for the last few *Table, *Function
// and Go func parameters, by the Lua object's identity (cgo.Arg.ID), so
// that a script passing the same table or function again and again (an
// object table to a Go method, a callback) costs no new ref and no new
// cleanup each call: those are most of a handle parameter's cost.
//
// Each read still gets a handle of its own, released on its own: the
// handles share the entry's ref (sharedRef), which lives while any of
// them is unreleased or the entry is cached. Two handles for one table
// never interfere: a Go function keeping its handle and another releasing
// its own (defer t.Release()), a nested call's handle and its caller's,
// an argument's and a Go-side read's (outside probe G1). A Go func
// parameter gets the same func value again: a func cannot be released.
//
// An entry holds a ref on its object, so while the entry lives the object
// cannot be collected and no other object can take its address: an equal
// ID is the same object. The entries are dropped when the outermost call
// ends (and at Reset and Close): the cache keeps at most argCacheSize
// objects alive, only while the call that passed them runs.
type argHandles struct {
	ent  [argCacheSize]argEntry
	next uint8 // the entry the next miss replaces (round robin)
	used bool  // an entry was put since the last forget
}

// argCacheSize is the number of refs argHandles keeps: enough for the
// handle parameters of a few Go functions a loop calls in turn.
const argCacheSize = 8

// argEntry is one cached ref: a table's or a function's (rec, shared by
// the handles made from it), or a Go func value calling fn (dv, of type
// dt).
type argEntry struct {
	id    uintptr
	gen   uint64 // the gate generation of the ref
	rec   *sharedRef
	table bool // rec is a table's
	fn    *Function
	dt    reflect.Type
	dv    reflect.Value
}

// find returns the entry for the object a names whose kind is the one
// asked (a table, or a function as a *Function when dt is nil, or as a
// func of type dt), if it is of this gate generation.
func (c *argHandles) find(g *Gate, a *cgo.Arg, table bool, dt reflect.Type) *argEntry {
	id := a.ID()
	if id == 0 {
		return nil
	}
	for i := range c.ent {
		e := &c.ent[i]
		if e.id != id || e.table != table || e.dt != dt || (e.rec == nil && e.fn == nil) {
			continue
		}
		if e.gen != g.gen {
			c.drop(e)
			return nil
		}
		return e
	}
	return nil
}

// table returns a new handle on the table a names if its ref is cached,
// or nil.
func (c *argHandles) table(g *Gate, a *cgo.Arg) *Table {
	if e := c.find(g, a, true, nil); e != nil {
		tb := &Table{}
		shareRef(&tb.luaRef, g, e.rec)
		return tb
	}
	return nil
}

// function is table for a function argument.
func (c *argHandles) function(g *Gate, a *cgo.Arg) *Function {
	if e := c.find(g, a, false, nil); e != nil {
		return sharedFunction(g, e.rec)
	}
	return nil
}

// sharedFunction returns a new handle on rec's function.
func sharedFunction(g *Gate, rec *sharedRef) *Function {
	f := &Function{name: "function"}
	shareRef(&f.luaRef, g, rec)
	return f
}

// cachedDelegate returns the func of type typ made lately for the
// function a names.
func (c *argHandles) cachedDelegate(g *Gate, a *cgo.Arg, typ reflect.Type) (reflect.Value, bool) {
	if e := c.find(g, a, false, typ); e != nil {
		return e.dv, true
	}
	return reflect.Value{}, false
}

// putDelegate enters dv, a Go func of type typ calling fn, for the
// object a names.
func (c *argHandles) putDelegate(g *Gate, a *cgo.Arg, fn *Function, typ reflect.Type, dv reflect.Value) {
	c.putEntry(argEntry{id: a.ID(), gen: g.gen, fn: fn, dt: typ, dv: dv})
}

// putRef enters ref, just made for the object a names (a table's when
// table; a.ID() is not 0), and returns its sharedRef.
func (c *argHandles) putRef(g *Gate, a *cgo.Arg, ref int32, table bool) *sharedRef {
	rec := newSharedRef(g, ref)
	c.putEntry(argEntry{id: a.ID(), gen: g.gen, rec: rec, table: table})
	return rec
}

// putEntry enters e, replacing the oldest entry (nothing when e names no
// object).
func (c *argHandles) putEntry(e argEntry) {
	if e.id == 0 {
		return
	}
	c.drop(&c.ent[c.next])
	c.ent[c.next] = e
	c.next = (c.next + 1) % argCacheSize
	c.used = true
}

// drop empties e, letting go of the cache's share of its ref.
func (c *argHandles) drop(e *argEntry) {
	if e.rec != nil {
		e.rec.leave()
	}
	*e = argEntry{}
}

// forget drops every entry (the outermost call's end, Reset, Close).
func (c *argHandles) forget() {
	for i := range c.ent {
		c.drop(&c.ent[i])
	}
	c.next, c.used = 0, false
}
