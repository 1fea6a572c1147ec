package zlua_test

import (
	"strings"
	"testing"

	"github.com/zlua-go/zlua/internal/twintypes"
)

// Two Go types with one name (zlua_test.Player, twintypes.Player: see
// types_test.go) are
// told apart in every refusal that names both, instead of "Player
// expected, got Player"; a mismatch of differently named types keeps the
// short names.
func TestSameNamedTypesAreQualifiedInErrors(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("mine", &Player{HP: 5}))
	must(t, e.SetGlobal("theirs", &twintypes.Player{HP: 5}))
	must(t, e.SetGlobal("myvec", Vec{1, 2}))
	must(t, e.SetGlobal("theirvec", twintypes.Vec{X: 1, Y: 2}))
	must(t, e.SetGlobal("hitMine", func(p *Player) int { return p.HP }))
	must(t, e.SetGlobal("takeVec", func(v Vec) float64 { return v.X }))
	must(t, e.SetGlobal("takeVecPtr", func(v *Vec) float64 { return v.X }))
	for _, c := range []struct{ chunk, want string }{
		{"hitMine(theirs)", "bad argument #1 to 'hitMine' (zlua_test.Player expected, got twintypes.Player)"},
		{"mine.Heal(theirs, 1)", "calling 'Player:Heal' on bad self (zlua_test.Player expected, got twintypes.Player)"},
		{"theirs.Heal(mine, 1)", "calling 'Player:Heal' on bad self (twintypes.Player expected, got zlua_test.Player)"},
		{"takeVec(theirvec)", "bad argument #1 to 'takeVec' (zlua_test.Vec expected, got twintypes.Vec)"},
		{"theirvec.Len(myvec)", "calling 'Vec:Len' on bad self (twintypes.Vec expected, got zlua_test.Vec)"},
		{"takeVecPtr(theirvec)", "bad argument #1 to 'takeVecPtr' (zlua_test.Vec expected, got twintypes.Vec)"},
		// different names stay short
		{"hitMine(myvec)", "bad argument #1 to 'hitMine' (Player expected, got Vec)"},
		{"mine.Heal(myvec, 1)", "calling 'Player:Heal' on bad self (Player expected, got Vec)"},
		// the same type keeps its short name
		{"takeVecPtr(myvec)", "bad argument #1 to 'takeVecPtr' (*Vec expected, got Vec value (a copy has no Go address))"},
	} {
		err := e.DoString(c.chunk)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v\n want %q", c.chunk, err, c.want)
		}
	}
}

// scaleVec has a method with a pointer receiver, which its copies lack.
type scaleVec struct{ X float64 }

func (v *scaleVec) Scale(k float64) { v.X *= k }
func (v scaleVec) Len() float64     { return v.X }

// A struct copy's missing method that its pointer type has is named as
// such, with the remedy; a name that is nowhere keeps the plain error.
func TestCopyLacksPointerMethodsSaysWhy(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("v", scaleVec{3}))
	must(t, e.SetGlobal("p", &scaleVec{3}))
	run(t, e, "p:Scale(2); assert(p.X == 6); assert(v:Len() == 3)")
	for _, c := range []struct{ chunk, want string }{
		{"v:Scale(2)", "scaleVec has no field or method 'Scale' (the method has a pointer receiver, and a struct copy has no Go address: push *scaleVec)"},
		{"v:Nope(2)", "scaleVec has no field or method 'Nope'"},
	} {
		err := e.DoString(c.chunk)
		if err == nil || !strings.HasSuffix(strings.SplitN(err.Error(), "\n", 2)[0], c.want) {
			t.Errorf("%s: %v\n want %q", c.chunk, err, c.want)
		}
	}
}
