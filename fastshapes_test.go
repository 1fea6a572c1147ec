package zlua_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// Named twins of the fast shapes' types: a function spelled with them has
// no fast plan, so it is called through reflect, the reference the fast
// plans must match.
type (
	twinInt   int
	twinFloat float64
	twinStr   string
)

// addedFastShapes are the Go function signatures given fast plans in the
// twenty-ninth round (outside probe C2-F1), in callbackgate's shape
// letters: i int, f float64, s string, b bool, e error.
var addedFastShapes = []string{
	"i:", "i:e", "i:ie", "i:b", "i:s", "i:f",
	"ii:", "ii:e", "ii:b",
	"f:", "f:e", "ff:", "ff:e", "fff:",
	"s:b", "s:i", "s:ie", "s:se",
	"si:", "si:e", "si:b", "si:ie",
	"is:", "is:e",
	"ss:", "ss:e", "ss:s", "ss:b",
}

// shapeFunc makes a function of shape whose types are Go's own (twin
// false) or the named twins, computing its results from its arguments
// the same way: a negative number or an empty string is a failure.
func shapeFunc(shape string, twin bool) any {
	params, results, _ := strings.Cut(shape, ":")
	typeOf := func(c byte) reflect.Type {
		switch c {
		case 'i':
			if twin {
				return reflect.TypeFor[twinInt]()
			}
			return reflect.TypeFor[int]()
		case 'f':
			if twin {
				return reflect.TypeFor[twinFloat]()
			}
			return reflect.TypeFor[float64]()
		case 's':
			if twin {
				return reflect.TypeFor[twinStr]()
			}
			return reflect.TypeFor[string]()
		case 'b':
			return reflect.TypeFor[bool]()
		}
		return reflect.TypeFor[error]()
	}
	var in, out []reflect.Type
	for i := range len(params) {
		in = append(in, typeOf(params[i]))
	}
	for i := range len(results) {
		out = append(out, typeOf(results[i]))
	}
	ft := reflect.FuncOf(in, out, false)
	return reflect.MakeFunc(ft, func(args []reflect.Value) []reflect.Value {
		sum, text, bad := 0.0, "", false
		for _, a := range args {
			switch a.Kind() {
			case reflect.Int:
				sum += float64(a.Int())
				bad = bad || a.Int() < 0
			case reflect.Float64:
				sum += a.Float()
				bad = bad || a.Float() < 0
			case reflect.String:
				text += a.String()
				bad = bad || a.String() == ""
			}
		}
		res := make([]reflect.Value, len(out))
		for i, t := range out {
			v := reflect.New(t).Elem()
			switch t.Kind() {
			case reflect.Int:
				v.SetInt(int64(sum) + int64(len(text)))
			case reflect.Float64:
				v.SetFloat(sum / 2)
			case reflect.String:
				v.SetString(fmt.Sprint(text, sum))
			case reflect.Bool:
				v.SetBool(sum > 1 || len(text) > 1)
			case reflect.Interface:
				if bad {
					v.Set(reflect.ValueOf(errors.New("bad input")))
				}
			}
			res[i] = v
		}
		return res
	}).Interface()
}

// Every added fast shape gives what the reflective call of the same
// function gives: results, raised errors, and the errors of wrong, missing
// and extra arguments, word for word.
func TestAddedFastShapesMatchReflect(t *testing.T) {
	fast, refl := newEnv(t), newEnv(t)
	for _, shape := range addedFastShapes {
		params, _, _ := strings.Cut(shape, ":")
		must(t, fast.SetGlobal("f", shapeFunc(shape, false)))
		must(t, refl.SetGlobal("f", shapeFunc(shape, true)))
		good := make([]string, len(params))
		for i := range len(params) {
			good[i] = map[byte]string{'i': "3", 'f': "2.5", 's': `"ab"`}[params[i]]
		}
		calls := [][]string{good, nil}
		for i := range len(params) {
			for _, v := range []string{"-1", "1.5", `"7"`, `"x"`, `""`, "{}", "nil", "true", "2^63"} {
				c := append([]string(nil), good...)
				c[i] = v
				calls = append(calls, c)
			}
		}
		calls = append(calls, append(append([]string(nil), good...), "9"))
		for _, args := range calls {
			chunk := "return tostring(select('#', f(" + strings.Join(args, ", ") + "))) .. ' ' .. " +
				"table.concat((function(...) local t = {} for i = 1, select('#', ...) do t[i] = tostring((select(i, ...))) end return t end)(f(" +
				strings.Join(args, ", ") + ")), ',')"
			chunk = "local ok, r = pcall(function() " + chunk + " end) return tostring(ok) .. ': ' .. tostring(r)"
			var a, b string
			must(t, fast.Eval(chunk, &a))
			must(t, refl.Eval(chunk, &b))
			if a != b {
				t.Errorf("%s f(%s): fast %q, reflect %q", shape, strings.Join(args, ", "), a, b)
			}
		}
	}
}

// The README's wait and a handler with two arguments call without
// allocating.
func TestAddedFastShapesAllocateNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	e := newEnv(t)
	n := 0
	must(t, e.SetGlobal("wait", func(dt float64) error { n++; return nil }))
	must(t, e.SetGlobal("plus", func(a int) (int, error) { return a + 1, nil }))
	must(t, e.SetGlobal("hit", func(a, b int) bool { return a > b }))
	must(t, e.SetGlobal("move", func(x, y float64) error { return nil }))
	run(t, e, `function loop() for i = 1, 100 do wait(0.5) plus(i) hit(i, 3) move(i, 2) end end`)
	var loop func() error
	must(t, e.GetFunction("loop", &loop))
	if a := testing.AllocsPerRun(100, func() { must(t, loop()) }); a != 0 {
		t.Errorf("%.1f allocations per 400 calls, want 0", a)
	}
	if n == 0 {
		t.Fatal("wait was not called")
	}
}
