package callbackgate

import (
	"reflect"

	"github.com/zlua-go/zlua/cgo"
)

// The maps a game host most often hands scripts by reference are keyed
// by string and hold numbers, strings or booleans (inventories, stats,
// flags). Their element reads and writes with a string key skip the
// reflective path, which made 4 allocations per access (the key's and
// the element's reflect.Value, the key's string, the element's boxing;
// outside probe C2-F4): a read looks the key up as a view of the Lua
// string (no copy) and returns the scalar without a push program; a write
// copies the key once, the Go map's own string. Named map types, other
// element types, deletions (t[k] = nil), writes under a memory limit
// (charged, storeelems.go) and every value the plain conversion would
// treat otherwise (its error included) take the reflective path, which
// gives the same result.

// mapGetFast serves ov[key] (ov a map) when the map is one of the types
// above and key a string; served is false otherwise.
func (g *Gate) mapGetFast(fr cgo.Frame, ov reflect.Value, key *cgo.Arg) (st int32, served bool) {
	if key.Type != int32(cgo.TString) || !ov.CanInterface() {
		return 0, false
	}
	k := key.View() // only looked up: the map keeps no reference to it
	switch m := ov.Interface().(type) {
	case map[string]int:
		if v, ok := m[k]; ok {
			return retInt(fr, int64(v)), true
		}
	case map[string]int64:
		if v, ok := m[k]; ok {
			return retInt(fr, v), true
		}
	case map[string]float64:
		if v, ok := m[k]; ok {
			return retNum(fr, v), true
		}
	case map[string]string:
		if v, ok := m[k]; ok {
			return g.retStr(v), true
		}
	case map[string]bool:
		if v, ok := m[k]; ok {
			fr.ReturnBool(v)
			return cgo.StatusReturn1, true
		}
	default:
		return 0, false
	}
	fr.ReturnNil() // absent, as in a table
	return cgo.StatusReturn1, true
}

// mapSetFast serves ov[key] = value (argument 3) for the maps above, a
// string key and a value that converts plainly, outside a memory limit;
// served is false otherwise (the caller then takes the reflective path).
func (g *Gate) mapSetFast(fr cgo.Frame, ov reflect.Value, key *cgo.Arg) (st int32, served bool) {
	if key.Type != int32(cgo.TString) || !ov.CanInterface() || ov.IsNil() || g.S.MemoryLimit() != 0 {
		return 0, false
	}
	a := arg(fr, 2)
	if a.Type == int32(cgo.TNil) { // a deletion
		return 0, false
	}
	t := fr.Thread()
	switch m := ov.Interface().(type) {
	case map[string]int:
		v, err := g.readInt(t, 3, &a)
		if err != nil {
			return 0, false
		}
		m[key.String()] = int(v)
	case map[string]int64:
		v, err := g.readInt(t, 3, &a)
		if err != nil {
			return 0, false
		}
		m[key.String()] = v
	case map[string]float64:
		v, err := g.readFloat(t, 3, &a)
		if err != nil {
			return 0, false
		}
		m[key.String()] = v
	case map[string]string:
		v, err := g.readString(t, 3, &a)
		if err != nil {
			return 0, false
		}
		m[key.String()] = v
	case map[string]bool:
		v, err := g.readBool(t, 3, &a)
		if err != nil {
			return 0, false
		}
		m[key.String()] = v
	default:
		return 0, false
	}
	return g.ret0(), true
}
