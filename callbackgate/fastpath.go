package callbackgate

import (
	"reflect"

	"github.com/zlua-go/zlua/cgo"
)

// fastPlans serve common signatures without reflect.Value.Call and without
// allocating (string arguments are the only copies made). The plans are
// generated (shapes_gen.go) from internal/shapegen's FastShapes.
var fastPlans map[reflect.Type]callFunc

func init() { fastPlans = makeFastPlans() }

// The hot plans read numbers with Frame.IntArg/FloatArg, which the
// compiler inlines into them, and call intArgAt/floatArgAt only when that
// fails: a helper holding both (intArg) is too big to be inlined, and
// its call cost two of them a fifth of the Go side of a crossing.

// intArgAt reads argument i (0-based) as an integer the general way (a
// numeric string, or an error); st is 0, or the status of the argument
// error raised for argument argn (1-based, as the error names it; see
// raiseArg for its sign).
func (g *Gate) intArgAt(fr cgo.Frame, i, argn int, name string) (v int64, st int32) {
	v, err := g.intArgSlow(fr, i)
	if err != nil {
		return 0, g.raiseArg(argn, name, err)
	}
	return v, 0
}

// floatArgAt is intArgAt for a float.
func (g *Gate) floatArgAt(fr cgo.Frame, i, argn int, name string) (v float64, st int32) {
	v, err := g.floatArgSlow(fr, i)
	if err != nil {
		return 0, g.raiseArg(argn, name, err)
	}
	return v, 0
}

// intArg reads argument i (0-based) as an integer. Its common cases, a
// number with the integer subtype or an integral float (LuaJIT), are read
// in place (Frame.IntArg); everything else goes to intArgSlow.
func (g *Gate) intArg(fr cgo.Frame, i int) (int64, error) {
	if v, ok := fr.IntArg(i); ok {
		return v, nil
	}
	return g.intArgSlow(fr, i)
}

func (g *Gate) intArgSlow(fr cgo.Frame, i int) (int64, error) {
	a := arg(fr, i)
	return g.readInt(fr.Thread(), i+1, &a)
}

// floatArg reads argument i (0-based) as a float; a float is read in place
// (see intArg), anything else by floatArgSlow.
func (g *Gate) floatArg(fr cgo.Frame, i int) (float64, error) {
	if v, ok := fr.FloatArg(i); ok {
		return v, nil
	}
	return g.floatArgSlow(fr, i)
}

func (g *Gate) floatArgSlow(fr cgo.Frame, i int) (float64, error) {
	a := arg(fr, i)
	return g.readFloat(fr.Thread(), i+1, &a)
}

func (g *Gate) stringArg(fr cgo.Frame, i int) (string, error) {
	a := arg(fr, i)
	return g.readString(fr.Thread(), i+1, &a)
}

// ret0 returns no results: C returns 0 values, no program runs.
func (g *Gate) ret0() int32 { return cgo.StatusReturn0 }

func retInt(fr cgo.Frame, r int64) int32 { return fr.RetInt(r) }

func retNum(fr cgo.Frame, r float64) int32 {
	fr.ReturnNum(r)
	return cgo.StatusReturn1
}

func (g *Gate) retStr(r string) int32 {
	g.S.ProgReset()
	g.S.PutStr(r)
	return g.commitReturn()
}
