package callbackgate

import (
	"reflect"
	"unsafe"
	"weak"
)

// Objects built from a script's tables, wherever they come back.
//
// The ring of charge.go charges an object zlua built from a script's table
// when a Go function hands it back, but only the argument's outermost
// value, and only while the same outermost call runs. A Go function can
// also hand back what a script passed inside a slice, a map or a copy
// (func([]*Info) []*Info, func(Link) Link with a pointer field), and a
// script can read a nested object back later (l.P) and keep it alone:
// probe R kept 1.1 GB that way under a 16 MiB limit. So under a
// MemoryLimit every object an argument's conversion builds with storeMin
// bytes or more (its own and what it holds) is noted with those bytes:
//
//   - each new slot of a noted object pushed in a script's call is
//     charged them, as the ring's are (C gives them back with the slot's
//     last userdata);
//   - a copy naming one through its fields, elements or interfaces is
//     charged them in its walk (charge.go), once per copy;
//   - a field a script stores one into is charged them as a store is
//     (storecharge.go), for as long as the field holds it and Go keeps it.
//
// Each holder is charged in full: a script holding both an object and one
// nested in it pays for the nested bytes twice.
//
// Notes are kept two ways. While the outermost call that built them runs,
// they are fresh: held by the gate (freshKeep of them, freshShare of the
// limit at most; past that the oldest are forgotten), which costs an
// append. An object the script gets back (a push, a copy's walk, a store)
// is kept for longer, with the objects nested in it: by a weak pointer
// (the index keeps nothing alive), for as long as Go keeps the object, so
// that reading it back in a later call (held.Owner) is charged too. A weak
// pointer costs far more than an append (the runtime keeps them in a
// sorted list per span), which a script passing tables it never gets back
// does not pay. Fresh objects the script never got back, which Go code
// kept past the call and hands back later, are the host's and are not
// charged.

// freshKeep bounds the fresh notes a gate holds.
const freshKeep = 4096

// freshShare bounds the bytes fresh notes hold to a share of the limit.
const freshShare = 4

// builtNode is a kept note: a weak pointer to the object and the bytes
// its conversion built (the object and what it holds).
type builtNode struct {
	w weak.Pointer[byte]
	n int64
}

// freshNode is a fresh note. The notes of one conversion are in the order
// the objects were completed, so what an object holds that was noted is
// the run of notes before it, from first.
type freshNode struct {
	p     unsafe.Pointer
	n     int64
	first int
	kept  bool // in the index already
}

// builtIndex is a gate's notes of built objects.
type builtIndex struct {
	m       map[uintptr]builtNode // kept, by address
	pruneAt int                   // the size at which the next pruning of dead entries runs
	fresh   []freshNode
	at      map[unsafe.Pointer]int // the fresh notes by object
	bytes   int64                  // what the fresh notes hold
	epoch   int                    // counts forgetFresh calls: a conversion's start is stale past one
	// the pointer types of the objects ever noted (by type word): what a
	// copy's walk looks for
	types map[unsafe.Pointer]struct{}
}

// freshStart is what a conversion of an object records before converting
// what it holds: where its nested notes will start.
func (g *Gate) freshStart() (start, epoch int) {
	return len(g.nodes.fresh), g.nodes.epoch
}

// noteNode notes p, an object of a non-zero size and pointer type pt that
// an argument's conversion built from a table with n bytes, under a
// memory limit; start and epoch are its freshStart.
func (g *Gate) noteNode(p unsafe.Pointer, pt reflect.Type, n int64, start, epoch int) {
	x := &g.nodes
	if _, ok := x.types[typeWord(pt)]; !ok {
		if x.types == nil {
			x.types = make(map[unsafe.Pointer]struct{})
		}
		x.types[typeWord(pt)] = struct{}{}
	}
	if len(x.fresh) >= freshKeep || x.bytes+n > int64(min(g.S.MemoryLimit(), 1<<62))/freshShare {
		g.forgetFresh()
	}
	if epoch != x.epoch { // the notes it holds were forgotten
		start = len(x.fresh)
	}
	if x.at == nil {
		x.at = make(map[unsafe.Pointer]int)
	}
	x.at[p] = len(x.fresh)
	x.fresh = append(x.fresh, freshNode{p: p, n: n, first: start})
	x.bytes += n
}

// forgetFresh drops the fresh notes: at an outermost return, and when they
// reach their bounds.
func (g *Gate) forgetFresh() {
	x := &g.nodes
	clear(x.fresh)
	x.fresh = x.fresh[:0]
	clear(x.at)
	x.bytes = 0
	x.epoch++
}

// keepNode keeps the fresh note i, and the notes of what its object holds,
// in the index.
func (g *Gate) keepNode(i int) {
	x := &g.nodes
	if x.m == nil {
		x.m = make(map[uintptr]builtNode)
	}
	for j := x.fresh[i].first; j <= i; j++ {
		f := &x.fresh[j]
		if f.kept {
			continue
		}
		f.kept = true
		if len(x.m) >= x.pruneAt {
			for q, nd := range x.m {
				if nd.w.Value() == nil {
					delete(x.m, q)
				}
			}
			x.pruneAt = 2*len(x.m) + 256
		}
		x.m[uintptr(f.p)] = builtNode{w: weak.Make((*byte)(f.p)), n: f.n}
	}
}

// noted reports whether any object is noted.
func (g *Gate) noted() bool { return len(g.nodes.at) != 0 || len(g.nodes.m) != 0 }

// nodeBytes returns the bytes noted for the object at p, 0 when it is not
// noted (or the object noted at p was collected and p names another), and
// keeps a fresh note: the script is getting the object.
func (g *Gate) nodeBytes(p unsafe.Pointer) int64 {
	if i, ok := g.nodes.at[p]; ok {
		g.keepNode(i)
		return g.nodes.fresh[i].n
	}
	if nd, ok := g.nodes.m[uintptr(p)]; ok && unsafe.Pointer(nd.w.Value()) == p {
		return nd.n
	}
	return 0
}

// nodeWeak returns the weak pointer and bytes of the noted object at p,
// kept (a store of it).
func (g *Gate) nodeWeak(p unsafe.Pointer) (weak.Pointer[byte], int64, bool) {
	if g.nodeBytes(p) == 0 {
		return weak.Pointer[byte]{}, 0, false
	}
	nd := g.nodes.m[uintptr(p)]
	return nd.w, nd.n, true
}

// chargeNode appends, after the push of p's slot, the charge of the noted
// object p names.
func (g *Gate) chargeNode(p unsafe.Pointer, slot uint32) {
	if n := g.nodeBytes(p); n != 0 {
		g.S.PutObjCharge(slot, uint64(n))
	}
}

// chargedOnPush reports whether a push of the object at p carries a
// charge (a built object of the ring, a store's or a noted one): the
// return of such an object goes through pushObj.
func (g *Gate) chargedOnPush(p unsafe.Pointer) bool {
	if g.builtN != 0 && g.isBuilt(p) {
		return true
	}
	if len(g.stores.byObj) != 0 {
		if _, ok := g.stores.byObj[uintptr(p)]; ok {
			return true
		}
	}
	if _, ok := g.nodes.at[p]; ok {
		return true
	}
	nd, ok := g.nodes.m[uintptr(p)]
	return ok && unsafe.Pointer(nd.w.Value()) == p
}

// reachNode adds to w the bytes of the noted object at p, once per walk
// (a copy naming it; charge.go). It reports whether the walk goes on.
func (g *Gate) reachNode(w *reachWalk, p unsafe.Pointer) bool {
	if n := g.nodeBytes(p); n != 0 && w.first(p) {
		return w.add(n)
	}
	return true
}

// WalksNoted reports whether a copy's charge walk, while objects are
// noted, visits the elements of a slice of t: values that reach bytes, or
// hold pointers of a type noted so far. For tests.
func (g *Gate) WalksNoted(t reflect.Type) bool {
	w := reachWalk{nodes: true}
	return g.walks(&w, t)
}
