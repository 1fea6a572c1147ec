package callbackgate

// Making room for a store that does not fit the memory limit: dead
// charges given back, Lua collected, then Go (rate-limited); the scan
// that finds the dead charges; the built objects a store notes.

import (
	"runtime"
	"time"
	"unsafe"
	"weak"

	"github.com/zlua-go/zlua/cgo"
)

// storeRoom charges d bytes (gives back -d), making room when they do not
// fit: dead charges are given back, Lua collects, then Go
// (storeCollect).
func (g *Gate) storeRoom(t cgo.Thread, d int64) error {
	if g.S.StoreCharge(d) {
		return nil
	}
	g.storeScan()
	if g.S.StoreCharge(d) {
		return nil
	}
	// finalizers run: one writing a field (LibsAll) would change the
	// charges this store has read, so such a store is refused meanwhile
	g.stores.collecting = true
	g.S.CollectNow(t)
	g.stores.collecting = false
	if g.S.StoreCharge(d) {
		return nil
	}
	if g.storeCollect() && g.S.StoreCharge(d) {
		return nil
	}
	return errStoreNoMem
}

// How often at most a shortage makes Go collect for the charges of stores
// (storeCollect). A collection costs the host in proportion to its whole
// heap: a script storing into objects it drops, under a small limit, made
// the host collect 200 times in 17 s (probe R). So after each forced
// collection the next waits ten times as long as it took (Go then spends
// at most a tenth of the time collecting for a script's stores), and at
// least storeForceMin, at most storeForceMax: a host with a small heap
// collects in a millisecond or two, and a script rebuilding a map or a
// slice of its data each call (probe V F5), or appending to slices it
// drops, is not refused for a second's wait on garbage a collection frees.
const (
	storeForceMin = 10 * time.Millisecond
	storeForceMax = time.Second
)

// storeCollect makes Go collect, then gives back the charges of what it
// freed, unless the last forced collection was too recent (see above):
// charges that are live at the limit, or a script churning stores, would
// otherwise make Go collect at every refusal. It reports whether it
// collected.
func (g *Gate) storeCollect() bool {
	st := &g.stores
	if st.charged == 0 || (!st.gcAt.IsZero() && time.Since(st.gcAt) < st.gcEvery) || g.storeGCRunning() {
		return false
	}
	// objects and copies whose userdata Lua collected hold their Go
	// values until drained
	g.objs.Drain()
	g.sv.reg.Drain()
	start := time.Now()
	if n := len(g.limits); n == 0 {
		forcedGC()
	} else if fin := g.collectWithin(g.limits[n-1].done); fin != nil {
		st.gcFin = fin
		// the limited call's context is done: the store is refused
		// now, and no forced collection is tried again for a while
		st.gcAt, st.gcEvery = time.Now(), storeForceMax
		return false
	}
	st.gcAt = time.Now()
	st.gcEvery = min(max(10*st.gcAt.Sub(start), storeForceMin), storeForceMax)
	g.storeScan()
	return true
}

// forcedGC is the collection storeCollect forces (a test hook replaces it
// with a slow one: SetForcedGC).
var forcedGC = runtime.GC

// SetForcedGC replaces the collection a refused store forces and returns
// the previous one: a test hook, for a host whose collections are slow.
func SetForcedGC(gc func()) func() {
	prev := forcedGC
	forcedGC = gc
	return prev
}

// collectWithin forces a collection inside a limited call, done being its
// context's Done: it waits for it only until the context is done, which a
// host with a big heap would otherwise overrun by its whole collection
// (seconds), once per refused store (probe Z3-F7). It returns nil when
// the collection ended, else (the context is or became done first) a
// channel closed when it ends on its own.
func (g *Gate) collectWithin(done <-chan struct{}) (running chan struct{}) {
	if g.S.Interrupted() {
		return closedChan
	}
	gc := forcedGC
	fin := make(chan struct{})
	go func() {
		gc()
		close(fin)
	}()
	select {
	case <-fin:
		return nil
	case <-done:
		return fin
	}
}

// closedChan is a collection that has ended (none was started).
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// storeGCRunning reports whether a forced collection a limited call
// stopped waiting for still runs.
func (g *Gate) storeGCRunning() bool {
	fin := g.stores.gcFin
	if fin == nil {
		return false
	}
	select {
	case <-fin:
		g.stores.gcFin = nil
		return false
	default:
		return true
	}
}

// storeScan gives back the charges whose allocations Go collected.
func (g *Gate) storeScan() {
	st := &g.stores
	var back int64
	for addr, r := range st.byField {
		if r.dead() {
			back += r.bytes
			g.dropStoreRec(addr, r)
		}
	}
	for q, o := range st.byObj {
		if o.fields <= 0 && !o.alive() {
			delete(st.byObj, q)
		}
	}
	for ek, r := range st.byEntry {
		if r.dead() {
			back += r.bytes
			delete(st.byEntry, ek)
			g.unbookRec(r)
		}
	}
	back += g.contScan()
	if back != 0 {
		g.S.StoreCharge(-back)
	}
	st.scanAt = 2*(len(st.byField)+len(st.byEntry)+len(st.byObj)+len(st.byCont)) + 64
	st.mark = weak.Make(new(storeMark))
}

// storeMark is the object whose weak pointer tells that Go has collected
// since the last scan (the scan's own allocation, which nothing keeps).
type storeMark struct{ _ [2]*byte }

// storeSettle runs at an outermost return while stores are charged: a scan
// once Go has collected since the last one (a weak pointer's test), and
// when the limit refused an allocation, a Go collection first
// (storeCollect). Without it the
// charges of stores Go has freed would keep Lua's own allocations from the
// limit until the next store that needs room.
func (g *Gate) storeSettle() {
	if g.S.Closed() {
		return
	}
	if g.S.ExtRefused() && g.storeCollect() {
		return
	}
	if g.storeGCRunning() {
		return // its end is scanned at a later return
	}
	if g.stores.mark.Value() == nil {
		g.storeScan()
	}
}

// raiseStoreNoMem ends a refused store with Lua's memory error.
func (g *Gate) raiseStoreNoMem() int32 {
	g.S.ProgReset()
	g.S.PutNoMem()
	return g.commitReturn()
}

// storeBuiltObj notes p, an object the conversion in progress built from
// a table, when it converts a store: a root, and an object a script may
// read back (byObj).
func (g *Gate) storeBuiltObj(p unsafe.Pointer) {
	if g.stores.tracking {
		g.stores.built = append(g.stores.built, p)
		g.stores.builtObjs = append(g.stores.builtObjs, p)
	}
}

// storeBuilt notes p, an allocation the conversion in progress made,
// when it converts a store (what may become a root of its charge: never
// memory that existed, which may not even be Go's).
func (g *Gate) storeBuilt(p unsafe.Pointer) {
	if g.stores.tracking && p != nil {
		g.stores.built = append(g.stores.built, p)
	}
}

// forgetStoreBuilt empties the list of objects the last store built
// (clearing it: its backing array must not keep them alive).
func (g *Gate) forgetStoreBuilt() {
	clear(g.stores.built)
	g.stores.built = g.stores.built[:0]
	clear(g.stores.builtObjs)
	g.stores.builtObjs = g.stores.builtObjs[:0]
}
