package callbackgate

import (
	"reflect"
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
// {...}; keep[i] = e.Owner) so meets the limit as with tables.

// reachVisits bounds the values one reachBytes walk visits: past it,
// collections are estimated from the elements already visited.
const reachVisits = 1024

// reachSample is how many elements of one slice, array or map are visited
// at most; their mean stands for the rest.
const reachSample = 64

// companionCharge is the charge of a companion whose copy is v (of the
// companion's type). C applies it only to the results of a Go function a
// script called (gate.c, finish), not to pushes of the host's API calls.
func (g *Gate) companionCharge(vt *valType, v reflect.Value) uint64 {
	n := uint64(vt.typ.Size())
	if vt.reach == nil {
		vt.reach = g.reachPlanOf(vt.typ)
	}
	if vt.reach.reaches { // v is a struct: its plan's fields, without a lookup
		budget := reachVisits
		for _, i := range vt.reach.fields {
			n += uint64(g.reachBytes(v.Field(i), &budget))
		}
	}
	return n
}

// reachPlan is what a type's charge walk needs, computed once per type:
// whether its values reach bytes a charge counts, and for a struct the
// fields that do (reflect's Type.Field builds a StructField per call,
// which the walk must not pay per value).
type reachPlan struct {
	reaches bool
	fields  []int
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
		p.reaches = true
	case reflect.Array:
		p.reaches = t.Len() > 0 && g.reaches(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if g.reaches(t.Field(i).Type) {
				p.fields = append(p.fields, i)
			}
		}
		p.reaches = len(p.fields) > 0
	}
	return p
}

// reaches reports whether values of t can reach bytes outside their own
// size that a charge counts (reachBytes is then worth walking).
func (g *Gate) reaches(t reflect.Type) bool { return g.reachPlanOf(t).reaches }

// reachBytes estimates the bytes v reaches outside its own size: string
// contents, slice backing arrays (their capacity), map entries, and the
// values interfaces hold, recursively; not through pointers, channels or
// functions. budget counts the values visited (reachVisits).
func (g *Gate) reachBytes(v reflect.Value, budget *int) int64 {
	*budget--
	switch v.Kind() {
	case reflect.String:
		return int64(v.Len())
	case reflect.Slice:
		if v.IsNil() {
			return 0
		}
		et := v.Type().Elem()
		return int64(v.Cap())*int64(et.Size()) + g.reachElems(v, v.Len(), et, budget)
	case reflect.Array:
		return g.reachElems(v, v.Len(), v.Type().Elem(), budget)
	case reflect.Struct:
		var n int64
		for _, i := range g.reachPlanOf(v.Type()).fields {
			n += g.reachBytes(v.Field(i), budget)
		}
		return n
	case reflect.Map:
		return g.reachMap(v, budget)
	case reflect.Interface:
		if v.IsNil() {
			return 0
		}
		e := v.Elem()
		switch e.Kind() {
		case reflect.Pointer, reflect.UnsafePointer, reflect.Chan, reflect.Func:
			return 0
		}
		// the boxed value's own bytes, and what it reaches
		n := int64(e.Type().Size())
		if g.reaches(e.Type()) && *budget > 0 {
			n += g.reachBytes(e, budget)
		}
		return n
	}
	return 0
}

// reachElems is what the n elements of slice or array v reach beyond
// their own size: a sample of at most reachSample (fewer when the budget
// runs low) scaled up to n.
func (g *Gate) reachElems(v reflect.Value, n int, et reflect.Type, budget *int) int64 {
	if n == 0 || !g.reaches(et) || *budget <= 0 {
		return 0
	}
	k := min(n, reachSample, *budget)
	var sum int64
	for i := 0; i < k; i++ {
		sum += g.reachBytes(v.Index(i), budget)
	}
	return scaleSample(sum, k, n)
}

// reachMap is what map v holds: its entries' own sizes and what a sample
// of them reaches, scaled up to its length.
func (g *Gate) reachMap(v reflect.Value, budget *int) int64 {
	if v.IsNil() {
		return 0
	}
	t := v.Type()
	n := v.Len()
	own := int64(n) * int64(t.Key().Size()+t.Elem().Size())
	rk, re := g.reaches(t.Key()), g.reaches(t.Elem())
	if n == 0 || (!rk && !re) || *budget <= 0 {
		return own
	}
	k := min(n, reachSample, *budget)
	var sum int64
	it := v.MapRange()
	for i := 0; i < k && it.Next(); i++ {
		if rk {
			sum += g.reachBytes(it.Key(), budget)
		}
		if re {
			sum += g.reachBytes(it.Value(), budget)
		}
	}
	return own + scaleSample(sum, k, n)
}

// scaleSample scales the sum of k sampled elements to n elements.
func scaleSample(sum int64, k, n int) int64 {
	if k <= 0 || k == n {
		return sum
	}
	return sum / int64(k) * int64(n)
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
// a built object, and forgets it.
func (g *Gate) chargeBuilt(p unsafe.Pointer, slot uint32) {
	for i := 0; i < g.builtN; i++ {
		if g.built[i].p == p {
			g.S.PutObjCharge(slot, uint64(g.built[i].n))
			copy(g.built[i:], g.built[i+1:g.builtN])
			g.builtN--
			g.built[g.builtN] = builtObj{}
			return
		}
	}
}

// forgetBuilt drops the built objects at an outermost return.
func (g *Gate) forgetBuilt() {
	g.built = [builtKeep]builtObj{}
	g.builtN = 0
}
