package callbackgate

import (
	"errors"
	"fmt"
	"hash/maphash"
	"reflect"
	"unsafe"

	"github.com/zlua-go/zlua/cgo"
)

// What a script's element writes cost the memory limit.
//
// A map or slice a script reaches by reference (ByRef, a field tagged
// lua:",ref") is Go memory the script writes into: m[k] = s and t[#t+1] =
// s store a Go copy of s there, as a field store does. Under a
// MemoryLimit those writes are charged as field stores are
// (storecharge.go): what the conversion built, for as long as the element
// holds it and Go keeps it.
//
//   - A slice element is a place with an address, charged as a field is.
//     An append that moved the backing array moves the charges of the
//     elements it copied to their new addresses: the old array's memory
//     may hold another object's field later, whose store would give back
//     a charge that is still live.
//   - A map entry has no address: its charge is kept by the map and the
//     key (byEntry), given back when the entry is written again or
//     deleted (m[k] = nil), or once Go collected what it built. A key the
//     conversion built (a string of storeMin bytes or more) is part of the
//     entry's charge. The key is named by its hash: a string key held in
//     byEntry would keep the charge's own root alive after the host
//     deleted the entry.

// entryKey names a map entry whose value a store built: the map's
// address and the key's hash (maphash, the gate's seed; two keys of one
// map sharing a hash, one chance in 2^64 per pair, share a charge).
type entryKey struct {
	m uintptr
	h uint64
}

// entryOf is the entryKey of m[k].
func (g *Gate) entryOf(m, k reflect.Value) entryKey {
	st := &g.stores
	if !st.seeded {
		st.seed, st.seeded = maphash.MakeSeed(), true
	}
	return entryKey{m: uintptr(m.UnsafePointer()), h: maphash.Comparable(st.seed, k.Interface())}
}

// elemStoreErr is the raise of an element store refused with err: a
// memory error stays one, anything else is a bad value.
func (g *Gate) elemStoreErr(b *binding, err error) int32 {
	if err == errStoreNoMem || errors.Is(err, ErrMemory) {
		return g.raiseStoreNoMem()
	}
	if err == errReleased {
		return g.raiseText(err.Error(), nil)
	}
	return g.raiseText(fmt.Sprintf("bad value for %s (%v)", b.name, err), nil)
}

// chargesElems reports whether stores into elements of type et are
// charged: under a memory limit, for the kinds that hold Go memory.
func (g *Gate) chargesElems(et reflect.Type) bool {
	return g.S.MemoryLimit() != 0 && storeKind(et.Kind())
}

// storeEntry stores argument 2 as m[k] under a memory limit, charging
// what its conversion and the key's built (see above).
func (g *Gate) storeEntry(fr cgo.Frame, m, k reflect.Value, krec *storeRec) (err error) {
	tmp, rec, err := g.storedValue(fr, 2, m.Type().Elem())
	if err != nil {
		return err
	}
	rec = mergeRec(rec, krec)
	if m.IsNil() {
		// a nil map field reached through its pointer: made here, since
		// its container record needs its address, and made nil again if
		// the write is refused
		m.Set(reflect.MakeMap(m.Type()))
		defer func() {
			if err != nil {
				m.Set(reflect.Zero(m.Type()))
			}
		}()
	}
	// the map's own charge first (storecont.go)
	length, dSmall := int64(m.Len()), smallOf(tmp)
	if old := m.MapIndex(k); old.IsValid() {
		dSmall -= smallOf(old)
	} else {
		length++
		dSmall += smallOf(k)
	}
	c := g.contOfMap(m)
	was, err := g.contCharge(fr.Thread(), c, int64(m.Len()), length, contUnit(m.Type()), dSmall)
	if err != nil {
		return err
	}
	if rec == nil && len(g.stores.byEntry) == 0 {
		m.SetMapIndex(k, tmp)
		return nil
	}
	ek := g.entryOf(m, k)
	old := g.stores.byEntry[ek]
	if rec == nil && old == nil {
		m.SetMapIndex(k, tmp)
		return nil
	}
	if err := g.replaceRoom(fr.Thread(), rec, old); err != nil {
		g.contUndo(c, was)
		return err
	}
	m.SetMapIndex(k, tmp)
	if old != nil {
		delete(g.stores.byEntry, ek)
		g.unbookRec(old)
	}
	if rec != nil {
		if g.stores.byEntry == nil {
			g.stores.byEntry = make(map[entryKey]*storeRec)
		}
		g.stores.byEntry[ek] = rec
		g.bookRec(rec)
	}
	return nil
}

// keyRec is the charge of key k, which mapKey converted while the store
// tracked what it built (nil: none): a string key of storeMin bytes or
// more (mapKey copied it from the script's string), or a key built from
// a table (a struct or an array holding such strings, an object) of
// storeMin bytes or more (probe V F2). The map keeps it.
func (g *Gate) keyRec(k reflect.Value) *storeRec {
	s := k
	if s.Kind() == reflect.Interface && !s.IsNil() {
		s = s.Elem()
	}
	if s.Kind() == reflect.String {
		if s.Len() < storeMin {
			return nil
		}
		r := &storeRec{bytes: int64(s.Len())}
		r.collect(s, []unsafe.Pointer{unsafe.Pointer(unsafe.StringData(s.String()))})
		return r
	}
	if g.convBuilt() < storeMin {
		return nil
	}
	return g.newStoreRec(k, g.convBuilt())
}

// mergeRec returns the charge of a and b together (either may be nil).
func mergeRec(a, b *storeRec) *storeRec {
	if a == nil {
		return b
	}
	if b != nil {
		a.roots = append(a.roots, b.roots...)
		a.bytes += b.bytes
		a.objs = append(a.objs, b.objs...)
		a.objW = append(a.objW, b.objW...)
	}
	return a
}

// dropEntry gives back the charges of m[k], which a script deletes: the
// entry's and its share of the map's.
func (g *Gate) dropEntry(t cgo.Thread, m, k reflect.Value) {
	if m.IsNil() {
		return
	}
	if c := g.stores.byCont[uintptr(m.UnsafePointer())]; c != nil {
		if old := m.MapIndex(k); old.IsValid() {
			// gives back: never refused
			g.contCharge(t, c, int64(m.Len()), int64(m.Len()-1), contUnit(m.Type()), -smallOf(old)-smallOf(k))
		}
	}
	if len(g.stores.byEntry) == 0 {
		return
	}
	ek := g.entryOf(m, k)
	if old, ok := g.stores.byEntry[ek]; ok {
		delete(g.stores.byEntry, ek)
		g.unbookRec(old)
		g.S.StoreCharge(-old.bytes)
	}
}

// storeAppend appends argument 2 to the slice s (reached through a
// pointer) under a memory limit, charging what its conversion built as
// the new element's charge (see above).
func (g *Gate) storeAppend(fr cgo.Frame, s reflect.Value) error {
	tmp, rec, err := g.storedValue(fr, 2, s.Type().Elem())
	if err != nil {
		return err
	}
	n := s.Len()
	var from unsafe.Pointer
	if s.Cap() > 0 {
		from = s.UnsafePointer()
	}
	// the slice's own charge first (storecont.go): an array an append of
	// the script made has one; an append that moves the slice makes one
	c, made := g.stores.byCont[uintptr(from)], false
	if c == nil && n == s.Cap() {
		c, made = &contRec{}, true
	}
	var was contRec
	if c != nil {
		// the host's elements an append copies into the array it makes
		// stay the host's (contCharge counts them into the base)
		if was, err = g.contCharge(fr.Thread(), c, int64(n), int64(n+1), contUnit(s.Type()), smallOf(tmp)); err != nil {
			return err
		}
	}
	if rec != nil {
		if err := g.storeRoom(fr.Thread(), rec.bytes); err != nil {
			g.contUndo(c, was)
			return err
		}
	}
	s.Set(reflect.Append(s, tmp))
	if to := s.UnsafePointer(); to != from {
		if from != nil && len(g.stores.byField) != 0 {
			g.moveElemCharges(uintptr(from), uintptr(to), n, s.Type().Elem().Size())
		}
		if c != nil {
			if !made {
				delete(g.stores.byCont, uintptr(from))
			}
			g.contPut(to, c)
		}
	}
	if addr := s.Index(n).UnsafeAddr(); rec != nil {
		g.addStoreRec(addr, rec)
	} else if old := g.stores.byField[addr]; old != nil {
		g.dropStoreRec(addr, old) // stale (see putStoreRec)
		g.S.StoreCharge(-old.bytes)
	}
	return nil
}

// storeElem stores argument 2 into element i of slice (or array) s
// under a memory limit: charged as a field (storeAt), and the change in
// small values as the slice's when an append of the script made its
// array (storecont.go).
func (g *Gate) storeElem(fr cgo.Frame, s reflect.Value, i int) error {
	ev := s.Index(i)
	tmp, rec, err := g.storedValue(fr, 2, ev.Type())
	if err != nil {
		return err
	}
	var c *contRec
	var was contRec
	if s.Kind() == reflect.Slice {
		if c = g.stores.byCont[uintptr(s.UnsafePointer())]; c != nil {
			n := int64(s.Len())
			if was, err = g.contCharge(fr.Thread(), c, n, n, contUnit(s.Type()), smallOf(tmp)-smallOf(ev)); err != nil {
				return err
			}
		}
	}
	if err := g.storeAt(fr.Thread(), ev.UnsafeAddr(), rec, func() { ev.Set(tmp) }); err != nil {
		g.contUndo(c, was)
		return err
	}
	return nil
}

// moveElemCharges moves the charges of places inside the n elements of
// size sz at from (elements, their fields) to the same places at to: an
// append copied the elements there. A charge found at a place of to is
// stale (memory Go freed and reused) and is given back. The places are
// looked up one by one (pointer-aligned), or the charges walked, whichever
// is fewer: an append must not cost in proportion to every charge.
func (g *Gate) moveElemCharges(from, to uintptr, n int, sz uintptr) {
	st := &g.stores
	span := uintptr(n) * sz
	var moved []uintptr
	if span/ptrSize <= uintptr(len(st.byField)) {
		for off := uintptr(0); off < span; off += ptrSize {
			if _, ok := st.byField[from+off]; ok {
				moved = append(moved, from+off)
			}
		}
	} else {
		for addr := range st.byField {
			if addr >= from && addr < from+span {
				moved = append(moved, addr)
			}
		}
	}
	for _, addr := range moved {
		g.putStoreRec(addr-from+to, st.byField[addr])
		delete(st.byField, addr)
	}
}

// ptrSize is the alignment of every place a charge is kept at: fields
// that can hold what a store builds hold pointers.
const ptrSize = unsafe.Sizeof(uintptr(0))

// putStoreRec keeps rec (booked) as the charge of the place at addr,
// giving back the stale charge found there: the place was written without
// a store seeing it (an append into memory a truncated slice or a freed
// array left).
func (g *Gate) putStoreRec(addr uintptr, rec *storeRec) {
	if old := g.stores.byField[addr]; old != nil && old != rec {
		g.dropStoreRec(addr, old)
		g.S.StoreCharge(-old.bytes)
	}
	g.stores.byField[addr] = rec
}
