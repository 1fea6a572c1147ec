package callbackgate

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"unsafe"

	"github.com/zlua-go/zlua/cgo"
)

// The natural Go form of Lua values: what reaches a Go any.

// natural converts a Lua value to its natural Go form: nil, bool, int64
// (integers, and on LuaJIT integral numbers below 2^53 but -0), float64, string,
// []any for sequences, map[string]any for tables whose keys are all
// strings, map[any]any for other tables.
func (g *Gate) natural(t cgo.Thread, idx int, a *cgo.Arg, depth int) (any, error) {
	return g.naturalAs(t, idx, a, depth, false)
}

// naturalAs is natural; anyKeys makes every non-sequence table a
// map[any]any (below a declared map[any]any).
func (g *Gate) naturalAs(t cgo.Thread, idx int, a *cgo.Arg, depth int, anyKeys bool) (any, error) {
	if depth > MaxDepth {
		return nil, errTooDeep
	}
	if depth == 0 {
		g.convStart()
	}
	if err := g.convChargeArg(a, 0); err != nil { // a string's copy
		return nil, err
	}
	return g.naturalOf(t, idx, a, depth, anyKeys)
}

// naturalOf is naturalAs for a value the conversion has counted already
// (read's, for a Go interface: counting it again counted a string inside
// a struct twice).
func (g *Gate) naturalOf(t cgo.Thread, idx int, a *cgo.Arg, depth int, anyKeys bool) (any, error) {
	switch a.Type {
	case int32(cgo.TNil), int32(cgo.TNone):
		return nil, nil
	case int32(cgo.TBoolean):
		return a.Bool(), nil
	case int32(cgo.TNumber):
		if a.IsInt() {
			return a.Int(), nil
		}
		f := a.Num()
		// LuaJIT: an integral float below 2^53 is an int64, but -0.0
		// keeps its sign as a float64 (an int64 zero has none).
		if !cgo.HasIntegers && f == math.Trunc(f) && math.Abs(f) < 1<<53 && (f != 0 || !math.Signbit(f)) {
			return int64(f), nil
		}
		return f, nil
	case int32(cgo.TString):
		str := a.String()
		if len(str) > 0 {
			g.storeBuilt(unsafe.Pointer(unsafe.StringData(str)))
		}
		return str, nil
	case int32(cgo.TTable):
		if err := g.tableStack(t, depth); err != nil {
			return nil, err
		}
		return g.naturalTable(t, idx, depth, anyKeys)
	case int32(cgo.TUserdata):
		if x, ok, err := g.naturalStruct(t, idx, a); ok {
			return x, err
		}
		s, _, ok, err := g.objAt(t, idx, a)
		if err != nil {
			return nil, err
		}
		if ok {
			return g.objs.Val(s), nil
		}
	case int32(cgo.TFunction):
		f, err := g.NewFunction(t, idx, "function")
		if err != nil {
			return nil, err
		}
		return pubFunction(f), nil
	case int32(cgo.TThread):
		th, err := g.NewThreadRef(t, idx)
		if err != nil {
			return nil, err
		}
		return pubThread(th), nil
	}
	return nil, cannotConvert(g.typeName(t, idx, a))
}

// cannotConvert is the failure of a value without a Go form (another
// library's userdata, a light userdata) reaching any.
func cannotConvert(typeName string) error {
	article := "a "
	// "an opaque handle", but "a userdata", as Lua says (probe E1-M7)
	if typeName != "" && strings.ContainsRune("aeio", rune(typeName[0])) {
		article = "an "
	}
	return &argError{detail: "cannot convert " + article + typeName + " to a Go value"}
}

func (g *Gate) naturalTable(t cgo.Thread, idx int, depth int, anyKeys bool) (any, error) {
	// A sequence has exactly the keys 1..n: a pair count equal to #t is
	// not enough ({1, nil, 3, x = 1} has three pairs and #t 3 on 5.4).
	count, seq := t.CountPairs(idx)
	if seq {
		if err := g.convCharge(int64(count) * convAnyBytes); err != nil {
			return nil, err
		}
		if err := g.convOverhead(int64(count)*convBoxBytes + convSliceBoxBytes); err != nil {
			return nil, err
		}
		s := make([]any, count)
		g.storeBuilt(unsafe.Pointer(unsafe.SliceData(s)))
		for i := 0; i < len(s); i++ {
			var err error
			if i, err = g.naturalSeqRuns(t, idx, s, i, depth, anyKeys); err != nil {
				return nil, err
			}
			if i == len(s) {
				break
			}
			t.RawGetI(idx, int64(i+1))
			top := t.Top()
			a := t.Arg(top)
			x, err := g.naturalAs(t, top, &a, depth+1, anyKeys)
			t.Pop(1)
			if err != nil {
				return nil, elemError("["+strconv.Itoa(i+1)+"]", err)
			}
			s[i] = x
		}
		return s, nil
	}
	return g.naturalMap(t, idx, count, depth, anyKeys)
}

// naturalMap reads a table of count pairs into a map[string]any while
// every key is a string (moving to a map[any]any at the first other key),
// or into a map[any]any from the start when anyKeys is set.
func (g *Gate) naturalMap(t cgo.Thread, idx int, count, depth int, anyKeys bool) (any, error) {
	var sm map[string]any
	var m map[any]any
	if err := g.convOverhead(mapBytes(count, 2*convAnyBytes) + int64(count)*convBoxBytes); err != nil {
		return nil, err
	}
	if anyKeys {
		m = make(map[any]any, count)
		g.storeBuilt(reflect.ValueOf(m).UnsafePointer())
	} else {
		sm = make(map[string]any, count)
		g.storeBuilt(reflect.ValueOf(sm).UnsafePointer())
	}
	nm := natMap{sm: sm, m: m, count: count}
	n := 0
	base := t.Top()
	t.PushNil()
	for {
		// runs of scalar pairs (readseq.go); a pair with a table, a
		// function, a userdata or a thread is read on the stack
		got, st := t.NextPairs(idx, cgo.Scalars, cgo.Scalars, g.seqBuf())
		for j := 0; j < 2*got; j += 2 {
			n++
			if err := g.naturalPair(t, 0, &g.seq[j], &g.seq[j+1], &nm, depth, anyKeys); err != nil {
				t.SetTop(base) // the traversal's key, and a pair it stopped before
				return nil, err
			}
		}
		if st == cgo.PairsEnd {
			break
		}
		if st == cgo.PairsMore {
			continue
		}
		n++
		top := base + 2
		ka, ea := t.Arg(top-1), t.Arg(top)
		if err := g.naturalPair(t, top-1, &ka, &ea, &nm, depth, anyKeys); err != nil {
			t.Pop(2)
			return nil, err
		}
		t.Pop(1)
	}
	sm, m = nm.sm, nm.m
	if sm != nil {
		return sm, nil // distinct strings: distinct keys
	}
	if len(m) != n { // two keys became one (collide.go)
		if err := g.naturalKeyClash(t, idx, depth, anyKeys); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// natMap is the map naturalMap builds: sm while every key is a string,
// then m; count sizes m.
type natMap struct {
	sm    map[string]any
	m     map[any]any
	count int
}

// naturalPair converts the pair ka, ea into nm. kIdx is the key's stack
// index, the value's is kIdx+1; 0 for a pair of a run, whose values
// convert from their cgo.Arg alone.
func (g *Gate) naturalPair(t cgo.Thread, kIdx int, ka, ea *cgo.Arg, nm *natMap, depth int, anyKeys bool) error {
	vIdx := 0
	if kIdx != 0 {
		vIdx = kIdx + 1
	}
	if nm.sm != nil && ka.Type == int32(cgo.TString) {
		e, err := g.naturalAs(t, vIdx, ea, depth+1, false)
		if err != nil {
			return elemError(g.elemKey(t, kIdx, ka), err)
		}
		if err := g.convChargeArg(ka, 2*convAnyBytes); err != nil { // the entry and the key's copy
			return err
		}
		nm.sm[ka.String()] = e
		return nil
	}
	if nm.m == nil { // a key that is not a string: the table is keyed by any
		nm.m = make(map[any]any, nm.count)
		g.storeBuilt(reflect.ValueOf(nm.m).UnsafePointer())
		for k, e := range nm.sm {
			nm.m[k] = e
		}
		nm.sm = nil
	}
	var k, e any
	var err error
	if ka.Type == int32(cgo.TTable) {
		err = &argError{detail: "a table key cannot be a Go map key"}
	} else if k, err = g.naturalAs(t, kIdx, ka, depth+1, anyKeys); err != nil {
		err = keyError(g.elemKey(t, kIdx, ka), err)
	} else if !reflect.ValueOf(k).Comparable() {
		err = &argError{detail: "a " + g.typeName(t, kIdx, ka) + " key cannot be a Go map key"}
	} else if e, err = g.naturalAs(t, vIdx, ea, depth+1, anyKeys); err != nil {
		err = elemError(g.elemKey(t, kIdx, ka), err)
	} else {
		err = g.convCharge(2 * convAnyBytes) // the entry
		if err == nil {
			err = g.convOverhead(convBoxBytes) // the key's box (the value's: with the map)
		}
	}
	if err != nil {
		return err
	}
	nm.m[k] = e
	return nil
}
