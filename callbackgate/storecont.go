package callbackgate

import (
	"reflect"
	"unsafe"
	"weak"

	"github.com/zlua-go/zlua/cgo"
)

// What a script's element writes cost the limit beyond what each write
// built: the growth of the container and the small values in it.
//
// An element write charges what its conversion built only from storeMin
// bytes on (storeelems.go): a weak pointer costs more than a small value.
// But a container takes any number of small ones: 20 million integers
// appended to a ByRef(&s), 3 million entries in a map[int]int, a million
// strings of 255 bytes, held 72–297 MB under a 16 MiB limit (probe V F1).
// So under a limit a container a script writes into has one charge of its
// own (contRec), with a weak pointer to the container:
//
//   - a map: its growth past the length it had when the script first
//     wrote into it (the host's entries stay the host's), at an estimate
//     of the bytes per entry (mapUnit), plus the small keys and values the
//     script stored (smallOf), net of those it overwrote or deleted;
//   - a slice: once an append of the script moved it (the array it made is
//     Go's own heap memory, which a weak pointer may name: a host's array
//     may be static, or not Go's), its length times its element size, plus
//     the small values stored, net; appends within the host's capacity
//     stay the host's.
//
// The charge is given back when Go collects the container (storeScan).
// Estimates, not exact sizes: a map's buckets, a slice's spare capacity
// are not counted.

// contRec is the charge of one container.
type contRec struct {
	w     weak.Pointer[byte]
	base  int64 // the container's length times its unit when first written (maps)
	small int64 // the small values stored in it, net
	bytes int64 // charged
}

// contUnit is the bytes a map's entry or a slice's element is counted.
func contUnit(t reflect.Type) int64 {
	if t.Kind() == reflect.Map {
		// a swiss map's slot holds the key and the value, with a control
		// byte; groups are at most 7/8 full
		return (int64(t.Key().Size()+t.Elem().Size()) + 1) * 8 / 7
	}
	return int64(t.Elem().Size())
}

// smallOfDepth bounds smallOf's walk.
const smallOfDepth = 4

// smallOf is the bytes v references (strings, slices' arrays, maps'
// entries, through interfaces and struct fields; pointers count nothing:
// an object's note or store charge covers it), at most storeMin-1: more
// is charged on its own (a store's charge), give or take an estimate's
// error. A function of v alone, so a value stored and later overwritten
// or deleted gives back what it added.
func smallOf(v reflect.Value) int64 {
	return min(smallWalk(v, smallOfDepth), storeMin-1)
}

func smallWalk(v reflect.Value, depth int) int64 {
	if depth == 0 {
		return 0
	}
	var n int64
	switch v.Kind() {
	case reflect.String:
		n = int64(v.Len())
	case reflect.Interface:
		if !v.IsNil() {
			n = smallWalk(v.Elem(), depth)
		}
	case reflect.Slice:
		if v.IsNil() {
			return 0
		}
		n = int64(v.Cap()) * int64(v.Type().Elem().Size())
		for i := 0; i < v.Len() && n < storeMin; i++ {
			n += smallWalk(v.Index(i), depth-1)
		}
	case reflect.Map:
		if v.IsNil() {
			return 0
		}
		n = 48 + int64(max(v.Len(), 8))*contUnit(v.Type())
		for it := v.MapRange(); it.Next() && n < storeMin; {
			n += smallWalk(it.Key(), depth-1) + smallWalk(it.Value(), depth-1)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField() && n < storeMin; i++ {
			n += smallWalk(v.Field(i), depth-1)
		}
	case reflect.Array:
		for i := 0; i < v.Len() && n < storeMin; i++ {
			n += smallWalk(v.Index(i), depth-1)
		}
	}
	return n
}

// contCharge charges c, before a write into its container, the change
// the write makes: the container's length times unit becomes length, its
// small values change by dSmall. It returns the bytes charged, for
// contUndo if the write is refused after all.
func (g *Gate) contCharge(t cgo.Thread, c *contRec, length, unit, dSmall int64) (int64, error) {
	small := max(c.small+dSmall, 0)
	d := max(length*unit-c.base, 0) + small - c.bytes
	if err := g.storeRoom(t, d); err != nil {
		return 0, err
	}
	c.small = small
	c.bytes += d
	g.stores.charged += d
	return d, nil
}

// contUndo gives back what contCharge charged c (d) for a write refused
// after all.
func (g *Gate) contUndo(c *contRec, d, dSmall int64) {
	if c == nil || d == 0 && dSmall == 0 {
		return
	}
	c.small = max(c.small-dSmall, 0)
	c.bytes -= d
	g.stores.charged -= d
	g.S.StoreCharge(-d)
}

// contOfMap returns the record of map m (not nil), made at the first
// write with the length the map had: its entries are the host's.
func (g *Gate) contOfMap(m reflect.Value) *contRec {
	st := &g.stores
	p := m.UnsafePointer()
	if c := st.byCont[uintptr(p)]; c != nil {
		return c
	}
	c := &contRec{w: weak.Make((*byte)(p)), base: int64(m.Len()) * contUnit(m.Type())}
	g.contPut(p, c)
	return c
}

// contPut keeps c as the record of the container at p (a map, an array
// the script's append made), giving back a stale record found there
// (memory Go collected and reused).
func (g *Gate) contPut(p unsafe.Pointer, c *contRec) {
	st := &g.stores
	if st.byCont == nil {
		st.byCont = make(map[uintptr]*contRec)
	}
	if old := st.byCont[uintptr(p)]; old != nil && old != c {
		st.charged -= old.bytes
		g.S.StoreCharge(-old.bytes)
	}
	c.w = weak.Make((*byte)(p))
	st.byCont[uintptr(p)] = c
}

// contScan gives back the charges of containers Go collected (storeScan);
// it returns their bytes.
func (g *Gate) contScan() int64 {
	var back int64
	for p, c := range g.stores.byCont {
		if c.w.Value() == nil {
			back += c.bytes
			g.stores.charged -= c.bytes
			delete(g.stores.byCont, p)
		}
	}
	return back
}
