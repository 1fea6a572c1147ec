package callbackgate

import "reflect"

// Plain is a value pushed as plain Lua data (zlua.AsTable): every struct
// in it with Lua-visible fields becomes a new table of its fields instead
// of a userdata.
type Plain struct{ V any }

var plainType = reflect.TypeFor[Plain]()

// pushPlain appends a push of v as plain data: structs (through pointers
// and interfaces too) become tables keyed by their Lua field names
// (promoted fields flattened, lua:"-" omitted), slices and arrays
// sequences, maps tables, all of their elements plain as well. Pointers are
// followed, except to structs without Lua-visible fields, which keep their
// usual form (a ByObj userdata), as do functions, channels and the
// gate's wrappers. Map keys are pushed as usual.
func (g *Gate) pushPlain(v reflect.Value, name string, depth int) error {
	s := g.S
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			s.PutNil()
			return nil
		}
		return g.pushPlain(v.Elem(), name, depth)
	case reflect.Pointer:
		if v.IsNil() {
			s.PutNil()
			return nil
		}
		e := v.Type().Elem()
		switch e.Kind() {
		case reflect.Struct:
			if g.planFor(e) == nil {
				return g.pushValue(v, name, depth)
			}
		case reflect.Pointer, reflect.Interface: // can cycle without a table in between
			if depth >= MaxDepth {
				return errTooDeep
			}
			depth++
		}
		return g.pushPlain(v.Elem(), name, depth)
	case reflect.Struct:
		p := g.planFor(v.Type())
		if p == nil {
			return g.pushValue(v, name, depth)
		}
		if depth >= MaxDepth {
			return errTooDeep
		}
		s.PutNewTable(0, len(p.fields))
		for _, f := range p.fields {
			if f.embedded {
				continue
			}
			fv, err := v.FieldByIndexErr(f.index)
			if err != nil { // promoted through a nil embedded pointer: absent
				continue
			}
			s.PutStr(f.name)
			if err := g.pushPlain(fv, f.name, depth+1); err != nil {
				return mapPushError(reflect.ValueOf(f.name), err)
			}
			s.PutRawSet()
		}
		return nil
	case reflect.Slice:
		if v.IsNil() || v.Type().Elem().Kind() == reflect.Uint8 {
			return g.pushValue(v, name, depth)
		}
		return g.pushPlainSeq(v, name, depth)
	case reflect.Array:
		return g.pushPlainSeq(v, name, depth)
	case reflect.Map:
		return g.pushMap(v, name, depth, g.pushPlain)
	}
	return g.pushValue(v, name, depth)
}

func (g *Gate) pushPlainSeq(v reflect.Value, name string, depth int) error {
	if depth >= MaxDepth {
		return errTooDeep
	}
	n := v.Len()
	g.S.PutNewTable(n, 0)
	for i := 0; i < n; i++ {
		g.S.PutInt(int64(i + 1))
		if err := g.pushPlain(v.Index(i), name, depth+1); err != nil {
			return seqPushError(i, err)
		}
		g.S.PutRawSet()
	}
	return nil
}
