package callbackgate

import (
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/zlua-go/zlua/cgo"
)

// Lua tables decoded into Go structs (issue 12, item 4). A plain table
// reaching a struct value or a *struct (a parameter, a Global out-value, a
// result, an element, a field) fills the struct by field name; ByVal and
// ByObj userdata keep their meaning. The same plan, built once per struct
// type, serves AsTable (astable.go) in the other direction.

// tablePlan is how one struct type decodes from (and encodes to) a table.
type tablePlan struct {
	typ    reflect.Type
	fields []*tableField          // declaration order
	exact  map[string]*tableField // Lua name → field
	fold   map[string]*tableField // ASCII lower-case Lua name → field (unambiguous names only)
	// flat: every field is a boolean, number or string directly in the
	// struct (no embedding, at most 64 fields): a table of scalars decodes
	// from one read of its pairs with typed stores (decodeFlat).
	flat bool
}

// tableField is one Lua-visible field of a struct plan.
type tableField struct {
	name     string // the Lua name: the Go name or the lua:"name" tag
	index    []int
	pos      int          // position in fields (for the exact-match bits)
	embedded bool         // an embedded struct whose fields are promoted: AsTable omits it
	viaPtr   bool         // the path crosses an embedded pointer (allocated when decoding)
	off      uintptr      // offset in the struct (flat plans)
	kind     reflect.Kind // the field's kind (flat plans)
}

var tablePlans sync.Map // reflect.Type → *tablePlan (nil: the type does not decode from tables)

// planFor is tablePlanFor with the gate's last plan checked first.
func (g *Gate) planFor(t reflect.Type) *tablePlan {
	if p := g.lastPlan; p != nil && p.typ == t {
		return p
	}
	p := tablePlanFor(t)
	if p != nil {
		g.lastPlan = p
	}
	return p
}

// tablePlanFor returns the plan of the struct type t, or nil when t has no
// Lua-visible field (time.Time, sync.Mutex: a table never silently
// becomes their zero value) or is one of the gate's own wrapper types.
func tablePlanFor(t reflect.Type) *tablePlan {
	if p, ok := tablePlans.Load(t); ok {
		return p.(*tablePlan)
	}
	var p *tablePlan
	switch t {
	case viewedType, refType, plainType:
	default:
		p = buildPlan(t)
	}
	got, _ := tablePlans.LoadOrStore(t, p)
	return got.(*tablePlan)
}

func buildPlan(t reflect.Type) *tablePlan {
	fields := structFields(t) // the same names as object fields
	if len(fields) == 0 {
		return nil
	}
	p := &tablePlan{typ: t, exact: make(map[string]*tableField, len(fields)), fold: map[string]*tableField{}}
	for name, f := range fields {
		pf := &tableField{name: name, index: f.index}
		sf := t.FieldByIndex(f.index)
		pf.embedded = sf.Anonymous && (sf.Type.Kind() == reflect.Struct ||
			sf.Type.Kind() == reflect.Pointer && sf.Type.Elem().Kind() == reflect.Struct)
		for i := 1; i < len(f.index); i++ {
			if t.FieldByIndex(f.index[:i]).Type.Kind() == reflect.Pointer {
				pf.viaPtr = true
			}
		}
		p.fields = append(p.fields, pf)
		p.exact[name] = pf
	}
	sort.Slice(p.fields, func(i, j int) bool { return indexLess(p.fields[i].index, p.fields[j].index) })
	ambiguous := map[string]bool{}
	for i, f := range p.fields {
		f.pos = i
		low := lowerASCII(f.name)
		if _, dup := p.fold[low]; dup {
			ambiguous[low] = true
		}
		p.fold[low] = f
	}
	for low := range ambiguous {
		delete(p.fold, low)
	}
	p.flat = len(p.fields) <= 64
	for _, f := range p.fields {
		sf := t.FieldByIndex(f.index)
		f.off, f.kind = sf.Offset, sf.Type.Kind()
		if len(f.index) != 1 || !flatKind(f.kind) {
			p.flat = false
		}
	}
	return p
}

// flatKind reports whether a field of kind k is stored by decodeFlat.
func flatKind(k reflect.Kind) bool {
	switch k {
	case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}

func indexLess(a, b []int) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}

func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// lookup finds the field a table key names: the exact Lua name first,
// else the name compared without regard to ASCII case (exact is true for
// the first). key may be a view of Lua memory: it is not kept.
func (p *tablePlan) lookup(key string) (f *tableField, exact bool) {
	if f = p.exact[key]; f != nil {
		return f, true
	}
	var buf [64]byte
	if len(key) > len(buf) {
		return p.fold[lowerASCII(key)], false
	}
	b := buf[:len(key)]
	for i := 0; i < len(key); i++ {
		c := key[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	return p.fold[string(b)], false
}

// readTable decodes the table at idx into v when v is a struct or a
// pointer to one with a plan; handled is false for other types (the caller
// then reports its usual type error).
func (g *Gate) readTable(t cgo.Thread, idx int, v reflect.Value, depth int) (handled bool, err error) {
	typ := v.Type()
	ptr := typ.Kind() == reflect.Pointer
	if ptr {
		typ = typ.Elem()
	}
	if typ.Kind() != reflect.Struct {
		return false, nil
	}
	p := g.planFor(typ)
	if p == nil {
		return false, nil
	}
	if !ptr {
		return true, g.decodeStruct(t, idx, v, p, depth)
	}
	before := g.convBuilt()
	if err := g.convCharge(int64(typ.Size())); err != nil {
		return true, err
	}
	nv := reflect.New(typ)
	if g.overlaying() && !v.IsNil() {
		nv.Elem().Set(v.Elem()) // a copy: the old struct stays as it was
	}
	start, epoch := g.freshStart()
	if err := g.decodeStruct(t, idx, nv.Elem(), p, depth); err != nil {
		return true, err
	}
	v.Set(nv)
	g.storeBuiltObj(nv.UnsafePointer())
	n := g.convBuilt() - before // what it holds, nested objects included
	if depth == 0 {
		g.noteBuilt(nv.UnsafePointer(), n) // charge.go
	}
	if typ.Size() != 0 {
		g.noteBuiltValue(nv.UnsafePointer(), nv.Type(), n, start, epoch)
	}
	return true, nil
}

// decodeStruct fills v (zeroed first, unless overlaying: overlay.go) from
// the table at idx: each string key naming a field converts into it with
// the argument rules; other keys
// are ignored. An exact name wins over a case-insensitive match of the
// same field, whatever the traversal order; two keys matching one field
// case-insensitively, without its exact name, are an error.
func (g *Gate) decodeStruct(t cgo.Thread, idx int, v reflect.Value, p *tablePlan, depth int) error {
	if depth > MaxDepth {
		return errTooDeep
	}
	// ReadPairs needs two free slots: a nested read has them from the
	// outermost's reserve, a Go function's argument from the C frame it
	// was passed to (argRoom). Any other read at depth 0 reserves first;
	// the walk below pushes nested values, so it always does.
	reserved := false
	if depth == 0 && !g.argRoom {
		if err := g.tableStack(t, depth); err != nil {
			return err
		}
		reserved = true
	}
	if p.flat && v.CanAddr() {
		if g.pairs == nil {
			g.pairs = new(cgo.Pairs)
		}
		if n := t.ReadPairs(idx, g.pairs); n >= 0 && g.decodeFlat(v, p, g.pairs[:2*n]) {
			return nil
		}
	}
	if !reserved {
		if err := g.tableStack(t, depth); err != nil {
			return err
		}
	}
	if !g.overlaying() {
		v.SetZero()
	}
	// Per field: an exact key seen, a case-insensitive one applied, a
	// second case-insensitive one applied (an error unless an exact key
	// wins: foldClash).
	var small [3]uint64
	words, nw := small[:], 1
	if len(p.fields) > 64 {
		nw = (len(p.fields) + 63) / 64
		words = make([]uint64, 3*nw)
	}
	exactSeen, folded, twice := words[:nw], words[nw:2*nw], words[2*nw:]
	var kv [2]cgo.Arg
	for top := t.NextPair(idx, &kv, true); top != 0; top = t.NextPair(idx, &kv, false) {
		if kv[0].Type != int32(cgo.TString) {
			continue
		}
		f, exact := p.lookup(kv[0].View())
		if f == nil {
			continue
		}
		w, bit := f.pos/64, uint64(1)<<(f.pos%64)
		switch {
		case exact:
			exactSeen[w] |= bit
		case exactSeen[w]&bit != 0:
			continue
		case folded[w]&bit != 0:
			twice[w] |= bit
		default:
			folded[w] |= bit
		}
		fv, err := fieldForDecode(v, f)
		if err == nil {
			err = g.read(t, top, &kv[1], fv, depth+1)
		}
		if err != nil {
			key := kv[0].String() // the key as the script wrote it; copied before the pop
			t.Pop(2)
			return fieldError(key, err)
		}
	}
	for w := range twice {
		if twice[w]&^exactSeen[w] != 0 {
			return g.foldClash(t, idx, p, twice, exactSeen)
		}
	}
	return nil
}

// fieldForDecode returns f's field of v, allocating embedded pointers on
// the way.
func fieldForDecode(v reflect.Value, f *tableField) (reflect.Value, error) {
	if !f.viaPtr {
		return v.FieldByIndex(f.index), nil
	}
	for i, x := range f.index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				if !v.CanSet() {
					return v, &argError{detail: "cannot set embedded pointer to unexported struct " + v.Type().Elem().String()}
				}
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, nil
}

// pathError is a conversion error inside a nested value: the path from
// the outermost value to the failing one and what failed there. Segments
// are added innermost first as the error travels out: ".name" for a
// struct field, "[2]" for a sequence element, `["k"]` for a map key.
type pathError struct {
	segs []string // innermost first
	root string   // the outermost value's name (a global's), or ""
	err  error
}

func (e *pathError) Error() string {
	var b strings.Builder
	b.WriteString(e.root)
	for i := len(e.segs) - 1; i >= 0; i-- {
		b.WriteString(e.segs[i])
	}
	p := b.String()
	switch {
	case e.root != "":
	case strings.HasPrefix(p, "."):
		p = p[1:]
	default:
		p = "element " + p // the wording of errors in sequences and maps
	}
	return p + ": " + strings.TrimPrefix(e.err.Error(), "zlua: ")
}

func (e *pathError) Unwrap() error { return e.err }

// inPath adds seg (the outer step) to err's path.
func inPath(seg string, err error) error {
	if pe, ok := err.(*pathError); ok {
		pe.segs = append(pe.segs, seg)
		return pe
	}
	return &pathError{segs: []string{seg}, err: err}
}

// fieldError places err under the struct field the table key named.
func fieldError(key string, err error) error {
	if err == errTooDeep {
		return err
	}
	if isIdent(key) {
		return inPath("."+key, err)
	}
	return inPath("["+strconv.Quote(key)+"]", err)
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '_' && !('a' <= c && c <= 'z') && !('A' <= c && c <= 'Z') && !(i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// ReadGlobal is ReadInto for the value of the global name: errors inside
// a nested value name their path from it (cfg.weapons[2].damage).
func (g *Gate) ReadGlobal(t cgo.Thread, idx int, v reflect.Value, name string) error {
	err := g.ReadInto(t, idx, v)
	if pe, ok := err.(*pathError); ok {
		pe.root = name
	}
	return err
}

var anyMapType = reflect.TypeFor[map[any]any]()

// readAnyMap reads a table into a declared map[any]any: every table below
// it keeps any keys (the natural form before string-keyed tables became
// map[string]any).
func (g *Gate) readAnyMap(t cgo.Thread, idx int, v reflect.Value, depth int) error {
	m, err := g.naturalMap(t, idx, 0, depth, true)
	if err != nil {
		return err
	}
	v.Set(reflect.ValueOf(m))
	return nil
}
