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
// Plus the record's own cost (contRecBytes). What the host did between
// the script's writes is the host's: entries it added since the last
// write join the base, and the small values count at most 255 bytes per
// element the container has now (a host's clear or truncation, unseen,
// would otherwise leave them counted: probe V2 F5, F6). Small values
// are walked 16 levels deep, through pointers (an object's size) and
// interfaces (a boxed value's size): probe V2 F1, F3.
//
// The charge is given back when Go collects the container (storeScan).
// Estimates, not exact sizes: a map's buckets, a slice's spare capacity
// are not counted. Small values written into an array the host made (a
// fixed ByRef(s), appends within its capacity) are not charged: a weak
// pointer may not name a host's array, which may not be Go's memory.

// contRec is the charge of one container.
type contRec struct {
	w       weak.Pointer[byte]
	base    int64 // the host's part of the container's length times its unit (maps)
	lastLen int64 // the container's length after the script's last write
	small   int64 // the small values stored in it, net
	bytes   int64 // charged
}

// contRecBytes is what a record itself costs (the record, its weak
// handle, its entry in byCont), charged with it: a script making many
// tiny containers holds that much per container (probe V2 F4).
const contRecBytes = 128

// contUnit is the bytes a map's entry or a slice's element is counted.
func contUnit(t reflect.Type) int64 {
	if t.Kind() == reflect.Map {
		// a swiss map's slot holds the key and the value, with a control
		// byte; groups are at most 7/8 full
		return (int64(t.Key().Size()+t.Elem().Size()) + 1) * 8 / 7
	}
	return int64(t.Elem().Size())
}

// smallOfDepth bounds smallOf's walk (which also stops at storeMin).
const smallOfDepth = 16

// smallOf is the bytes v references (strings, slices' arrays, maps'
// entries, through interfaces and struct fields; pointers count nothing:
// an object's note or store charge covers it), at most storeMin-1: more
// is charged on its own (a store's charge), give or take an estimate's
// error. A function of v alone, so a value stored and later overwritten
// or deleted gives back what it added.
func smallOf(v reflect.Value) int64 {
	return min(smallWalk(v, smallOfDepth, storeMin), storeMin-1)
}

// estimateOf is the bytes v references by smallOf's walk, counted up to
// 64 KiB (a walk of a few thousand values at most): a value whose conversion counted less than storeMin may still
// hold more (nested maps, whose headers and groups the conversion's
// count leaves out: probe V2 F3), and is then charged as a big one.
func estimateOf(v reflect.Value) int64 {
	return smallWalk(v, smallOfDepth, 64<<10)
}

// smallWalk is the walk of smallOf, down depth levels, stopping once it
// counted stop bytes.
func smallWalk(v reflect.Value, depth int, stop int64) int64 {
	if depth == 0 {
		return 0
	}
	var n int64
	switch v.Kind() {
	case reflect.String:
		n = int64(v.Len())
	case reflect.Interface:
		if !v.IsNil() {
			e := v.Elem()
			n = smallWalk(e, depth-1, stop)
			switch e.Kind() {
			case reflect.Pointer, reflect.Map, reflect.Chan, reflect.Func, reflect.UnsafePointer:
			default: // boxed (probe V2 F3: nested tables' slices)
				n += int64(e.Type().Size())
			}
		}
	case reflect.Pointer:
		// an object it points to: its size, and what it references
		// (probe V2 F1: 232-byte objects built from {} held 237 MB); an
		// object of the host's stored again counts too, on the safe side
		if !v.IsNil() {
			n = int64(v.Type().Elem().Size()) + smallWalk(v.Elem(), depth-1, stop)
		}
	case reflect.Slice:
		if v.IsNil() {
			return 0
		}
		n = int64(v.Cap()) * int64(v.Type().Elem().Size())
		for i := 0; i < v.Len() && n < stop; i++ {
			n += smallWalk(v.Index(i), depth-1, stop)
		}
	case reflect.Map:
		if v.IsNil() {
			return 0
		}
		n = 48 // the header; a group of 8 slots from the first entry on
		if v.Len() > 0 {
			n += int64(max(v.Len(), 8)) * contUnit(v.Type())
		}
		for it := v.MapRange(); it.Next() && n < stop; {
			n += smallWalk(it.Key(), depth-1, stop) + smallWalk(it.Value(), depth-1, stop)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField() && n < stop; i++ {
			n += smallWalk(v.Field(i), depth-1, stop)
		}
	case reflect.Array:
		for i := 0; i < v.Len() && n < stop; i++ {
			n += smallWalk(v.Index(i), depth-1, stop)
		}
	}
	return n
}

// contCharge charges c, before a write into its container, the change
// the write makes: the container's length, before (the host may have
// changed it since the script's last write), times unit becomes length,
// its small values change by dSmall. It returns c as it was, for contUndo
// if the write is refused after all.
func (g *Gate) contCharge(t cgo.Thread, c *contRec, before, length, unit, dSmall int64) (contRec, error) {
	was := *c
	// what the host did since the script's last write, unseen by it:
	// entries it added are its own (probe V2 F6), and what it removed (a
	// clear, a truncation) leaves at most storeMin-1 small bytes per
	// element (probe V2 F5: refills after each host clear were refused)
	base := c.base + max(before-c.lastLen, 0)*unit
	small := min(max(c.small+dSmall, 0), length*(storeMin-1))
	d := max(length*unit-base, 0) + small + contRecBytes - c.bytes
	if err := g.storeRoom(t, d); err != nil {
		return was, err
	}
	c.base, c.lastLen, c.small = base, length, small
	c.bytes += d
	g.stores.charged += d
	return was, nil
}

// contUndo puts c back as it was before contCharge (was), giving back
// what it charged: the write was refused after all.
func (g *Gate) contUndo(c *contRec, was contRec) {
	if c == nil {
		return
	}
	d := c.bytes - was.bytes
	*c = was
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
	c := &contRec{w: weak.Make((*byte)(p)), base: int64(m.Len()) * contUnit(m.Type()), lastLen: int64(m.Len())}
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
