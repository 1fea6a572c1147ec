package callbackgate

import (
	"reflect"

	"github.com/zlua-go/zlua/cgo"
)

// RawGet reads rawget(tb, key) into out, converted like a Go function
// argument: no __index runs.
func (tb *Table) RawGet(key any, out reflect.Value, over bool) error {
	return tb.get(nil, key, out, cgo.OpRawIndex, over)
}

// RawSet does rawset(tb, key, value): no __newindex runs. A nil or NaN
// key is refused as Lua refuses it.
func (tb *Table) RawSet(key, value any) error { return tb.set(nil, key, value, cgo.OpRawNewIndex) }

// RawLen returns the raw length of tb (the border of its sequence part;
// no __len runs).
func (tb *Table) RawLen() (n int, err error) {
	err = tb.call(func(g *Gate, t cgo.Thread) error {
		g.S.ProgReset()
		g.S.PutRef(tb.ref)
		if err := g.run(t, cgo.OpRawLen, 1); err != nil {
			return err
		}
		n = int(t.ToInteger(t.Top()))
		return nil
	})
	return n, err
}

// Metatable returns a handle on tb's metatable, or nil when it has none.
// The metatable itself, whatever its __metatable field says.
func (tb *Table) Metatable() (mt *Table, err error) {
	err = tb.call(func(g *Gate, t cgo.Thread) error {
		g.S.ProgReset()
		g.S.PutRef(tb.ref)
		if err := g.run(t, cgo.OpGetMeta, 1); err != nil {
			return err
		}
		if t.Type(t.Top()) != int(cgo.TTable) {
			return nil
		}
		mt, err = g.NewTableRef(t, t.Top())
		return err
	})
	return mt, err
}

// SetMetatable sets tb's metatable to mt (nil removes it), as
// debug.setmetatable does: a __metatable field does not protect it.
func (tb *Table) SetMetatable(mt *Table) error {
	return tb.call(func(g *Gate, t cgo.Thread) error {
		g.S.ProgReset()
		g.S.PutRef(tb.ref)
		if mt == nil {
			g.S.PutNil()
		} else if err := mt.put(g, "table"); err != nil {
			return err
		}
		return g.run(t, cgo.OpSetMeta, 0)
	})
}

// PreloadTable returns a handle on the table require's preload searcher
// reads (cgo.OpPreload), or nil when the state has none (no package
// library, or a script replaced it with a value that is not a table).
func (g *Gate) PreloadTable(t cgo.Thread) (*Table, error) {
	g.S.ProgReset()
	if err := g.run(t, cgo.OpPreload, 1); err != nil {
		return nil, err
	}
	if t.Type(t.Top()) != int(cgo.TTable) {
		return nil, nil
	}
	return g.NewTableRef(t, t.Top())
}
