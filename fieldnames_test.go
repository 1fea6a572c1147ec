package zlua_test

import (
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// Two fields tagged with one Lua name at one depth hide each other, as
// encoding/json and Go's promoted fields do (probe K1 F4: the last one
// declared won, silently).
type tagTwins struct {
	X int32 `lua:"same"`
	Y int32 `lua:"same"`
	Z int32
}

// The rules that pick a winner: the shallower field, then at one depth
// the one whose tag names it.
type tagInner struct {
	Name string
	Tag  int `lua:"Level"`
}

type tagOuter struct {
	tagInner
	Title string `lua:"Name"` // depth 1: wins over the promoted Name
	Level int    // untagged: loses to... nothing at its depth (Tag is deeper)
	A     int    `lua:"B"` // tagged: wins over the untagged B
	B     int
}

func TestFieldsSharingALuaName(t *testing.T) {
	e := newEnv(t)
	tw := &tagTwins{X: 1, Y: 2, Z: 3}
	must(t, e.SetGlobal("tw", tw))
	must(t, e.SetGlobal("twv", tagTwins{X: 1, Y: 2, Z: 3}))
	for _, chunk := range []string{`return tw.same`, `tw.same = 5`, `return twv.same`} {
		err := e.DoString(chunk)
		if err == nil || !strings.Contains(err.Error(), "tagTwins has no field") || !strings.Contains(err.Error(), "'same'") {
			t.Errorf("%s: %v, want no field 'same'", chunk, err)
		}
	}
	run(t, e, `assert(tw.Z == 3); tw.Z = 4; cfg = {same = 9, Z = 7}`)
	var d tagTwins
	must(t, e.Global("cfg", &d))
	if tw.Z != 4 || (d != tagTwins{Z: 7}) {
		t.Errorf("tw = %+v, decoded %+v; want Z 4 and {Z: 7}", *tw, d)
	}
	must(t, e.SetGlobal("plain", zlua.AsTable(tagTwins{X: 1, Y: 2, Z: 3})))
	run(t, e, `local n = 0; for k in pairs(plain) do n = n + 1 end
		assert(n == 1 and plain.Z == 3 and plain.same == nil)`)

	o := &tagOuter{tagInner: tagInner{Name: "inner", Tag: 1}, Title: "title", Level: 2, A: 3, B: 4}
	must(t, e.SetGlobal("o", o))
	run(t, e, `assert(o.Name == "title", o.Name)
		assert(o.Level == 2, o.Level)
		assert(o.B == 3, o.B)
		o.Name, o.Level, o.B = "t2", 20, 30`)
	if o.Title != "t2" || o.Level != 20 || o.A != 30 || o.tagInner.Name != "inner" || o.Tag != 1 || o.B != 4 {
		t.Errorf("o = %+v", *o)
	}
	run(t, e, `cfg = {Name = "n", Level = 5, B = 6}`)
	var od tagOuter
	must(t, e.Global("cfg", &od))
	if od.Title != "n" || od.Level != 5 || od.A != 6 || od.tagInner != (tagInner{}) || od.B != 0 {
		t.Errorf("decoded %+v", od)
	}
}

// Names decided by Lua names, not first by Go names (probe L1 F2): a
// deeper field renamed by its tag is seen when nothing else has its Lua
// name, and a field hidden by lua:"-" does not hide the deeper one of
// its Go name.
type nmH struct {
	X int `lua:"hx"`
}
type nmRenamed struct {
	nmH
	X int
}
type nmA struct {
	K int `lua:"K"`
}
type nmB struct{ K int }
type nmTaggedWins struct {
	nmA
	nmB
}
type nmI struct{ X int }
type nmHidden struct {
	nmI
	X int `lua:"-"`
}

func TestFieldNamesDecidedByLuaNames(t *testing.T) {
	e := newEnv(t)
	r := &nmRenamed{nmH: nmH{X: 11}, X: 22}
	w := &nmTaggedWins{nmA: nmA{K: 1}, nmB: nmB{K: 2}}
	h := &nmHidden{nmI: nmI{X: 5}, X: 6}
	must(t, e.SetGlobal("r", r))
	must(t, e.SetGlobal("w", w))
	must(t, e.SetGlobal("h", h))
	run(t, e, `
		assert(r.hx == 11 and r.X == 22); r.hx = 12
		assert(w.K == 1); w.K = 3
		assert(h.X == 5); h.X = 7
		cr, cw, ch = {hx = 1, X = 2}, {K = 9}, {X = 8}`)
	if r.nmH.X != 12 || r.X != 22 || w.nmA.K != 3 || w.nmB.K != 2 || h.nmI.X != 7 || h.X != 6 {
		t.Errorf("writes: %+v %+v %+v", *r, *w, *h)
	}
	var dr nmRenamed
	var dw nmTaggedWins
	var dh nmHidden
	must(t, e.Global("cr", &dr))
	must(t, e.Global("cw", &dw))
	must(t, e.Global("ch", &dh))
	if dr != (nmRenamed{nmH: nmH{X: 1}, X: 2}) || dw != (nmTaggedWins{nmA: nmA{K: 9}}) || dh != (nmHidden{nmI: nmI{X: 8}}) {
		t.Errorf("decoded %+v %+v %+v", dr, dw, dh)
	}
}
