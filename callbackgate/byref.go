package callbackgate

import (
	"fmt"
	"reflect"
	"strconv"

	"github.com/zlua-go/zlua/cgo"
)

// Maps and slices pushed by reference (Ref) are indexed like tables: a map
// by its key type, a slice by 1-based integers up to its length.

func (g *Gate) elemGet(fr cgo.Frame, b *binding, ov reflect.Value, key *cgo.Arg) int32 {
	var ev reflect.Value
	if ov.Kind() == reflect.Map {
		k := reflect.New(b.typ.Key()).Elem()
		if err := g.readArg(fr, 1, k); err != nil {
			return g.raiseText(fmt.Sprintf("bad key for %s (%v)", b.name, err), nil)
		}
		if ev = ov.MapIndex(k); !ev.IsValid() {
			g.S.ProgReset()
			g.S.PutNil()
			return g.commitReturn()
		}
	} else {
		i, st := g.sliceIndex(fr, b, ov, key)
		if i < 0 {
			return st
		}
		ev = ov.Index(i)
	}
	g.S.ProgReset()
	if err := g.pushValue(ev, "", 0); err != nil {
		return g.raiseText(fmt.Sprintf("element of %s: %v", b.name, err), err)
	}
	return g.commitReturn()
}

func (g *Gate) elemSet(fr cgo.Frame, b *binding, ov reflect.Value, key *cgo.Arg) int32 {
	if ov.Kind() == reflect.Map {
		k := reflect.New(b.typ.Key()).Elem()
		if err := g.readArg(fr, 1, k); err != nil {
			return g.raiseText(fmt.Sprintf("bad key for %s (%v)", b.name, err), nil)
		}
		if a := arg(fr, 2); a.Type == int32(cgo.TNil) {
			ov.SetMapIndex(k, reflect.Value{}) // t[k] = nil deletes, as in Lua
			return g.ret0()
		}
		ev := reflect.New(b.typ.Elem()).Elem()
		if err := g.readArg(fr, 2, ev); err != nil {
			return g.raiseText(fmt.Sprintf("bad value for %s (%v)", b.name, err), nil)
		}
		ov.SetMapIndex(k, ev)
		return g.ret0()
	}
	i, st := g.sliceIndex(fr, b, ov, key)
	if i < 0 {
		return st
	}
	if err := g.readArg(fr, 2, ov.Index(i)); err != nil {
		return g.raiseText(fmt.Sprintf("bad value for %s (%v)", b.name, err), nil)
	}
	return g.ret0()
}

// sliceIndex converts a 1-based Lua index into a 0-based one, or raises.
func (g *Gate) sliceIndex(fr cgo.Frame, b *binding, ov reflect.Value, key *cgo.Arg) (int, int32) {
	n, err := g.readInt(fr.Thread(), 2, key)
	if err != nil {
		return -1, g.raiseText(fmt.Sprintf("bad index for %s (%v)", b.name, err), nil)
	}
	if n < 1 || n > int64(ov.Len()) {
		return -1, g.raiseText("index "+strconv.FormatInt(n, 10)+" out of range for "+b.name+
			" of length "+strconv.Itoa(ov.Len()), nil)
	}
	return int(n - 1), 0
}

// objLen is __len of maps and slices pushed by reference.
func objLen(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
	b := e.fn.(*binding)
	s, st := g.self(fr, b)
	if s == nil {
		return st
	}
	return retInt(fr, int64(reflect.ValueOf(s.Val).Len()))
}
