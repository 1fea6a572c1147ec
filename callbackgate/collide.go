package callbackgate

import (
	"reflect"
	"sort"
	"strconv"

	"github.com/zlua-go/zlua/cgo"
)

// Distinct Lua keys that become one Go key (eighteenth round). A table
// decoded into a Go map can hold keys Lua keeps apart and Go does not:
// ["1"] and [1] into map[int]string or map[string]string, " 1 ", "0x1"
// and "1.0" into map[int]…, [1.5] and ["1.5"] into map[float64]…, two
// equal ByVal copies into map[any]any. Keeping one would depend on the
// traversal order (Lua 5.4 seeds its string hashes per state), so it is
// an error. The decoding loops only count their pairs; when the map ends
// up smaller, sameKeys walks the table again to name two keys. A struct
// field matched case-insensitively by two keys with no exact key is the
// same failure (foldClash).

// sameKeys walks the table at idx again after its pairs converted to fewer
// Go map keys than it has, converting each key with conv (false: a key
// that cannot collide, or failed), and returns the error naming two keys
// with one Go key: of every such group, the two spellings first in byte
// order, and of the groups the first one, so the text does not depend on
// the traversal order. nil if it finds none.
func (g *Gate) sameKeys(t cgo.Thread, idx int, conv func(top int, ka *cgo.Arg) (any, bool)) error {
	spell := map[any][]string{}
	t.PushNil()
	for t.Next(idx) {
		top := t.Top()
		ka := t.Arg(top - 1)
		switch ka.Type {
		case int32(cgo.TFunction), int32(cgo.TThread):
			// a new handle each: never the same Go key
		default:
			if k, ok := conv(top-1, &ka); ok {
				spell[k] = append(spell[k], g.elemKey(t, top-1, &ka))
			}
		}
		t.Pop(1)
	}
	var a, b string
	for _, s := range spell {
		if len(s) < 2 {
			continue
		}
		sort.Strings(s)
		if a == "" || s[0] < a || s[0] == a && s[1] < b {
			a, b = s[0], s[1]
		}
	}
	if a == "" {
		return nil
	}
	return &argError{detail: "key " + a + ": converts to the same Go key as " + b}
}

// mapKeyClash is sameKeys for a table read into a map of key type kt.
func (g *Gate) mapKeyClash(t cgo.Thread, idx int, kt reflect.Type, depth int) error {
	return g.sameKeys(t, idx, func(top int, ka *cgo.Arg) (any, bool) {
		k := reflect.New(kt).Elem()
		if g.read(t, top, ka, k, depth+1) != nil || !k.Comparable() {
			return nil, false
		}
		x := k.Interface()
		switch k.Type() {
		case tableType, functionType, threadType: // a new handle: never the same key
			ReleaseAll([]any{x})
			return nil, false
		}
		return x, true
	})
}

// naturalKeyClash is sameKeys for a table read into its natural form.
func (g *Gate) naturalKeyClash(t cgo.Thread, idx int, depth int, anyKeys bool) error {
	return g.sameKeys(t, idx, func(top int, ka *cgo.Arg) (any, bool) {
		if ka.Type == int32(cgo.TTable) {
			return nil, false // refused as a key
		}
		k, err := g.naturalAs(t, top, ka, depth+1, anyKeys)
		if err != nil || !reflect.ValueOf(k).Comparable() {
			return nil, false
		}
		return k, true
	})
}

// foldClash walks the table at idx again after decodeStruct applied two
// case-insensitive keys to one field (a bit of twice) that no exact key
// named (exact), and names two of them: of the first such field, the two
// keys first in byte order.
func (g *Gate) foldClash(t cgo.Thread, idx int, p *tablePlan, twice, exact []uint64) error {
	var f *tableField
	var keys []string
	var kv [2]cgo.Arg
	for top := t.NextPair(idx, &kv, true); top != 0; top = t.NextPair(idx, &kv, false) {
		if kv[0].Type != int32(cgo.TString) {
			continue
		}
		kf, isExact := p.lookup(kv[0].View())
		if kf == nil || isExact || (twice[kf.pos/64]&^exact[kf.pos/64])&(1<<(kf.pos%64)) == 0 {
			continue
		}
		if f == nil || kf.pos < f.pos {
			f, keys = kf, keys[:0]
		}
		if kf == f {
			keys = append(keys, kv[0].String())
		}
	}
	sort.Strings(keys)
	return &argError{detail: "key [" + strconv.Quote(keys[0]) + "]: matches field " + f.name +
		" case-insensitively, as [" + strconv.Quote(keys[1]) + "] does"}
}
