package zlua_test

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
)

// Named twins of the variadic signatures the gate serves without
// reflect.Value.Call (callbackgate/variadic.go): a named func type takes
// the reflective plan, so the two must agree value for value.
type (
	anyFn       func(...any)
	anyErrFn    func(...any) error
	strAnyFn    func(string, ...any)
	strAnyErrFn func(string, ...any) error
)

// describe spells what a variadic function received, the same way for
// both Envs: types and values, map keys sorted, handles by type alone.
func describe(args []any) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(describeOne(a))
	}
	return b.String()
}

func describeOne(a any) string {
	switch v := a.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ":" + describeOne(v[k])
		}
		return "map{" + strings.Join(parts, ",") + "}"
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = describeOne(x)
		}
		return "list{" + strings.Join(parts, ",") + "}"
	case nil, bool, int64, float64, string:
		return fmt.Sprintf("%T(%v)", a, a)
	}
	return fmt.Sprintf("%T", a)
}

// variadicFuncs returns the four functions, fast or as named twins,
// each recording what it got in *got; a first argument "fail" makes the
// error-returning ones fail.
func variadicFuncs(got *string, twin bool) map[string]any {
	fail := func(args []any) error {
		if len(args) > 0 && args[0] == "fail" {
			return errors.New("refused")
		}
		return nil
	}
	a := func(args ...any) { *got = describe(args) }
	b := func(args ...any) error { *got = describe(args); return fail(args) }
	c := func(s string, args ...any) { *got = s + "|" + describe(args) }
	d := func(s string, args ...any) error { *got = s + "|" + describe(args); return fail([]any{s}) }
	if twin {
		return map[string]any{"a": anyFn(a), "b": anyErrFn(b), "c": strAnyFn(c), "d": strAnyErrFn(d)}
	}
	return map[string]any{"a": a, "b": b, "c": c, "d": d}
}

// The variadic fast plans give what the reflective plan gives: the values
// received, the errors of bad arguments and returned errors, word for word.
func TestVariadicPlansMatchReflect(t *testing.T) {
	var gotFast, gotRefl string
	fast, refl := newEnv(t), newEnv(t)
	for name, f := range variadicFuncs(&gotFast, false) {
		must(t, fast.SetGlobal(name, f))
	}
	for name, f := range variadicFuncs(&gotRefl, true) {
		must(t, refl.SetGlobal(name, f))
	}
	deep := "{" + strings.Repeat("{", 120) + strings.Repeat("}", 120) + "}"
	argLists := []string{
		``, `"x"`, `"fail"`, `nil`, `nil, nil`, `1, 2.5, "s", true`, `"x", 1, nil, 3`,
		`2^53, -0.0, 1/0, 0/0, math.mininteger`, `{1, 2, {3}}`, `{a = 1, b = {c = "d"}}`,
		`{[1] = "x", y = 2}`, `print`, `coroutine.create(print)`, `"fmt %d", 7`,
		`7`, `{}`, deep, `"x", ` + deep, `"fail", 1`, `setmetatable({}, {__index = function() error("no") end})`,
	}
	for _, name := range []string{"a", "b", "c", "d"} {
		for _, args := range argLists {
			call := name
			if args != "" {
				call += ", " + args
			}
			chunk := fmt.Sprintf(`local ok, err = pcall(%s) return tostring(ok) .. " " .. tostring(err)`, call)
			gotFast, gotRefl = "-", "-"
			var a, b string
			must(t, fast.Eval(chunk, &a))
			must(t, refl.Eval(chunk, &b))
			if a != b || gotFast != gotRefl {
				t.Errorf("%s(%s): fast %q got %q; reflect %q got %q", name, args, a, gotFast, b, gotRefl)
			}
		}
	}
}

// A logging call with five arguments allocates what its values need (the
// slice, the strings, a float's box), not a reflect.Value per argument.
func TestVariadicPlansAllocateLess(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	count := func(f any) float64 {
		e := newEnv(t)
		must(t, e.SetGlobal("log", f))
		run(t, e, `function loop() for i = 1, 10 do log("hit %d %s", i, 2.5, "orc", true) end end`)
		var loop func() error
		must(t, e.GetFunction("loop", &loop))
		return testing.AllocsPerRun(50, func() { must(t, loop()) }) / 10
	}
	n := 0
	fast := count(func(format string, args ...any) { n += len(args) })
	refl := count(strAnyFn(func(format string, args ...any) { n += len(args) }))
	if n == 0 {
		t.Fatal("log was not called")
	}
	t.Logf("allocations per call: fast %.1f, reflective %.1f", fast, refl)
	if fast > 6 || fast >= refl {
		t.Errorf("%.1f allocations per call (reflective: %.1f), want at most 6", fast, refl)
	}
}
