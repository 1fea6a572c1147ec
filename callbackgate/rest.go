package callbackgate

import (
	"reflect"

	"github.com/zlua-go/zlua/cgo"
)

// A typed call's last result (before a trailing error) of type Values
// receives every result from its position on, in their natural Go forms,
// as Function.Call returns them: the typed funcs of GetFunction and
// BindResume, and Eval's outs, so `func() (zlua.Values, error)` is the
// typed twin of Call (probe Z1-F6). Elsewhere Values is an ordinary []any.

// IsRest reports whether typ is the public Values type.
func IsRest(typ reflect.Type) bool { return typ == pub.Values }

// restOf reports whether out's last value is a Values that collects the
// rest of the results.
func restOf(out []reflect.Value) bool {
	return len(out) > 0 && IsRest(out[len(out)-1].Type())
}

// wantResults is how many results a typed call of out asks Lua for: all of
// them when its last result is Values.
func wantResults(out []reflect.Value) int {
	if restOf(out) {
		return cgo.MultRet
	}
	return len(out)
}

// ReadRest sets out, a Values, to the natural forms of results from to
// n-1, where arg gives result i's Arg and stack index; none leaves it nil.
// On a failed conversion it returns the failing result's index (0-based)
// and releases the handles already made.
func (g *Gate) ReadRest(t cgo.Thread, out reflect.Value, from, n int, arg func(i int) (cgo.Arg, int)) (int, error) {
	if from >= n {
		out.SetZero()
		return 0, nil
	}
	if !g.conv.scoped {
		// the rest shares one budget, as Call's results do (convbudget.go):
		// a script returning one big string many times would otherwise
		// build that many copies (probe E1-F3)
		g.ConvScope()
		defer g.ConvEndScope()
	}
	vals := make([]any, n-from)
	for i := range vals {
		a, idx := arg(from + i)
		v, err := g.natural(t, idx, &a, 0)
		if err != nil {
			ReleaseAll(vals[:i])
			return from + i, err
		}
		vals[i] = v
	}
	out.Set(reflect.ValueOf(vals).Convert(out.Type()))
	return 0, nil
}
