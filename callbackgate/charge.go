package callbackgate

import (
	"reflect"
	"slices"
	"unsafe"
)

// What a companion costs the memory limit.
//
// A non-blittable struct pushed by value is a Go copy zlua keeps (its
// companion) for as long as Lua holds the small userdata naming it. The
// Lua heap sees only the userdata, so without a charge a script could
// hold gigabytes of Go memory under a MemoryLimit of a few megabytes:
// keeping copies a Go function returns (each read of a nested struct
// field is one), or writing big strings into their fields. So a companion
// for a script's call (a Go function's results, a field read; the host's
// own pushes are not charged) is charged its type's size plus the bytes
// its copy reaches through strings, slices, arrays, maps and interfaces
// (reachBytes), and each field write changes the charge by what the field
// reaches after it less before it. C counts charges with the Lua heap
// against the limit and gives them back in the userdata's __gc (cgo
// PutCompanion). Pointers, channels and functions are not followed: they
// name objects the host shares (a pointer to the game world must not
// charge the world), which is also why objects, ByObj, are not charged,
// but for one kind: an object zlua itself built from a script's table (a
// table assigned to a pointer field, or passed for a pointer argument)
// and pushed back while the same outermost call runs. Such a pointer is
// noted with the bytes its conversion built (noteBuilt); its first push
// charges them to its slot (chargeBuilt), and C gives them back when the
// slot's last userdata goes. A script keeping such objects (e.Owner =
// {...}; keep[i] = e.Owner) so meets the limit as with tables. Objects
// built nested in an argument, and pointers a copy holds to any built
// object, are charged through the notes of builtindex.go.

// reachVisits bounds the values one reachBytes walk visits in an Env
// without a MemoryLimit, where the charge is only Stats.CopyBytes: past
// it, what is left is not counted. Under a limit the walk is exact (a
// sample would be the script's to choose: 64 empty strings before twelve
// 1 MiB ones) and ends when its total passes the limit, or after
// limit/4 + reachVisits values (every value a walk visits adds at least
// 8 bytes to it but for the fields of structs), with a charge over the
// limit: the push is refused.
const reachVisits = 1024

// reachWalk is one charge walk: the values it may still visit, its total,
// the limit it stops past (0: none), and the maps and slices of
// containers it has counted (a value reaching the same map or backing
// array twice, or itself through an interface, counts it once).
type reachWalk struct {
	left  int
	n     int64
	limit int64
	over  bool
	nodes bool // built objects are indexed: pointers are looked up (builtindex.go)
	seen  map[unsafe.Pointer]struct{}
}

// newWalk starts a charge walk for this Env's limit.
func (g *Gate) newWalk() reachWalk {
	lim := int64(min(g.S.MemoryLimit(), 1<<62))
	if lim == 0 {
		return reachWalk{left: reachVisits}
	}
	return reachWalk{left: int(min(lim/4, 1<<40)) + reachVisits, limit: lim, nodes: g.noted()}
}

// result is the walk's charge: its total, or past the limit one byte more
// than the limit (C then refuses it).
func (w *reachWalk) result() int64 {
	if w.over && w.limit != 0 {
		return w.limit + 1
	}
	return w.n
}

// add counts n bytes; it reports whether the walk goes on.
func (w *reachWalk) add(n int64) bool {
	w.n += n
	if w.limit != 0 && w.n > w.limit {
		w.over = true
	}
	return !w.over
}

// first reports whether the container at p is met for the first time
// in this walk (p nil: a container with nothing to count).
func (w *reachWalk) first(p unsafe.Pointer) bool {
	if p == nil {
		return true
	}
	if w.seen == nil {
		w.seen = make(map[unsafe.Pointer]struct{})
	}
	if _, ok := w.seen[p]; ok {
		return false
	}
	w.seen[p] = struct{}{}
	return true
}

// companionCharge is the charge of a companion whose copy is v (of the
// companion's type). C applies it only to the results of a Go function a
// script called (gate.c, finish), not to pushes of the host's API calls.
func (g *Gate) companionCharge(vt *valType, v reflect.Value) uint64 {
	n := uint64(vt.typ.Size())
	if vt.reach == nil {
		vt.reach = g.reachPlanOf(vt.typ)
	}
	if vt.reach.reaches || vt.reach.nreaches && g.noted() {
		// v is a struct: its plan's fields, without a lookup
		w := g.newWalk()
		for _, i := range vt.reach.walked(&w) {
			if !g.reachBytes(&w, v.Field(i)) {
				break
			}
		}
		n += uint64(w.result())
	}
	return n
}

// fieldReach is what field value v of a companion reaches (the two sides
// of a field write's change of charge).
func (g *Gate) fieldReach(v reflect.Value) int64 {
	w := g.newWalk()
	g.reachBytes(&w, v)
	return w.result()
}

// reachPlan is what a type's charge walk needs, computed once per type:
// whether its values reach bytes a charge counts, and for a struct the
// fields that do (reflect's Type.Field builds a StructField per call,
// which the walk must not pay per value).
type reachPlan struct {
	reaches bool
	fields  []int
	// the same, counting pointers to structs too: walked while built
	// objects are indexed (builtindex.go)
	nreaches bool
	nfields  []int
	// the pointer types a value holds in place (itself, fields, array
	// elements) when it reaches nothing else: a slice of them is walked
	// only when objects of one of them are noted
	ptrs []unsafe.Pointer
}

// walked returns the fields of the plan's struct that walk w visits.
func (p *reachPlan) walked(w *reachWalk) []int {
	if w.nodes {
		return p.nfields
	}
	return p.fields
}

// walks reports whether walk w visits values of t: values that reach
// bytes, and while objects are noted values holding pointers of the
// types noted (a host's slice of a million pointers to its own objects
// is not walked for a script's table).
func (g *Gate) walks(w *reachWalk, t reflect.Type) bool {
	p := g.reachPlanOf(t)
	if p.reaches {
		return true
	}
	if !w.nodes || !p.nreaches {
		return false
	}
	for _, q := range p.ptrs {
		if _, ok := g.nodes.types[q]; ok {
			return true
		}
	}
	return false
}

// reachPlanOf returns t's reachPlan, cached by type descriptor.
func (g *Gate) reachPlanOf(t reflect.Type) *reachPlan {
	if p, ok := g.sv.reach[typeWord(t)]; ok {
		return p
	}
	if g.sv.reach == nil {
		g.sv.reach = make(map[unsafe.Pointer]*reachPlan)
	}
	p := &reachPlan{}
	g.sv.reach[typeWord(t)] = p // a recursive type reaches through itself only via a kind below
	switch t.Kind() {
	case reflect.String, reflect.Slice, reflect.Map, reflect.Interface:
		p.reaches, p.nreaches = true, true
	case reflect.Pointer:
		p.nreaches = t.Elem().Kind() == reflect.Struct
		if p.nreaches {
			p.ptrs = []unsafe.Pointer{typeWord(t)}
		}
	case reflect.Array:
		e := g.reachPlanOf(t.Elem())
		p.reaches = t.Len() > 0 && e.reaches
		p.nreaches = t.Len() > 0 && (e.reaches || e.nreaches)
		p.ptrs = e.ptrs
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := g.reachPlanOf(t.Field(i).Type)
			if f.reaches {
				p.fields = append(p.fields, i)
			}
			if f.reaches || f.nreaches {
				p.nfields = append(p.nfields, i)
			}
			for _, q := range f.ptrs {
				if !slices.Contains(p.ptrs, q) {
					p.ptrs = append(p.ptrs, q)
				}
			}
		}
		p.reaches = len(p.fields) > 0
		p.nreaches = len(p.nfields) > 0
	}
	if p.reaches {
		p.ptrs = nil
	}
	return p
}

// reaches reports whether values of t can reach bytes outside their own
// size that a charge counts (reachBytes is then worth walking).
func (g *Gate) reaches(t reflect.Type) bool { return g.reachPlanOf(t).reaches }

// reachBytes adds to w the bytes v reaches outside its own size: string
// contents, slice backing arrays (their capacity), map entries, and the
// values interfaces hold, recursively; not through pointers, channels or
// functions, but a pointer to an object built from a script's table adds
// its noted bytes (w.nodes). It reports whether the walk goes on.
func (g *Gate) reachBytes(w *reachWalk, v reflect.Value) bool {
	if w.over {
		return false
	}
	if w.left--; w.left < 0 {
		w.over = true
		return false
	}
	switch v.Kind() {
	case reflect.String:
		return w.add(int64(v.Len()))
	case reflect.Slice:
		if v.IsNil() {
			return true
		}
		et := v.Type().Elem()
		deep := et.Kind() != reflect.String && g.walks(w, et)
		if deep && !w.first(v.UnsafePointer()) {
			return true // a backing array counted already (or a cycle)
		}
		if !w.add(int64(v.Cap()) * int64(et.Size())) {
			return false
		}
		return g.reachElems(w, v, v.Len(), et)
	case reflect.Array:
		return g.reachElems(w, v, v.Len(), v.Type().Elem())
	case reflect.Pointer:
		if w.nodes {
			return g.reachNode(w, v.UnsafePointer())
		}
	case reflect.Struct:
		for _, i := range g.reachPlanOf(v.Type()).walked(w) {
			if !g.reachBytes(w, v.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		return g.reachMap(w, v)
	case reflect.Interface:
		if v.IsNil() {
			return true
		}
		e := v.Elem()
		switch e.Kind() {
		case reflect.Pointer:
			if w.nodes {
				return g.reachNode(w, e.UnsafePointer())
			}
			return true
		case reflect.UnsafePointer, reflect.Chan, reflect.Func:
			return true
		}
		// the boxed value's own bytes, and what it reaches
		if !w.add(int64(e.Type().Size())) {
			return false
		}
		if g.walks(w, e.Type()) {
			return g.reachBytes(w, e)
		}
	}
	return true
}

// reachElems adds what the n elements of slice or array v reach beyond
// their own size.
func (g *Gate) reachElems(w *reachWalk, v reflect.Value, n int, et reflect.Type) bool {
	if n == 0 || !g.walks(w, et) {
		return true
	}
	for i := 0; i < n; i++ {
		if !g.reachBytes(w, v.Index(i)) {
			return false
		}
	}
	return true
}

// reachMap adds what map v holds: its entries' own sizes and what they
// reach.
func (g *Gate) reachMap(w *reachWalk, v reflect.Value) bool {
	if v.IsNil() || !w.first(v.UnsafePointer()) {
		return true
	}
	t := v.Type()
	n := v.Len()
	if !w.add(int64(n) * int64(t.Key().Size()+t.Elem().Size())) {
		return false
	}
	rk, re := g.walks(w, t.Key()), g.walks(w, t.Elem())
	if n == 0 || (!rk && !re) {
		return true
	}
	for it := v.MapRange(); it.Next(); {
		if rk && !g.reachBytes(w, it.Key()) {
			return false
		}
		if re && !g.reachBytes(w, it.Value()) {
			return false
		}
	}
	return true
}

// builtKeep is how many built objects a gate remembers: the newest ones
// of the outermost call in progress (a script pushes one back right
// after building it to keep it).
const builtKeep = 8

// builtObj is an object zlua built from a script's table and what its
// conversion built.
type builtObj struct {
	p unsafe.Pointer
	n int64
}

// noteBuilt remembers p, an object built from a table with n bytes,
// replacing the oldest entry when all are in use.
func (g *Gate) noteBuilt(p unsafe.Pointer, n int64) {
	if n <= 0 {
		return
	}
	if g.builtN < builtKeep {
		g.built[g.builtN] = builtObj{p, n}
		g.builtN++
		return
	}
	copy(g.built[:], g.built[1:])
	g.built[builtKeep-1] = builtObj{p, n}
}

// isBuilt reports whether p is a built object not pushed yet.
func (g *Gate) isBuilt(p unsafe.Pointer) bool {
	for i := 0; i < g.builtN; i++ {
		if g.built[i].p == p {
			return true
		}
	}
	return false
}

// chargeBuilt appends, after the push of p's slot, its charge when p is
// a built object, and forgets it; it reports whether it was one.
func (g *Gate) chargeBuilt(p unsafe.Pointer, slot uint32) bool {
	for i := 0; i < g.builtN; i++ {
		if g.built[i].p == p {
			g.S.PutObjCharge(slot, uint64(g.built[i].n))
			copy(g.built[i:], g.built[i+1:g.builtN])
			g.builtN--
			g.built[g.builtN] = builtObj{}
			return true
		}
	}
	return false
}

// forgetBuilt drops the built objects at an outermost return.
func (g *Gate) forgetBuilt() {
	g.built = [builtKeep]builtObj{}
	g.builtN = 0
}
