package callbackgate

import (
	"math"
	"reflect"
	"strings"
	"unsafe"

	"github.com/zlua-go/zlua/cgo"
)

// decodeFlat fills v (addressable, zeroed first) from kv, the pairs of a
// table read in one crossing (cgo.Thread.ReadPairs), for a flat plan:
// the same keys and precedence as decodeStruct's walk, each value stored
// through the field's offset by its kind. It reports false, leaving v
// partly filled, for any value the plain conversion rules would treat
// otherwise than the common case (a numeric string, a number out of
// range, a type mismatch): decodeStruct then decodes the table again with
// those rules, errors and wording.
//
// A script usually passes tables of one shape, built by one constructor:
// the same keys in the same traversal order. The gate remembers, per pair
// position, the field the key named last time and the string value it
// stored, so a repeated key is found by one string comparison instead of
// a map lookup, and a repeated string value is shared instead of copied
// (Go strings are immutable).
func (g *Gate) decodeFlat(v reflect.Value, p *tablePlan, kv []cgo.Arg) bool {
	if !g.overlaying() {
		v.SetZero()
	}
	base := unsafe.Pointer(v.UnsafeAddr())
	fc := &g.flat
	if fc.plan != p {
		*fc = flatCache{plan: p}
	}
	var seen, folded uint64
	for i := 0; i < len(kv); i += 2 {
		if kv[i].Type != int32(cgo.TString) {
			continue
		}
		j := i / 2
		key := kv[i].View()
		f, exact := fc.field[j], true
		if f == nil || f.name != key {
			f, exact = p.lookup(key)
			fc.field[j], fc.str[j] = nil, ""
			if exact {
				fc.field[j] = f
			}
		}
		if f == nil {
			continue
		}
		bit := uint64(1) << f.pos
		if exact {
			seen |= bit
		} else if seen&bit != 0 {
			continue
		} else if folded&bit != 0 {
			return false // two case-insensitive keys: decodeStruct decides
		} else {
			folded |= bit
		}
		ptr, a := unsafe.Add(base, f.off), &kv[i+1]
		if f.kind == reflect.String && a.Type == int32(cgo.TString) {
			if s := a.View(); fc.str[j] != s || fc.field[j] != f {
				if g.convCharge(int64(len(s))) != nil {
					return false // decodeStruct reads it again and says why
				}
				fc.str[j] = strings.Clone(s)
				g.storeBuilt(unsafe.Pointer(unsafe.StringData(fc.str[j])))
			}
			*(*string)(ptr) = fc.str[j]
			if g.stores.tracking && len(fc.str[j]) >= storeMin {
				// a store's charge ends when its strings die: the
				// cache must not keep one alive
				fc.str[j] = ""
			}
			continue
		}
		if !storeFlat(ptr, f.kind, a) {
			return false
		}
	}
	return true
}

// flatCache is decodeFlat's memory of the last table shape decoded with
// plan, per pair position: the field its key named exactly, and the
// string value last stored there.
type flatCache struct {
	plan  *tablePlan
	field [cgo.MaxPairs]*tableField
	str   [cgo.MaxPairs]string
}

// storeFlat stores a into the field of kind k at ptr when a is a value
// of the field's own Lua type that fits: an integer for integer kinds, a
// number for floats, a boolean, a string.
func storeFlat(ptr unsafe.Pointer, k reflect.Kind, a *cgo.Arg) bool {
	switch k {
	case reflect.Bool:
		if a.Type != int32(cgo.TBoolean) {
			return false
		}
		*(*bool)(ptr) = a.Bool()
		return true
	case reflect.String:
		if a.Type != int32(cgo.TString) {
			return false
		}
		*(*string)(ptr) = strings.Clone(a.View())
		return true
	case reflect.Float64, reflect.Float32:
		if a.Type != int32(cgo.TNumber) {
			return false
		}
		f := a.Num()
		if a.IsInt() {
			f = float64(a.Int())
		}
		if k == reflect.Float64 {
			*(*float64)(ptr) = f
			return true
		}
		if math.Abs(f) > math.MaxFloat32 && !math.IsInf(f, 0) {
			return false // out of range: the plain rules say so
		}
		*(*float32)(ptr) = float32(f)
		return true
	}
	if a.Type != int32(cgo.TNumber) {
		return false
	}
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i := a.Int()
		if !a.IsInt() {
			var err error
			if i, err = floatToInt(a.Num()); err != nil {
				return false
			}
		}
		return storeInt(ptr, k, i)
	}
	var u uint64
	if a.IsInt() {
		if a.Int() < 0 {
			return false
		}
		u = uint64(a.Int())
	} else {
		var err error
		if u, err = floatToUint(a.Num(), k); err != nil {
			return false
		}
	}
	return storeUint(ptr, k, u)
}

// storeInt stores i into a signed integer field of kind k if it fits.
func storeInt(ptr unsafe.Pointer, k reflect.Kind, i int64) bool {
	switch k {
	case reflect.Int:
		if int64(int(i)) != i {
			return false
		}
		*(*int)(ptr) = int(i)
	case reflect.Int64:
		*(*int64)(ptr) = i
	case reflect.Int32:
		if int64(int32(i)) != i {
			return false
		}
		*(*int32)(ptr) = int32(i)
	case reflect.Int16:
		if int64(int16(i)) != i {
			return false
		}
		*(*int16)(ptr) = int16(i)
	case reflect.Int8:
		if int64(int8(i)) != i {
			return false
		}
		*(*int8)(ptr) = int8(i)
	}
	return true
}

// storeUint stores u into an unsigned integer field of kind k if it fits.
func storeUint(ptr unsafe.Pointer, k reflect.Kind, u uint64) bool {
	switch k {
	case reflect.Uint:
		if uint64(uint(u)) != u {
			return false
		}
		*(*uint)(ptr) = uint(u)
	case reflect.Uintptr:
		if uint64(uintptr(u)) != u {
			return false
		}
		*(*uintptr)(ptr) = uintptr(u)
	case reflect.Uint64:
		*(*uint64)(ptr) = u
	case reflect.Uint32:
		if uint64(uint32(u)) != u {
			return false
		}
		*(*uint32)(ptr) = uint32(u)
	case reflect.Uint16:
		if uint64(uint16(u)) != u {
			return false
		}
		*(*uint16)(ptr) = uint16(u)
	case reflect.Uint8:
		if uint64(uint8(u)) != u {
			return false
		}
		*(*uint8)(ptr) = uint8(u)
	}
	return true
}
