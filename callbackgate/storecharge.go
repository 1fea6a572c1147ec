package callbackgate

import (
	"errors"
	"hash/maphash"
	"reflect"
	"slices"
	"time"
	"unsafe"
	"weak"

	"github.com/zlua-go/zlua/cgo"
)

// What a script's stores cost the memory limit.
//
// A script that writes a table or a string into a field of a Go object,
// or a table into a pointer field of a copy, makes zlua build Go memory
// (an object, a string, a slice or map) and store it where Go keeps it:
// in an object the host holds, in a chain of objects built from tables
// (cur.Owner = {...}; cur = cur.Owner), in a copy. Probe Q kept 1 GB that
// way under a 16 MiB limit. So under a MemoryLimit a store that built
// storeMin bytes or more is charged what its conversion built, for as
// long as the field holds it and Go keeps it: each charge has weak
// pointers to the allocations the store made (the roots: a built object,
// a string's bytes, a backing array, a map, an interface's box) and is
// given back when the field is written again, or once Go has collected
// them all (the object holding the field was dropped; storeScan).
//
// An object a store built can also be held elsewhere: a script reads it
// back (e.Owner), which charges its slot as a push of a built object does
// (charge.go; C gives that back with the slot's last userdata), or
// stores it into another field (y.Owner = e.Owner), which charges that
// field too. Each holder is charged: a field written again gives back only
// its own charge.
//
// A charge that does not fit first makes room: dead charges are given
// back, Lua collects, and Go collects (storeCollect); then the store is
// refused with Lua's memory error and the field keeps its value.

// storeMin is the least a store must build to be charged: a weak pointer
// costs more than a small string, and small pointer-free allocations may
// share a block whose other objects keep it (weak.Pointer).
const storeMin = 256

// tinyMax is the size from which the runtime gives a pointer-free
// allocation a block of its own (smaller ones share 16-byte blocks): a
// weak pointer to a smaller one may stay alive with its neighbours.
const tinyMax = 16

// storeRoots bounds the roots one charge tracks.
const storeRoots = 64

// storeRec is one field's charge.
type storeRec struct {
	roots []weak.Pointer[byte]
	bytes int64
	objs  []uintptr            // the objects the store built (a script may read them back)
	objW  []weak.Pointer[byte] // weak pointers to objs, in their order
}

// dead reports whether Go collected all of r's roots.
func (r *storeRec) dead() bool {
	for _, w := range r.roots {
		if w.Value() != nil {
			return false
		}
	}
	return true
}

// storeObj is an object that stores built, as its pushes and the fields
// naming it see it: its charge, how many places' charges name it, and a
// weak pointer to it. It is kept while the object lives, named by no
// place or not: a script that read it back, cleared the place and stored
// it elsewhere would otherwise store an object no charge knows (probe V
// F3). A store of it anywhere in a value is charged its bytes
// (collectNoted), a push its slot (chargeStored).
type storeObj struct {
	rec    *storeRec
	fields int
	w      weak.Pointer[byte]
}

// alive reports whether Go still keeps the object o names.
func (o storeObj) alive() bool { return o.w.Value() != nil }

// storeState is a gate's store charges: by the address of the field
// written, and the objects they built by address.
type storeState struct {
	byField map[uintptr]*storeRec
	byEntry map[entryKey]*storeRec // map entries (storeelems.go)
	byCont  map[uintptr]*contRec   // containers (storecont.go)
	seed    maphash.Seed           // byEntry's key hashes
	seeded  bool
	byObj   map[uintptr]storeObj
	charged int64         // the bytes of all charges
	scanAt  int           // the number of charges at which the next scan runs
	gcAt    time.Time     // when Go last collected for room
	gcEvery time.Duration // how long the next such collection waits (storeCollect)
	// gcFin is closed when a forced collection a limited call stopped
	// waiting for ends (collectWithin); nil when none runs. Until then a
	// weak pointer's Value may block until the collection's mark ends, so
	// storeSettle leaves its scan for later.
	gcFin chan struct{}
	// the objects the conversion of the store in progress built from
	// tables (decode.go appends while tracking)
	built      []unsafe.Pointer
	builtObjs  []unsafe.Pointer // the objects among them
	tracking   bool
	collecting bool                    // storeRoom's Lua collection runs
	mark       weak.Pointer[storeMark] // nil once Go collected since the last scan
}

// errStoreNoMem refuses a store whose charge does not fit.
var errStoreNoMem = errors.New("not enough memory")

// assignStored is readAssign for a field a script writes: under a memory
// limit, what the conversion built is charged (see above) before the
// field takes the value; errStoreNoMem when it does not fit (the field
// is left as it was).
func (g *Gate) assignStored(fr cgo.Frame, i int, fv reflect.Value) error {
	if g.S.MemoryLimit() == 0 || !fv.CanAddr() || !storeKind(fv.Kind()) {
		return g.readAssign(fr, i, fv)
	}
	tmp, rec, err := g.storedValue(fr, i, fv.Type())
	if err != nil {
		return err
	}
	return g.storeAt(fr.Thread(), fv.UnsafeAddr(), rec, func() { fv.Set(tmp) })
}

// storedValue reads argument i of a store under a memory limit as a value
// of type typ (of a storeKind), with the charge of what its conversion
// built: nil when that is less than storeMin and holds nothing else a
// charge follows (an object a store built, objects arguments built).
func (g *Gate) storedValue(fr cgo.Frame, i int, typ reflect.Type) (reflect.Value, *storeRec, error) {
	if g.stores.collecting {
		return reflect.Value{}, nil, errStoreNoMem
	}
	a := arg(fr, i)
	t := fr.Thread()
	tmp := reflect.New(typ).Elem()
	k := typ.Kind()
	var n int64
	g.forgetStoreBuilt()
	if k == reflect.String {
		s, err := g.readString(t, i+1, &a)
		if err != nil {
			return tmp, nil, err
		}
		tmp.SetString(s)
		n = int64(len(s))
		if n > 0 { // readString copied it
			g.stores.built = append(g.stores.built, unsafe.Pointer(unsafe.StringData(s)))
		}
	} else {
		g.stores.tracking = true
		err := g.read(t, i+1, &a, tmp, 0)
		g.stores.tracking = false
		if err != nil {
			g.forgetStoreBuilt()
			return tmp, nil, err
		}
		n = g.convBuilt()
	}
	var rec *storeRec
	if len(g.stores.built) != 0 {
		n = max(n, estimateOf(tmp)) // storecont.go
	}
	if n >= storeMin {
		rec = g.newStoreRec(tmp, n)
	}
	if g.noted() || len(g.stores.byObj) != 0 {
		// objects arguments built that the script got back (builtindex.go)
		// and objects stores built, stored again, wherever in the value:
		// this place holds them too
		rec = g.storeNoted(rec, tmp)
	}
	g.forgetStoreBuilt()
	return tmp, rec, nil
}

// replaceRoom charges rec in place of old (either may be nil): the
// difference, making room (storeRoom).
func (g *Gate) replaceRoom(t cgo.Thread, rec, old *storeRec) error {
	var need int64
	if rec != nil {
		need = rec.bytes
	}
	if old != nil {
		need -= old.bytes
	}
	return g.storeRoom(t, need)
}

// storeAt charges rec (nil: none) as the charge of the place at addr,
// giving back the one it had, then runs set, which stores the value
// there; errStoreNoMem, without set, when the charge does not fit.
func (g *Gate) storeAt(t cgo.Thread, addr uintptr, rec *storeRec, set func()) error {
	old := g.stores.byField[addr]
	if rec == nil && old == nil {
		set()
		return nil
	}
	if err := g.replaceRoom(t, rec, old); err != nil {
		return err
	}
	set()
	if old != nil {
		g.dropStoreRec(addr, old)
	}
	if rec != nil {
		g.addStoreRec(addr, rec)
	}
	return nil
}

// addStoreRec records rec, charged already, as the charge of the place at
// addr.
func (g *Gate) addStoreRec(addr uintptr, rec *storeRec) {
	st := &g.stores
	if st.byField == nil {
		st.byField = make(map[uintptr]*storeRec)
	}
	g.putStoreRec(addr, rec)
	g.bookRec(rec)
}

// bookRec counts rec, charged already and kept by a place, in the
// charges' total and in the objects it built.
func (g *Gate) bookRec(rec *storeRec) {
	st := &g.stores
	if st.byObj == nil {
		st.byObj = make(map[uintptr]storeObj)
	}
	st.charged += rec.bytes
	for i, q := range rec.objs {
		o := st.byObj[q]
		if o.rec == nil {
			o.rec = rec
			o.w = rec.objW[i]
		}
		o.fields++
		st.byObj[q] = o
	}
	if len(st.byField)+len(st.byEntry)+len(st.byObj) >= st.scanAt {
		g.storeScan()
	}
}

// dropStoreRec forgets rec, the charge of the place at addr, whose bytes
// were given back.
func (g *Gate) dropStoreRec(addr uintptr, rec *storeRec) {
	delete(g.stores.byField, addr)
	g.unbookRec(rec)
}

// unbookRec undoes bookRec for rec, whose bytes were given back.
func (g *Gate) unbookRec(rec *storeRec) {
	st := &g.stores
	st.charged -= rec.bytes
	for _, q := range rec.objs {
		if o, ok := st.byObj[q]; ok {
			// kept while alive (storeObj); o.rec may be rec: its bytes
			// still price a read-back
			o.fields--
			st.byObj[q] = o
		}
	}
}

// chargeStored appends, after the push of p's slot, the charge of the
// object a store built that p names: the script now holds it through a
// userdata too.
func (g *Gate) chargeStored(p unsafe.Pointer, slot uint32) {
	if o, ok := g.stores.byObj[uintptr(p)]; ok && o.alive() {
		g.S.PutObjCharge(slot, uint64(o.rec.bytes))
	}
}

// storeNoted adds to rec (nil: none yet) the noted objects and the
// objects stores built that v holds (collectNoted); it returns the
// charge, nil when there is none.
func (g *Gate) storeNoted(rec *storeRec, v reflect.Value) *storeRec {
	var r storeRec
	r.collectNoted(g, v)
	if r.bytes == 0 {
		return rec
	}
	return mergeRec(rec, &r)
}

// collectNoted adds to r the objects, slices and maps arguments built
// that v holds (builtindex.go: the script got them back), through its
// fields, elements and interfaces, not through objects: each adds its
// bytes, and a root while r has fewer than storeRoots. The values a
// store built are not noted, so nothing counts twice.
func (r *storeRec) collectNoted(g *Gate, v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map:
		if v.IsNil() {
			return
		}
		if w, n, ok := g.nodeWeak(v.UnsafePointer()); ok {
			r.bytes += n
			if len(r.roots) < storeRoots {
				r.roots = append(r.roots, w)
			}
			return // what it holds is in its bytes
		}
		if v.Kind() == reflect.Pointer && len(g.stores.byObj) != 0 {
			q := uintptr(v.UnsafePointer())
			if o, ok := g.stores.byObj[q]; ok && o.alive() { // a store built it
				r.bytes += o.rec.bytes
				if len(r.roots) < storeRoots {
					r.roots = append(r.roots, o.w)
				}
				r.objs = append(r.objs, q)
				r.objW = append(r.objW, o.w)
				return
			}
		}
		switch v.Kind() {
		case reflect.Slice:
			r.collectElems(g, v)
		case reflect.Map:
			if noPointers(v.Type().Key()) && noPointers(v.Type().Elem()) {
				return
			}
			for it := v.MapRange(); it.Next(); {
				r.collectNoted(g, it.Key())
				r.collectNoted(g, it.Value())
			}
		}
	case reflect.Interface:
		if !v.IsNil() {
			r.collectNoted(g, v.Elem())
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			r.collectNoted(g, v.Field(i))
		}
	case reflect.Array:
		r.collectElems(g, v)
	}
}

// collectElems is collectNoted for the elements of slice or array v.
func (r *storeRec) collectElems(g *Gate, v reflect.Value) {
	if noPointers(v.Type().Elem()) {
		return
	}
	for i := 0; i < v.Len(); i++ {
		r.collectNoted(g, v.Index(i))
	}
}

// noPointers reports whether values of t hold no pointer a note could
// name (strings name no object zlua notes).
func noPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	}
	return false
}

// storeKind reports whether a field of kind k can hold Go memory a store
// builds.
func storeKind(k reflect.Kind) bool {
	switch k {
	case reflect.String, reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface, reflect.Struct, reflect.Array:
		return true
	}
	return false
}

// newStoreRec returns the charge of n bytes for the value v a store
// built, with weak pointers to its allocations; nil when it has none (v
// holds only what existed before: an object pushed earlier, an empty
// value).
func (g *Gate) newStoreRec(v reflect.Value, n int64) *storeRec {
	r := &storeRec{bytes: n}
	r.collect(v, g.stores.built)
	if len(r.roots) == 0 {
		return nil
	}
	for _, q := range g.stores.builtObjs {
		r.objs = append(r.objs, uintptr(q))
		r.objW = append(r.objW, weak.Make((*byte)(q)))
	}
	return r
}

// collect adds the allocations v makes (not through them: what they hold
// dies with them) to r's roots. A string, a slice's backing array or a
// pointer's object is one only when the store's conversion made it
// (built): a value that existed (a copy's string, a lent slice) may not
// even be Go memory, which weak.Make refuses by crashing. Maps and
// interface boxes are Go's always.
func (r *storeRec) collect(v reflect.Value, built []unsafe.Pointer) {
	if len(r.roots) >= storeRoots {
		return
	}
	var p unsafe.Pointer
	switch v.Kind() {
	case reflect.String:
		// under tinyMax bytes a string may share its block with other
		// allocations that keep it (a root that never dies)
		if q := unsafe.Pointer(unsafe.StringData(v.String())); v.Len() >= tinyMax && slices.Contains(built, q) {
			p = q
		}
	case reflect.Pointer:
		if q := v.UnsafePointer(); q != nil && slices.Contains(built, q) {
			p = q
		}
	case reflect.Map:
		if q := v.UnsafePointer(); slices.Contains(built, q) {
			p = q
		}
	case reflect.Slice:
		if q := v.UnsafePointer(); v.Cap() > 0 && slices.Contains(built, q) &&
			(uintptr(v.Cap())*v.Type().Elem().Size() >= tinyMax || !noPointers(v.Type().Elem())) {
			p = q
		}
	case reflect.Interface:
		// what the interface holds, as a field would (its box is not a
		// root: a pointer-shaped value is held in place of one, and a
		// zero value's box is the runtime's static one)
		if !v.IsNil() {
			r.collect(v.Elem(), built)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			r.collect(v.Field(i), built)
		}
	case reflect.Array:
		for i := 0; i < v.Len() && len(r.roots) < storeRoots; i++ {
			r.collect(v.Index(i), built)
		}
	}
	if p != nil {
		r.roots = append(r.roots, weak.Make((*byte)(p)))
	}
}
