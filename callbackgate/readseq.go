package callbackgate

import (
	"reflect"
	"strconv"

	"github.com/zlua-go/zlua/cgo"
)

// Tables decode in runs (outside probe C2-F3): C reads up to cgo.SeqMax
// values of a sequence (cgo.Thread.ReadSeq), or half as many pairs of a
// map (NextPairs), in one crossing, where one element cost four or five.
// Only values a conversion reads from their cgo.Arg alone come in a run:
// nil, booleans, numbers, and strings unless the Go kind is a number (a
// numeric string converts with Lua's rules, on the stack). A run stops
// before any other value, which is read on the stack as before, so the
// results and errors are the same value for value. The run's buffer
// (g.seq) is reused by nested reads: every value of a run is converted
// before the value that stopped it is read, and only that one can nest.

// seqAccept is the mask of Lua types (1<<type) whose values convert into
// a Go value of kind k from their cgo.Arg alone; 0 for the kinds whose
// conversion may need the value on the stack.
func seqAccept(k reflect.Kind) uint {
	switch k {
	case reflect.Bool, reflect.String, reflect.Interface:
		return cgo.Scalars
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return cgo.Scalars &^ (1 << cgo.TString)
	}
	return 0
}

// seqBuf is the gate's run buffer.
func (g *Gate) seqBuf() *cgo.Seq {
	if g.seq == nil {
		g.seq = new(cgo.Seq)
	}
	return g.seq
}

// readSeq fills v[0:n] from t[1..n] of the table at idx.
func (g *Gate) readSeq(t cgo.Thread, idx int, v reflect.Value, n, depth int) error {
	accept := seqAccept(v.Type().Elem().Kind())
	for i := 0; i < n; i++ {
		if accept != 0 {
			var err error
			if i, err = g.readSeqRuns(t, idx, v, i, n, accept, depth); err != nil || i == n {
				return err
			}
		}
		t.RawGetI(idx, int64(i+1))
		top := t.Top()
		a := t.Arg(top)
		err := g.read(t, top, &a, v.Index(i), depth+1)
		t.Pop(1)
		if err != nil {
			return elemError("["+strconv.Itoa(i+1)+"]", err)
		}
	}
	return nil
}

// readSeqRuns fills v[i:] from runs of t[i+1..n] while their values are
// of the types accept names, and returns the index of the first element
// it did not fill (n when it filled them all).
func (g *Gate) readSeqRuns(t cgo.Thread, idx int, v reflect.Value, i, n int, accept uint, depth int) (int, error) {
	buf := g.seqBuf()
	for i < n {
		want := min(n-i, cgo.SeqMax)
		got := t.ReadSeq(idx, int64(i+1), want, accept, buf)
		for j := range got {
			if err := g.read(t, 0, &buf[j], v.Index(i+j), depth+1); err != nil {
				return i + j, elemError("["+strconv.Itoa(i+j+1)+"]", err)
			}
		}
		if i += got; got < want {
			break
		}
	}
	return i, nil
}

func (g *Gate) readMap(t cgo.Thread, idx int, v reflect.Value, depth int) error {
	typ := v.Type()
	before := g.convBuilt()
	start, epoch := g.freshStart()
	// The budget counts the map's header, groups and fill as overhead:
	// the store charge of what was built (convBuilt) counts its entries
	// as the charge walk measures them.
	slot := int64(typ.Key().Size() + typ.Elem().Size())
	if err := g.convOverhead(mapBytes(0, slot)); err != nil { // the header and a first group
		return err
	}
	m := reflect.MakeMap(typ)
	g.storeBuilt(m.UnsafePointer())
	k := reflect.New(typ.Key()).Elem()
	e := reflect.New(typ.Elem()).Elem()
	count := 0
	kacc, vacc := seqAccept(typ.Key().Kind()), seqAccept(typ.Elem().Kind())
	base := t.Top()
	t.PushNil()
	for {
		top := 0
		if kacc != 0 && vacc != 0 {
			buf := g.seqBuf()
			got, st := t.NextPairs(idx, kacc, vacc, buf)
			for j := 0; j < 2*got; j += 2 {
				count++
				if err := g.mapPair(t, 0, &buf[j], &buf[j+1], m, k, e, slot, depth); err != nil {
					t.SetTop(base) // the traversal's key, and a pair it stopped before
					return err
				}
			}
			if st == cgo.PairsEnd {
				break
			}
			if st == cgo.PairsMore {
				continue
			}
			top = base + 2 // cgo.PairsStop: [key, value] on top
		} else if !t.Next(idx) {
			break
		} else {
			top = t.Top()
		}
		count++
		ka, ea := t.Arg(top-1), t.Arg(top)
		if err := g.mapPair(t, top-1, &ka, &ea, m, k, e, slot, depth); err != nil {
			t.Pop(2)
			return err
		}
		t.Pop(1)
	}
	if m.Len() != count { // two keys became one (collide.go)
		if err := g.mapKeyClash(t, idx, typ.Key(), depth); err != nil {
			return err
		}
	}
	if g.overlaying() && !v.IsNil() { // overlay.go: v's entries the table lacks stay
		for it := v.MapRange(); it.Next(); {
			if !m.MapIndex(it.Key()).IsValid() {
				m.SetMapIndex(it.Key(), it.Value())
			}
		}
	}
	g.noteBuiltValue(m.UnsafePointer(), nil, g.convBuilt()-before, start, epoch)
	v.Set(m)
	return nil
}

// mapPair converts the pair ka, ea into k and e (scratch values of m's
// key and element types) and stores it in m. kIdx is the key's stack
// index, the value's is kIdx+1; 0 for a pair of a run, whose values
// convert from their cgo.Arg alone.
func (g *Gate) mapPair(t cgo.Thread, kIdx int, ka, ea *cgo.Arg, m, k, e reflect.Value, slot int64, depth int) error {
	vIdx := 0
	if kIdx != 0 {
		vIdx = kIdx + 1
	}
	k.SetZero()
	e.SetZero()
	if err := g.read(t, kIdx, ka, k, depth+1); err != nil {
		return keyError(g.elemKey(t, kIdx, ka), err)
	}
	if err := g.read(t, vIdx, ea, e, depth+1); err != nil {
		return elemError(g.elemKey(t, kIdx, ka), err)
	}
	if !k.Comparable() {
		return &argError{detail: "a " + g.typeName(t, kIdx, ka) + " key cannot be a Go map key"}
	}
	if err := g.convCharge(slot); err != nil {
		return err
	}
	if err := g.convOverhead(slot/7 + 1); err != nil { // the groups' 7/8 fill and a control byte
		return err
	}
	m.SetMapIndex(k, e)
	return nil
}

// naturalSeqRuns is readSeqRuns for natural: it fills s[i:] with the
// natural forms of runs of scalars from t[i+1..len(s)] of the table at idx.
func (g *Gate) naturalSeqRuns(t cgo.Thread, idx int, s []any, i, depth int, anyKeys bool) (int, error) {
	buf := g.seqBuf()
	for i < len(s) {
		want := min(len(s)-i, cgo.SeqMax)
		got := t.ReadSeq(idx, int64(i+1), want, cgo.Scalars, buf)
		for j := range got {
			x, err := g.naturalAs(t, 0, &buf[j], depth+1, anyKeys)
			if err != nil {
				return i + j, elemError("["+strconv.Itoa(i+j+1)+"]", err)
			}
			s[i+j] = x
		}
		if i += got; got < want {
			break
		}
	}
	return i, nil
}

// pairsRuns is readSeqRuns for Table.Pairs: it appends to kv the natural
// forms of the pairs of scalars in runs of the pairs' copy at copyIdx
// (k1, v1, k2, v2, ...: n values) from the key at i, and returns the index
// of the first key whose pair it did not convert.
func (g *Gate) pairsRuns(t cgo.Thread, copyIdx int, kv *[]any, i, n int) (int, error) {
	buf := g.seqBuf()
	for i < n {
		want := min(n-i+1, cgo.SeqMax)
		got := t.ReadSeq(copyIdx, int64(i), want, cgo.Scalars, buf)
		for j := 0; j+1 < got; j += 2 {
			k, err := g.natural(t, 0, &buf[j], 0)
			if err != nil {
				return i + j, keyError(g.elemKey(t, 0, &buf[j]), err)
			}
			v, err := g.natural(t, 0, &buf[j+1], 0)
			*kv = append(*kv, k, v)
			if err != nil {
				return i + j, elemError(g.elemKey(t, 0, &buf[j]), err)
			}
		}
		if i += got &^ 1; got < want {
			break
		}
	}
	return i, nil
}
