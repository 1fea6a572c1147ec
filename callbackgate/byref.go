package callbackgate

import (
	"fmt"
	"math"
	"reflect"
	"strconv"

	"github.com/zlua-go/zlua/cgo"
)

// Maps and slices pushed by reference (Ref, or a pointer to a map or a
// slice) are indexed like tables: a map by its key type, a slice by
// 1-based integers. An index past the end reads nil, as in a table, so
// ipairs and `while t[i]` loops stop there; so does any key but an
// integral number (s["1"] is not s[1], as in a table), which writing
// refuses. Only a slice reached through
// a pointer (ByRef(&s), a struct field tagged lua:",ref") can grow:
// assigning index #s+1 appends through the pointer. A map reads nil for a
// key it cannot hold, as a table reads nil for a key it does not have:
// one of another Lua type than the Go key's kind (m["1"] of a map[int],
// m[1] of a map[string]), one that does not convert (m[1.5] of a
// map[int]), one whose Go value cannot be a map key, a function or
// coroutine, nil, NaN (mapKey); writing such a key is an error. pairs
// raises at a key a Lua table cannot hold (nil, NaN: a host's map may
// have one), where a nil would end the loop without a word.
//
// A struct element of a slice is a place with an address: it reads as a
// view of it (elemView), as an object's struct field does, so s[i].X = 1
// writes the element. A struct element of a map (or a struct held in an
// interface element) has no address: it reads as a copy marked NoAddr,
// whose fields refuse writes that no Go value would see.

// elemsOf returns the map or slice a container binding's object holds
// (through its pointer when it is one).
func elemsOf(ov reflect.Value) reflect.Value {
	if ov.Kind() == reflect.Pointer {
		return ov.Elem()
	}
	return ov
}

func (g *Gate) elemGet(fr cgo.Frame, b *binding, ov reflect.Value, key *cgo.Arg) int32 {
	var ev reflect.Value
	holder := ov
	if ov = elemsOf(ov); ov.Kind() == reflect.Map {
		if st, ok := g.mapGetFast(fr, ov, key); ok { // byref_fast.go
			return st
		}
		k, ok := g.mapKeyRead(fr, ov.Type().Key())
		if !ok {
			fr.ReturnNil() // a key the map cannot hold, as a table lacks it
			return cgo.StatusReturn1
		}
		if ev = ov.MapIndex(k); !ev.IsValid() {
			fr.ReturnNil()
			return cgo.StatusReturn1
		}
	} else {
		// Only a number that is an integer can be an index: another key
		// (t["1"], t[1.5]) reads nil, as in a table that lacks it.
		if key.Type != int32(cgo.TNumber) {
			fr.ReturnNil()
			return cgo.StatusReturn1
		}
		n, err := g.readInt(fr.Thread(), 2, key)
		if err != nil || n < 1 || n > int64(ov.Len()) {
			fr.ReturnNil() // past the end, as a table reads
			return cgo.StatusReturn1
		}
		ev = ov.Index(int(n - 1))
	}
	g.S.ProgReset()
	if err := g.pushElem(ev, holder); err != nil {
		return g.raiseText(fmt.Sprintf("element of %s: %v", b.name, err), err)
	}
	return g.commitReturn()
}

// pushElem appends a push of ev, an element of the map or slice the
// container object holder holds or points to: a struct element with an
// address (a slice's) as a view of it, one without (a map's, or a struct
// held in an interface) as a copy marked NoAddr, anything else as usual.
func (g *Gate) pushElem(ev, holder reflect.Value) error {
	if ev.Kind() == reflect.Struct && ev.CanAddr() && plainStruct(ev.Type()) {
		// the element itself, as p := &s[i] in Go: the view keeps the
		// backing array it was read from (an append that moves the
		// slice leaves the view on the old element)
		return g.pushObjIn(ev.Addr(), nil, holder)
	}
	sv := ev
	if sv.Kind() == reflect.Interface && !sv.IsNil() {
		sv = sv.Elem()
	}
	if err := g.pushValue(ev, "", 0); err != nil {
		return err
	}
	if sv.Kind() == reflect.Struct && plainStruct(sv.Type()) {
		g.S.PutNoAddr()
	}
	return nil
}

// plainStruct reports whether a value of struct type t is pushed as a
// ByVal copy: not one of the gate's wrappers (ByRef, views, AsTable) or an
// opaque handle.
func plainStruct(t reflect.Type) bool {
	switch t {
	case viewedType, refType, plainType:
		return false
	}
	return !t.Implements(opaqueArgType)
}

// mapKeyArg reads argument 2 of __newindex as a key of type kt, or
// raises "bad key" saying why the map cannot hold it (mapKey); ok is
// false with the raise's status st.
func (g *Gate) mapKeyArg(fr cgo.Frame, b *binding, kt reflect.Type) (k reflect.Value, st int32, ok bool) {
	k, why := g.mapKey(fr, kt)
	if why != "" {
		return k, g.raiseText(fmt.Sprintf("bad key for %s (%s)", b.name, why), nil), false
	}
	return k, 0, true
}

// mapKeyRead reads argument 2 of __index as a key of type kt; ok is false
// for a key such a map cannot hold (see the comment at the top).
func (g *Gate) mapKeyRead(fr cgo.Frame, kt reflect.Type) (k reflect.Value, ok bool) {
	k, why := g.mapKey(fr, kt)
	return k, why == ""
}

// mapKey reads argument 2 of __index or __newindex as a key of type kt,
// or says why a Go map cannot hold it as a Lua table holds it: a Lua type
// other than the key kind's; a function or coroutine (each one reaching
// Go is a new handle, a key no later read finds); a value that does not
// convert; one whose Go value is not comparable (a table becomes a Go map
// or slice); nil and NaN (Lua's "table index is nil", "is NaN"). An integral float reaching
// an interface key is an int64, as a Lua table normalises 1.0 to 1.
func (g *Gate) mapKey(fr cgo.Frame, kt reflect.Type) (k reflect.Value, why string) {
	a := arg(fr, 1)
	k = reflect.New(kt).Elem()
	if a.Type == int32(cgo.TNil) {
		// Lua's words for a table; a nil pointer or interface key a Go
		// map could hold is one no Lua key names, and pairs refuses it
		return k, "table index is nil"
	}
	if want, typ := keyLuaType(kt); want != "" && a.Type != typ {
		return k, want + " expected, got " + g.typeName(fr.Thread(), 2, &a)
	}
	if kt.Kind() == reflect.Interface && (a.Type == int32(cgo.TFunction) || a.Type == int32(cgo.TThread)) {
		return k, "a " + g.typeName(fr.Thread(), 2, &a) + " key cannot be a Go map key"
	}
	if err := g.readArg(fr, 1, k); err != nil {
		return k, err.Error()
	}
	if !k.Comparable() {
		return k, "a " + g.typeName(fr.Thread(), 2, &a) + " key cannot be a Go map key"
	}
	v := k
	if v.Kind() == reflect.Interface {
		v = v.Elem()
	}
	if hasNaN(v, 4) {
		// a NaN anywhere in the key (a struct's field, an array's
		// element) is a key no write or delete finds again
		return k, "table index is NaN"
	}
	if k.Kind() == reflect.Interface && v.Kind() == reflect.Float64 {
		if f := v.Float(); f == math.Trunc(f) && f >= -(1<<63) && f < 1<<63 {
			k.Set(reflect.ValueOf(int64(f)))
		}
	}
	return k, ""
}

// hasNaN reports whether v, a map key, is or holds (through struct
// fields, array elements and interfaces, depth levels deep) a NaN.
func hasNaN(v reflect.Value, depth int) bool {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		return v.Float() != v.Float()
	case reflect.Complex64, reflect.Complex128:
		c := v.Complex()
		return real(c) != real(c) || imag(c) != imag(c)
	case reflect.Interface:
		return !v.IsNil() && depth > 0 && hasNaN(v.Elem(), depth-1)
	case reflect.Struct:
		for i := 0; depth > 0 && i < v.NumField(); i++ {
			if hasNaN(v.Field(i), depth-1) {
				return true
			}
		}
	case reflect.Array:
		for i := 0; depth > 0 && i < v.Len(); i++ {
			if hasNaN(v.Index(i), depth-1) {
				return true
			}
		}
	}
	return false
}

// keyLuaType is the Lua type a map key of type kt must have, by name and
// number: number, string or boolean for those kinds; "" for any other
// key type (interfaces, structs: the conversion decides).
func keyLuaType(kt reflect.Type) (string, int32) {
	switch kt.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return "number", int32(cgo.TNumber)
	case reflect.String:
		return "string", int32(cgo.TString)
	case reflect.Bool:
		return "boolean", int32(cgo.TBoolean)
	}
	return "", 0
}

func (g *Gate) elemSet(fr cgo.Frame, b *binding, ov reflect.Value, key *cgo.Arg) int32 {
	holder := ov
	if ov = elemsOf(ov); ov.Kind() == reflect.Map {
		if st, ok := g.mapSetFast(fr, ov, key); ok { // byref_fast.go
			return st
		}
		limited := g.S.MemoryLimit() != 0
		if limited { // what the key's conversion builds (storeelems.go)
			g.forgetStoreBuilt()
			g.stores.tracking = true
		}
		k, st, ok := g.mapKeyArg(fr, b, ov.Type().Key())
		var krec *storeRec
		if limited {
			g.stores.tracking = false
			if ok {
				krec = g.keyRec(k)
			}
			g.forgetStoreBuilt()
		}
		if !ok {
			return st
		}
		if a := arg(fr, 2); a.Type == int32(cgo.TNil) {
			if !ov.IsNil() {
				g.dropEntry(fr.Thread(), ov, k)
				ov.SetMapIndex(k, reflect.Value{}) // t[k] = nil deletes, as in Lua
			}
			return g.ret0()
		}
		if limited { // charged (storeelems.go)
			if err := g.storeEntry(fr, ov, k, krec); err != nil {
				return g.elemStoreErr(b, err)
			}
			return g.ret0()
		}
		ev := reflect.New(ov.Type().Elem()).Elem()
		if err := g.readArg(fr, 2, ev); err != nil {
			return g.elemStoreErr(b, err)
		}
		if ov.IsNil() { // a nil map field reached through its pointer
			ov.Set(reflect.MakeMap(ov.Type()))
		}
		ov.SetMapIndex(k, ev)
		return g.ret0()
	}
	if key.Type != int32(cgo.TNumber) { // no string-to-number conversion: s["1"] is not s[1]
		return g.raiseText(fmt.Sprintf("bad index for %s (number expected, got %s)", b.name, g.typeName(fr.Thread(), 2, key)), nil)
	}
	n, err := g.readInt(fr.Thread(), 2, key)
	if err != nil {
		return g.raiseText(fmt.Sprintf("bad index for %s (%v)", b.name, err), nil)
	}
	grow := holder.Kind() == reflect.Pointer
	if n == int64(ov.Len())+1 && grow {
		if g.S.MemoryLimit() != 0 { // charged (storeelems.go)
			err = g.storeAppend(fr, ov)
		} else {
			ev := reflect.New(ov.Type().Elem()).Elem()
			if err = g.readArg(fr, 2, ev); err == nil {
				ov.Set(reflect.Append(ov, ev))
			}
		}
		if err != nil {
			return g.elemStoreErr(b, err)
		}
		return g.ret0()
	}
	if n < 1 || n > int64(ov.Len()) {
		msg := "index " + strconv.FormatInt(n, 10) + " out of range for " + b.name +
			" of length " + strconv.Itoa(ov.Len())
		if !grow && n == int64(ov.Len())+1 {
			msg += " (a slice pushed with ByRef(s) cannot grow; push ByRef(&s), or tag a struct field lua:\",ref\", to append)"
		}
		return g.raiseText(msg, nil)
	}
	// a slice element is a place with an address, charged as a field
	if g.chargesElems(ov.Type().Elem()) {
		err = g.storeElem(fr, ov, int(n-1))
	} else {
		err = g.readAssign(fr, 2, ov.Index(int(n-1)))
	}
	if err != nil {
		return g.elemStoreErr(b, err)
	}
	return g.ret0()
}

// objLen is __len of maps and slices pushed by reference.
func objLen(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
	b := e.fn.(*binding)
	s, st := g.self(fr, b)
	if s == nil {
		return st
	}
	return retInt(fr, int64(elemsOf(reflect.ValueOf(g.objs.Val(s))).Len()))
}

// elemIter is the state of one pairs() loop over a map or slice pushed by
// reference. A slice is read at each step (elements appended meanwhile are
// visited); a map goes through reflect.MapIter, with Go's rules for maps
// changed while ranging (deleted entries not reached are not produced,
// added ones may be).
type elemIter struct {
	b  *binding
	ov reflect.Value // the object: a map, a slice, or a pointer to one
	it *reflect.MapIter
	i  int
}

// objPairs is __pairs of maps and slices pushed by reference: it returns
// a new Go iterator function (stateful: the loop's other values are nil).
func objPairs(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
	b := e.fn.(*binding)
	s, st := g.self(fr, b)
	if s == nil {
		return st
	}
	it := &elemIter{b: b, ov: reflect.ValueOf(g.objs.Val(s))}
	if m := elemsOf(it.ov); m.Kind() == reflect.Map {
		it.it = m.MapRange()
	}
	id, err := g.registerEntry(funcEntry{name: b.name + " iterator", fn: it, call: iterNext})
	if err != nil {
		return g.raiseText(fmt.Sprintf("pairs of %s: %v", b.name, err), err)
	}
	g.S.ProgReset()
	g.S.PutGoFunc(id)
	return g.commitReturn()
}

// iterNext is one step of an elemIter: the next key and value, or nil.
func iterNext(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
	it := e.fn.(*elemIter)
	var k, v reflect.Value
	if it.it != nil {
		if !it.it.Next() {
			fr.ReturnNil()
			return cgo.StatusReturn1
		}
		k, v = it.it.Key(), it.it.Value()
		if err := luaKeyError(k); err != nil {
			// a nil key would end the loop as if the map had no more
			// entries, a NaN one is a key no read finds: the copy's
			// refusal (pushMap)
			return g.raiseText(fmt.Sprintf("element of %s: %v", it.b.name, err), nil)
		}
	} else {
		sl := elemsOf(it.ov)
		if it.i >= sl.Len() {
			fr.ReturnNil()
			return cgo.StatusReturn1
		}
		it.i++
		k, v = reflect.ValueOf(it.i), sl.Index(it.i-1)
	}
	g.S.ProgReset()
	err := g.pushValue(k, "", 0)
	if err == nil {
		err = g.pushElem(v, it.ov)
	}
	if err != nil {
		return g.raiseText(fmt.Sprintf("element of %s: %v", it.b.name, err), err)
	}
	return g.commitReturn()
}
