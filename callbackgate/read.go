package callbackgate

import (
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unsafe"

	"github.com/zlua-go/zlua/cgo"
)

// MaxDepth bounds nested tables read from Lua or written from Go: deeper
// values (and cycles) are refused instead of overflowing a stack.
const MaxDepth = 64

// ReadStack is the stack space a top-level read of a nested value needs.
const ReadStack = 2*MaxDepth + 8

// errTooDeep names the bound, since acyclic data meets it too (a linked
// list 64 nodes long; each slice, map, pointer and table level counts,
// probe E1-M1). It carries no path: at that depth the path would be the
// longest part of the message.
var errTooDeep = &argError{detail: "value nesting too deep (more than " + strconv.Itoa(MaxDepth) + " levels: a cycle, or data nested that deep)"}

var functionType = reflect.TypeFor[*Function]()

// arg returns argument i (0-based) of a gate call.
func arg(fr cgo.Frame, i int) cgo.Arg {
	if i < fr.NArgs() {
		if i < cgo.FastArgs {
			return fr.Arg(i)
		}
		return fr.Thread().Arg(i + 1)
	}
	return cgo.Arg{Type: int32(cgo.TNone)}
}

// typeName spells a value's type for errors. Scalars are named from a
// alone (their stack slot may be gone); others honour __name.
func (g *Gate) typeName(t cgo.Thread, idx int, a *cgo.Arg) string {
	switch a.Type {
	case int32(cgo.TNone):
		return "no value"
	case int32(cgo.TNil):
		return "nil"
	case int32(cgo.TBoolean):
		return "boolean"
	case int32(cgo.TNumber):
		return "number"
	case int32(cgo.TString):
		return "string"
	case int32(cgo.TLightUserdata):
		if _, ok := g.opaqueAt(a.Light()); ok {
			return "opaque handle"
		}
		return "light userdata"
	}
	return g.S.TypeName(t, idx)
}

// floatToInt converts a float with an integral value to an int64. On
// LuaJIT, whose numbers are all floats, 2^63 itself reads as MaxInt64:
// it is the float every int64 from 2^63 − 512 up (MaxInt64 included) is
// pushed as, and it must come back (the caller's range check refuses it
// for the narrower kinds). Lua 5.4 pushes those as integers and refuses a
// float 2^63, as luaL_checkinteger does.
func floatToInt(f float64) (int64, error) {
	if !cgo.HasIntegers && f == 1<<63 {
		return math.MaxInt64, nil
	}
	if f != math.Trunc(f) || f < -9.223372036854775808e18 || f >= 9.223372036854775808e18 {
		return 0, &argError{detail: "number has no integer representation"}
	}
	return int64(f), nil
}

// readInt converts a number (or numeric string) with an integral value.
func (g *Gate) readInt(t cgo.Thread, idx int, a *cgo.Arg) (int64, error) {
	switch a.Type {
	case int32(cgo.TNumber):
		if a.IsInt() {
			return a.Int(), nil
		}
		return floatToInt(a.Num())
	case int32(cgo.TString):
		// exactly, as Lua reads "9007199254740993" (a float would round)
		if i, ok := t.ToIntegerConv(idx); ok {
			return i, nil
		}
		if f, ok := t.ToNumberConv(idx); ok {
			return floatToInt(f)
		}
	}
	return 0, typeError("number", g.typeName(t, idx, a))
}

// readUint converts a number (or numeric string) with an integral value
// to an unsigned kind k. Besides Lua integers, floats from 2^63 up to
// 2^64 are taken: an uint64 above MaxInt64 is pushed to Lua as the
// nearest float, and must come back.
func (g *Gate) readUint(t cgo.Thread, idx int, a *cgo.Arg, k reflect.Kind) (uint64, error) {
	var f float64
	switch a.Type {
	case int32(cgo.TNumber):
		if a.IsInt() {
			if i := a.Int(); i >= 0 {
				return uint64(i), nil
			}
			return 0, outOfRange(k)
		}
		f = a.Num()
	case int32(cgo.TString):
		if i, ok := t.ToIntegerConv(idx); ok {
			if i >= 0 {
				return uint64(i), nil
			}
			return 0, outOfRange(k)
		}
		var ok bool
		if f, ok = t.ToNumberConv(idx); !ok {
			return 0, typeError("number", g.typeName(t, idx, a))
		}
	default:
		return 0, typeError("number", g.typeName(t, idx, a))
	}
	return floatToUint(f, k)
}

// floatToUint converts an integral float to an unsigned kind k. 2^64
// itself reads as MaxUint64: it is the float every uint64 from
// 2^64 − 1024 up is pushed as (MaxUint64, a common sentinel, included),
// which must come back; the caller's range check refuses it for the
// narrower kinds.
func floatToUint(f float64, k reflect.Kind) (uint64, error) {
	switch {
	case f != math.Trunc(f) || math.IsInf(f, 0):
		return 0, &argError{detail: "number has no integer representation"}
	case f == 1<<64:
		return math.MaxUint64, nil
	case f < 0 || f > 1<<64:
		return 0, outOfRange(k)
	}
	return uint64(f), nil
}

// readFloat converts a number or numeric string.
func (g *Gate) readFloat(t cgo.Thread, idx int, a *cgo.Arg) (float64, error) {
	switch a.Type {
	case int32(cgo.TNumber):
		if a.IsInt() {
			return float64(a.Int()), nil
		}
		return a.Num(), nil
	case int32(cgo.TString):
		if f, ok := t.ToNumberConv(idx); ok {
			return f, nil
		}
	}
	return 0, typeError("number", g.typeName(t, idx, a))
}

// readString converts a string, or a number the way Lua's tostring does.
func (g *Gate) readString(t cgo.Thread, idx int, a *cgo.Arg) (string, error) {
	switch a.Type {
	case int32(cgo.TString):
		str := a.String()
		if g.stores.tracking && len(str) > 0 { // a store's conversion (storecharge.go)
			g.stores.built = append(g.stores.built, unsafe.Pointer(unsafe.StringData(str)))
		}
		return str, nil
	case int32(cgo.TNumber):
		if a.IsInt() {
			return strconv.FormatInt(a.Int(), 10), nil
		}
		return formatFloat(a.Num()), nil
	}
	return "", typeError("string", g.typeName(t, idx, a))
}

// formatFloat spells a float like Lua's "%.14g" (5.4 adds ".0" to
// integral values, as its tostring does). A NaN is "-nan" on 5.4 when its
// sign bit is set (printf's spelling, which 5.4's tostring keeps: 0/0 is
// "-nan" on x86-64); LuaJIT's tostring says "nan" for every NaN.
func formatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		if cgo.HasIntegers && math.Signbit(f) {
			return "-nan"
		}
		return "nan"
	}
	s := strconv.FormatFloat(f, 'g', 14, 64)
	if cgo.HasIntegers && !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

func (g *Gate) readBool(t cgo.Thread, idx int, a *cgo.Arg) (bool, error) {
	if a.Type == int32(cgo.TBoolean) {
		return a.Bool(), nil
	}
	return false, typeError("boolean", g.typeName(t, idx, a))
}

func outOfRange(k reflect.Kind) error {
	return &argError{detail: "number out of range for " + k.String()}
}

// setScalar stores a converted scalar into v, which a refused value leaves
// unchanged; handled is false for kinds that are not scalars.
func (g *Gate) setScalar(t cgo.Thread, idx int, a *cgo.Arg, v reflect.Value) (handled bool, err error) {
	switch k := v.Kind(); k {
	case reflect.Bool:
		b, err := g.readBool(t, idx, a)
		if err == nil {
			v.SetBool(b)
		}
		return true, err
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i, err := g.readInt(t, idx, a)
		if err == nil && v.OverflowInt(i) {
			err = outOfRange(k)
		}
		if err == nil {
			v.SetInt(i)
		}
		return true, err
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u, err := g.readUint(t, idx, a, k)
		if err == nil && v.OverflowUint(u) {
			err = outOfRange(k)
		}
		if err == nil {
			v.SetUint(u)
		}
		return true, err
	case reflect.Float32, reflect.Float64:
		f, err := g.readFloat(t, idx, a)
		if err == nil && v.OverflowFloat(f) { // a finite number beyond float32; ±inf and nan convert
			err = outOfRange(k)
		}
		if err == nil {
			v.SetFloat(f)
		}
		return true, err
	case reflect.String:
		s, err := g.readString(t, idx, a)
		if err == nil {
			v.SetString(s)
		}
		return true, err
	}
	return false, nil
}

// ReadInto converts the Lua value at absolute index idx of t into v (a
// settable value). Nested values need ReadStack free slots. A value it
// refuses leaves v as it was: a struct or array, which the conversion
// fills in place, is read into a copy first (the other kinds are built
// whole and stored once they converted).
func (g *Gate) ReadInto(t cgo.Thread, idx int, v reflect.Value) error {
	if g.overlayAt != nil && v.CanAddr() && v.Addr().UnsafePointer() == g.overlayAt {
		return g.readOver(t, idx, v)
	}
	a := t.Arg(idx)
	if k := v.Kind(); (k == reflect.Struct || k == reflect.Array) && a.Type == int32(cgo.TTable) {
		tmp := reflect.New(v.Type()).Elem()
		if g.overlaying() && k == reflect.Struct {
			tmp.Set(v) // overlay.go: the decode starts from v
		}
		if err := g.read(t, idx, &a, tmp, 0); err != nil {
			return err
		}
		v.Set(tmp)
		return nil
	}
	return g.read(t, idx, &a, v, 0)
}

func (g *Gate) read(t cgo.Thread, idx int, a *cgo.Arg, v reflect.Value, depth int) error {
	if depth > MaxDepth {
		return errTooDeep
	}
	if depth == 0 {
		g.convStart()
	}
	if err := g.convChargeArg(a, 0); err != nil {
		return err
	}
	if ok, err := g.setScalar(t, idx, a, v); ok {
		return err
	}
	typ := v.Type()
	if typ.Kind() == reflect.Struct && isHandle(typ) {
		// zlua.Function, Table or Thread by value (an out, a parameter, a
		// field): a handle lives at the address the Env gave it (ErrCopied)
		return &argError{detail: "zlua." + typ.Name() + " by value cannot hold a Lua value (use *zlua." + typ.Name() + ")"}
	}
	switch a.Type {
	case int32(cgo.TUserdata):
		if typ.Kind() == reflect.Pointer && isHandle(typ) {
			// a *Table, *Function or *Thread: a userdata is refused as
			// a table or function is expected, unless callable (__call)
			_, err := g.readHandle(t, idx, a, v)
			return err
		}
		if typ.Kind() != reflect.Func { // a func takes a callable userdata (below)
			return g.popUserdata(t, idx, a, v)
		}
	case int32(cgo.TLightUserdata):
		return g.popOpaque(a, v)
	}
	switch typ.Kind() {
	case reflect.Interface:
		if a.Type == int32(cgo.TNil) || a.Type == int32(cgo.TNone) {
			v.SetZero()
			return nil
		}
		x, err := g.naturalOf(t, idx, a, depth, false)
		if err != nil {
			return err
		}
		xv := reflect.ValueOf(x)
		if !xv.Type().AssignableTo(typ) {
			return typeError(luaName(typ), g.typeName(t, idx, a))
		}
		v.Set(xv)
		return nil
	case reflect.Slice:
		if a.Type == int32(cgo.TNil) || a.Type == int32(cgo.TNone) {
			v.SetZero()
			return nil
		}
		if typ.Elem().Kind() == reflect.Uint8 && a.Type != int32(cgo.TTable) {
			// A byte slice takes what luaL_checklstring takes: a string,
			// or a number spelled as tostring spells it (a table of
			// bytes still reads element by element, below).
			var b []byte
			if a.Type == int32(cgo.TString) {
				b = a.Bytes()
			} else {
				s, err := g.readString(t, idx, a)
				if err != nil {
					return err
				}
				b = []byte(s)
				// a string's bytes were counted as read (convChargeArg);
				// a number's spelling was not
				if err := g.convCharge(int64(cap(b))); err != nil {
					return err
				}
			}
			g.storeBuilt(unsafe.Pointer(unsafe.SliceData(b)))
			if cap(b) > 0 { // a ByRef of it is an object (builtindex.go)
				start, epoch := g.freshStart()
				g.noteBuiltValue(unsafe.Pointer(unsafe.SliceData(b)), nil, int64(cap(b)), start, epoch)
			}
			v.SetBytes(b)
			return nil
		}
		if a.Type != int32(cgo.TTable) {
			return typeError("table", g.typeName(t, idx, a))
		}
		if err := g.tableStack(t, depth); err != nil {
			return err
		}
		n := t.RawLen(idx)
		before := g.convBuilt()
		start, epoch := g.freshStart()
		if err := g.convSlice(n, typ.Elem().Size()); err != nil {
			return err
		}
		s := reflect.MakeSlice(typ, n, n)
		if err := g.readSeq(t, idx, s, n, depth); err != nil {
			return err // v unchanged
		}
		g.storeBuilt(s.UnsafePointer())
		if n > 0 && typ.Elem().Size() != 0 { // a ByRef of it is an object (builtindex.go)
			g.noteBuiltValue(s.UnsafePointer(), nil, g.convBuilt()-before, start, epoch)
		}
		v.Set(s)
		return nil
	case reflect.Array:
		if a.Type != int32(cgo.TTable) {
			return typeError("table", g.typeName(t, idx, a))
		}
		n := t.RawLen(idx)
		if n > v.Len() {
			return &argError{detail: "table has " + strconv.Itoa(n) + " elements, " + typ.String() + " holds " + strconv.Itoa(v.Len())}
		}
		if err := g.tableStack(t, depth); err != nil {
			return err
		}
		v.SetZero()
		return g.readSeq(t, idx, v, n, depth)
	case reflect.Map:
		if a.Type == int32(cgo.TNil) || a.Type == int32(cgo.TNone) {
			v.SetZero()
			return nil
		}
		if a.Type != int32(cgo.TTable) {
			return typeError("table", g.typeName(t, idx, a))
		}
		if err := g.tableStack(t, depth); err != nil {
			return err
		}
		if typ == anyMapType { // declared map[any]any: nested tables keep any keys too
			return g.readAnyMap(t, idx, v, depth)
		}
		return g.readMap(t, idx, v, depth)
	case reflect.Func:
		if a.Type == int32(cgo.TNil) || a.Type == int32(cgo.TNone) {
			v.SetZero()
			return nil
		}
		if !g.callableArg(t, idx, a) { // a table's __call may be gone since
			return typeError("function", g.typeName(t, idx, a))
		}
		if dv, ok := g.args.cachedDelegate(g, a, typ); ok {
			v.Set(dv) // the same function lately: its func (argcache.go)
			return nil
		}
		f, err := g.NewFunction(t, idx, "function")
		if err != nil {
			return err
		}
		dv := g.MakeDelegate(f, typ)
		g.args.putDelegate(g, a, f, typ, dv)
		v.Set(dv)
		return nil
	case reflect.Pointer:
		if a.Type == int32(cgo.TNil) || a.Type == int32(cgo.TNone) {
			v.SetZero()
			return nil
		}
		if ok, err := g.readHandle(t, idx, a, v); ok {
			return err
		}
		if typ.Elem().Kind() != reflect.Struct {
			return g.readPointee(t, idx, a, v, depth)
		}
	case reflect.Chan:
		if a.Type == int32(cgo.TNil) || a.Type == int32(cgo.TNone) {
			v.SetZero()
			return nil
		}
	}
	if a.Type == int32(cgo.TTable) { // a struct or *struct decodes from a plain table
		if ok, err := g.readTable(t, idx, v, depth); ok {
			return err
		}
	}
	return typeError(luaName(typ), g.typeName(t, idx, a))
}

// readPointee reads a value other than nil and a userdata into v, a
// pointer to anything but a struct (those decode from tables, below
// read's switch): a new element read with the same rules, so a refusal
// names what the element takes (*int given a string: number expected).
// Each indirection counts as a level of nesting, which ends a recursive
// pointer type (type P *P) as it ends a cycle.
func (g *Gate) readPointee(t cgo.Thread, idx int, a *cgo.Arg, v reflect.Value, depth int) error {
	if a.Type == int32(cgo.TTable) {
		if err := g.tableStack(t, depth); err != nil { // the element's read is not at depth 0
			return err
		}
	}
	e := reflect.New(v.Type().Elem())
	if err := g.read(t, idx, a, e.Elem(), depth+1); err != nil {
		return err
	}
	v.Set(e)
	return nil
}

// tableStack reserves the stack a table read needs before the outermost
// table of a value is read (depth 0): nested tables push two values per
// level. Scalars need no reservation (the stack is reserved lazily, not on
// every call; see cgo.GoStack).
func (g *Gate) tableStack(t cgo.Thread, depth int) error {
	if depth == 0 && !g.S.Reserve(t, ReadStack) {
		return ErrMemory
	}
	return nil
}

// maxKeyText is the longest string key an error path spells whole.
const maxKeyText = 64

// quoteKey quotes a string key for an error path, a long one cut to its
// first maxKeyText bytes and its length: a path through nested tables
// names every level's key, and a script's megabyte keys must not make a
// conversion error megabytes long per level.
func quoteKey(k string) string {
	if len(k) <= maxKeyText {
		return strconv.Quote(k)
	}
	return strconv.Quote(k[:maxKeyText]) + "..." + strconv.Itoa(len(k)) + " bytes"
}

// elemKey spells the key at idx as Lua code indexes a table with it:
// ["name"], [2], [1.5], [true]; other keys by their type, [table].
func (g *Gate) elemKey(t cgo.Thread, idx int, a *cgo.Arg) string {
	switch a.Type {
	case int32(cgo.TString):
		return "[" + quoteKey(a.View()) + "]"
	case int32(cgo.TNumber):
		if a.IsInt() {
			return "[" + strconv.FormatInt(a.Int(), 10) + "]"
		}
		return "[" + formatFloat(a.Num()) + "]"
	case int32(cgo.TBoolean):
		return "[" + strconv.FormatBool(a.Bool()) + "]"
	}
	return "[" + g.typeName(t, idx, a) + "]"
}

// elemError places err, a failure converting the table element at key,
// under that key: element [1]["k"]: number expected, got string.
func elemError(key string, err error) error {
	if err == errTooDeep {
		return err
	}
	return inPath(key, err)
}

// keyError is err, a failure converting the table key key itself:
// key ["x"]: number expected, got string.
func keyError(key string, err error) error {
	if err == errTooDeep {
		return err
	}
	return &argError{detail: "key " + key + ": " + err.Error(), cause: errors.Unwrap(err)}
}
