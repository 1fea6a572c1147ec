package callbackgate

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"unsafe"

	"github.com/zlua-go/zlua/cgo"
)

// ErrCannotPush reports a Go value that has no Lua form (yet).
var ErrCannotPush = errors.New("cannot push Go value")

// errYieldAsValue refuses Yield's result pushed as a value: it is a
// request to the gate, meaningful only as a Go function's error result,
// and as a value it would reach Lua as a userdata nobody can use.
var errYieldAsValue = fmt.Errorf("%w: zlua.Yield must be returned as a Go function's error result, not as a value", ErrCannotPush)

// yieldType is the type of Yield's result.
var yieldType = reflect.TypeFor[*yieldRequest]()

// Push appends v to the push program being built: nil, booleans, numbers,
// strings and []byte as Lua values, maps, slices and arrays as new tables,
// functions as callable Go functions registered under name, pointers and
// channels (and maps and slices wrapped in Ref) as ByObj userdata.
func (g *Gate) Push(v any, name string) error { return g.push(v, name, 0) }

// PutGlobal starts a new push program "name, v": what SetGlobal(name, v)
// runs. The blittable struct type pushed last is written in one step.
func (g *Gate) PutGlobal(name string, v any) error {
	if vt := g.sv.last; vt != nil && vt.copied && (*eface)(unsafe.Pointer(&v)).tab == typeWord(vt.typ) {
		g.S.PutGlobalByVal(name, vt.id, vt.mtref, (*eface)(unsafe.Pointer(&v)).data, vt.size)
		return nil
	}
	g.S.ProgReset()
	g.S.PutStr(name)
	return g.push(v, name, 0)
}

func (g *Gate) push(v any, name string, depth int) error {
	s := g.S
	switch x := v.(type) {
	case nil:
		s.PutNil()
	case bool:
		s.PutBool(x)
	case int:
		s.PutInt(int64(x))
	case int64:
		s.PutInt(x)
	case int32:
		s.PutInt(int64(x))
	case float64:
		s.PutNum(x)
	case float32:
		s.PutNum(float64(x))
	case string:
		s.PutStr(x)
	case []byte:
		s.PutBytes(x)
	case *Function:
		if x == nil {
			s.PutNil()
			return nil
		}
		return x.push(g)
	case *Table:
		if x == nil {
			s.PutNil()
			return nil
		}
		return x.put(g, "table")
	case *yieldRequest:
		return errYieldAsValue
	case []any:
		if depth >= MaxDepth {
			return errTooDeep
		}
		s.PutNewTable(len(x), 0)
		for i, e := range x {
			s.PutInt(int64(i + 1))
			if err := g.push(e, name, depth+1); err != nil {
				return seqPushError(i, err)
			}
			s.PutRawSet()
		}
	case Viewed:
		if x.V == nil {
			s.PutNil()
			return nil
		}
		return g.pushViewed(reflect.ValueOf(x.V), x.View)
	case Ref:
		return g.pushRef(x.V)
	case Plain:
		return g.pushPlain(reflect.ValueOf(x.V), name, depth)
	case map[string]any:
		if depth >= MaxDepth {
			return errTooDeep
		}
		s.PutNewTable(0, len(x))
		for k, e := range x {
			s.PutStr(k)
			if err := g.push(e, k, depth+1); err != nil {
				return mapPushError(reflect.ValueOf(k), err)
			}
			s.PutRawSet()
		}
	default:
		if vt := g.sv.last; vt != nil && vt.copied && (*eface)(unsafe.Pointer(&v)).tab == typeWord(vt.typ) {
			// the blittable struct type pushed last: its bytes are
			// copied from the interface's data word without reflection
			g.S.PutByVal(vt.id, vt.mtref, (*eface)(unsafe.Pointer(&v)).data, vt.size, 0, 0)
			return nil
		}
		rv := reflect.ValueOf(v)
		if rv.Kind() == reflect.Struct {
			if o, ok := v.(OpaqueArg); ok {
				return g.pushOpaque(o)
			}
			return g.pushStructIface(v, rv)
		}
		return g.pushValue(rv, name, depth)
	}
	return nil
}

func (g *Gate) pushValue(v reflect.Value, name string, depth int) error {
	s := g.S
	switch v.Kind() {
	case reflect.Invalid:
		s.PutNil()
	case reflect.Bool:
		s.PutBool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		s.PutInt(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if u := v.Uint(); u <= math.MaxInt64 {
			s.PutInt(int64(u))
		} else {
			s.PutNum(float64(u)) // beyond Lua's integers: nearest float
		}
	case reflect.Float32, reflect.Float64:
		s.PutNum(v.Float())
	case reflect.String:
		s.PutStr(v.String())
	case reflect.Chan, reflect.Pointer:
		if ok, err := g.pushHandle(v); ok {
			return err
		}
		if v.IsNil() {
			s.PutNil()
			return nil
		}
		return g.pushObj(v, nil)
	case reflect.Interface:
		if v.IsNil() {
			s.PutNil()
			return nil
		}
		return g.pushValue(v.Elem(), name, depth)
	case reflect.Struct:
		switch v.Type() {
		case viewedType, refType, plainType:
			return g.push(v.Interface(), name, depth)
		}
		if o, ok := v.Interface().(OpaqueArg); ok {
			return g.pushOpaque(o)
		}
		return g.pushStruct(v, nil)
	case reflect.Slice:
		if v.IsNil() {
			s.PutNil()
			return nil
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			s.PutBytes(v.Bytes())
			return nil
		}
		return g.pushSeq(v, name, depth)
	case reflect.Array:
		return g.pushSeq(v, name, depth)
	case reflect.Map:
		return g.pushMap(v, name, depth, g.pushValue)
	case reflect.Func:
		if v.IsNil() {
			s.PutNil()
			return nil
		}
		id, err := g.RegisterFunc(name, v.Interface())
		if err != nil {
			return err
		}
		g.funcs[id].made = g.inResults
		s.PutGoFuncHints(id, g.funcs[id].hints)
	default:
		return cannotPush(v.Type())
	}
	return nil
}

func (g *Gate) pushSeq(v reflect.Value, name string, depth int) error {
	if depth >= MaxDepth {
		return errTooDeep
	}
	n := v.Len()
	if err := g.pushFits(n); err != nil {
		return err
	}
	g.S.PutNewTable(n, 0)
	for i := 0; i < n; i++ {
		g.S.PutInt(int64(i + 1))
		if err := g.pushValue(v.Index(i), name, depth+1); err != nil {
			return seqPushError(i, err)
		}
		g.S.PutRawSet()
		if g.S.ProgFailed() {
			return ErrMemory // the program outgrew the limit (progBound)
		}
	}
	return nil
}

// pushFits refuses a table of n entries that the Lua heap under a
// MemoryLimit cannot hold (each takes a slot of seqSlotBytes at least),
// before a program is written for it.
func (g *Gate) pushFits(n int) error {
	if lim := g.S.MemoryLimit(); lim != 0 && uint64(n) > lim/seqSlotBytes {
		return ErrMemory
	}
	return nil
}

// seqPushError places a push error under element i (0-based) of a
// sequence, as decoding errors name their path ("[2]"); mapPushError under a map's key
// k (".name", `["a b"]`, "[3]"). Memory and depth errors are not an
// element's: they pass as they are.
func seqPushError(i int, err error) error {
	if !pathWorthy(err) {
		return err
	}
	return inPath("["+strconv.Itoa(i+1)+"]", err)
}

func mapPushError(k reflect.Value, err error) error {
	if !pathWorthy(err) {
		return err
	}
	for k.Kind() == reflect.Interface && !k.IsNil() {
		k = k.Elem()
	}
	switch k.Kind() {
	case reflect.String:
		return fieldError(k.String(), err)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return inPath("["+strconv.FormatInt(k.Int(), 10)+"]", err)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return inPath("["+strconv.FormatUint(k.Uint(), 10)+"]", err)
	case reflect.Bool:
		return inPath("["+strconv.FormatBool(k.Bool())+"]", err)
	case reflect.Float32, reflect.Float64:
		return inPath("["+strconv.FormatFloat(k.Float(), 'g', -1, 64)+"]", err)
	}
	return inPath("[?]", err) // a key with no short spelling (an object)
}

// pathWorthy reports whether err is about one element (a value that
// cannot be pushed, a foreign handle) rather than the whole push.
func pathWorthy(err error) bool {
	return err != errTooDeep && !errors.Is(err, ErrMemory)
}

func cannotPush(t reflect.Type) error {
	return &pushError{t}
}

type pushError struct{ t reflect.Type }

func (e *pushError) Error() string { return "cannot push Go value of type " + e.t.String() }

func (e *pushError) Is(target error) bool { return target == ErrCannotPush }

// pushMap pushes map v as a new table (nil as nil): keys as pushValue
// pushes them, values through elem (pushValue, or pushPlain for AsTable
// copies), each named after its string key for Go functions inside.
func (g *Gate) pushMap(v reflect.Value, name string, depth int,
	elem func(v reflect.Value, name string, depth int) error) error {
	s := g.S
	if v.IsNil() {
		s.PutNil()
		return nil
	}
	if depth >= MaxDepth {
		return errTooDeep
	}
	if err := g.pushFits(v.Len()); err != nil {
		return err
	}
	s.PutNewTable(0, v.Len())
	keys := newKeyCheck(v.Type().Key())
	kk := v.Type().Key().Kind()
	vague := kk == reflect.Interface || kk == reflect.Float32 || kk == reflect.Float64 ||
		kk == reflect.Pointer || kk == reflect.Chan
	it := v.MapRange()
	for it.Next() {
		if s.ProgFailed() {
			return ErrMemory // the program outgrew the limit (progBound)
		}
		k := it.Key()
		if keys != nil {
			if err := keys.add(k); err != nil {
				return err
			}
		}
		if vague {
			if err := luaKeyError(k); err != nil {
				return err
			}
		}
		if err := g.pushValue(k, name, depth+1); err != nil {
			return err
		}
		sub := name
		if k.Kind() == reflect.String {
			sub = k.String()
		}
		if err := elem(it.Value(), sub, depth+1); err != nil {
			return mapPushError(k, err)
		}
		s.PutRawSet()
	}
	return nil
}

// keyCheck finds two keys of a Go map that become one Lua key: numbers of
// different kinds with one value in a map[any]X (2, int64(2) and 2.0;
// Lua 5.4 makes an integral float key an integer), and on LuaJIT, whose
// numbers are doubles, 64-bit integers beyond 2^53 that round to one
// double. Pushed, the later entry would replace the earlier in the table,
// the survivor picked by Go's random map order; the push fails instead,
// as the Lua→Go direction refuses two Lua keys that make one Go key.
type keyCheck struct {
	seen map[numKey]reflect.Value
	all  bool // every numeric key (any-keyed maps); else only beyond 2^53
}

// numKey is a number as a Lua table key.
type numKey struct {
	isInt bool
	i     int64
	f     float64
}

// newKeyCheck returns the check a map with keys of type kt needs, or nil.
func newKeyCheck(kt reflect.Type) *keyCheck {
	switch kt.Kind() {
	case reflect.Interface:
		return &keyCheck{all: true}
	case reflect.Int, reflect.Int64, reflect.Uint, reflect.Uint64, reflect.Uintptr:
		if !cgo.HasIntegers {
			return &keyCheck{}
		}
	case reflect.Float32, reflect.Float64:
		// distinct Go floats are distinct Lua keys (NaN is refused)
	}
	return nil
}

// add notes key k; the error names the earlier key k collides with.
func (c *keyCheck) add(k reflect.Value) error {
	for k.Kind() == reflect.Interface && !k.IsNil() {
		k = k.Elem()
	}
	nk, ok := luaNumKey(k)
	if !ok || (!c.all && !(nk.f >= maxExact || nk.f <= -maxExact)) {
		return nil
	}
	if prev, dup := c.seen[nk]; dup {
		return fmt.Errorf("map key %v (%v) and key %v (%v) are the same Lua key", k, k.Type(), prev, prev.Type())
	}
	if c.seen == nil {
		c.seen = map[numKey]reflect.Value{}
	}
	c.seen[nk] = k
	return nil
}

// luaNumKey is the Lua key number k (of a numeric kind) becomes; ok is
// false for other kinds.
func luaNumKey(k reflect.Value) (numKey, bool) {
	var f float64
	switch k.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if cgo.HasIntegers {
			return numKey{isInt: true, i: k.Int()}, true
		}
		f = float64(k.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if u := k.Uint(); cgo.HasIntegers && u <= math.MaxInt64 {
			return numKey{isInt: true, i: int64(u)}, true
		}
		f = float64(k.Uint())
	case reflect.Float32, reflect.Float64:
		f = k.Float()
		if cgo.HasIntegers && f == math.Trunc(f) && f >= -(1<<63) && f < 1<<63 {
			return numKey{isInt: true, i: int64(f)}, true
		}
	default:
		return numKey{}, false
	}
	return numKey{f: f}, true
}

// luaKeyError refuses a map key no Lua table takes (Lua's "table index is
// nil" / "is NaN" came without saying which value held it): nil (an
// interface, a pointer or channel, each pushed as nil) or NaN.
func luaKeyError(k reflect.Value) error {
	for k.Kind() == reflect.Interface {
		if k.IsNil() {
			return errNilKey
		}
		k = k.Elem()
	}
	switch k.Kind() {
	case reflect.Pointer, reflect.Chan:
		if k.IsNil() {
			return errNilKey
		}
	case reflect.Float32, reflect.Float64:
		if math.IsNaN(k.Float()) {
			return errNaNKey
		}
	}
	return nil
}

var (
	errNilKey = errors.New("map key nil cannot be a Lua table index")
	errNaNKey = errors.New("map key NaN cannot be a Lua table index")
)
