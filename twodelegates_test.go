package zlua_test

import (
	"fmt"
	"testing"
)

// Named twins: typed funcs spelled with them are made by reflect.MakeFunc.
type (
	twoStr   string
	twoInt   int
	twoFloat float64
)

// The two-argument typed funcs (func(string, string) error and kin) give
// what their reflect-made twins give: the arguments as Lua sees them, a
// raised error, a panic where the type has no error; and allocate nothing.
func TestTwoArgumentDelegatesMatchReflect(t *testing.T) {
	e := newEnv(t)
	run(t, e, `seen = ""
		local function ty(v) return math.type and math.type(v) or type(v) end
		function ok(a, b) seen = ty(a) .. ":" .. tostring(a) .. "," .. ty(b) .. ":" .. tostring(b) end
		function bad(a, b) error("refused " .. tostring(a) .. " " .. tostring(b), 0) end`)
	type pair struct {
		name       string
		fast, refl func(fn string) string
	}
	call := func(f func()) (s string) {
		defer func() {
			if r := recover(); r != nil {
				s = fmt.Sprint("panic: ", r)
			}
		}()
		f()
		return "ok"
	}
	pairs := []pair{
		{"(string, string) error", func(fn string) string { return fmt.Sprint(get[func(string, string) error](t, e, fn)("a", "b")) },
			func(fn string) string { return fmt.Sprint(get[func(twoStr, twoStr) error](t, e, fn)("a", "b")) }},
		{"(string, string)", func(fn string) string { return call(func() { get[func(string, string)](t, e, fn)("a", "b") }) },
			func(fn string) string { return call(func() { get[func(twoStr, twoStr)](t, e, fn)("a", "b") }) }},
		{"(string, int) error", func(fn string) string { return fmt.Sprint(get[func(string, int) error](t, e, fn)("a", 7)) },
			func(fn string) string { return fmt.Sprint(get[func(twoStr, twoInt) error](t, e, fn)("a", 7)) }},
		{"(string, int)", func(fn string) string { return call(func() { get[func(string, int)](t, e, fn)("a", -7) }) },
			func(fn string) string { return call(func() { get[func(twoStr, twoInt)](t, e, fn)("a", -7) }) }},
		{"(int, int) error", func(fn string) string { return fmt.Sprint(get[func(int, int) error](t, e, fn)(1, 1<<62)) },
			func(fn string) string { return fmt.Sprint(get[func(twoInt, twoInt) error](t, e, fn)(1, 1<<62)) }},
		{"(int, int)", func(fn string) string { return call(func() { get[func(int, int)](t, e, fn)(0, -1) }) },
			func(fn string) string { return call(func() { get[func(twoInt, twoInt)](t, e, fn)(0, -1) }) }},
		{"(float64, float64) error", func(fn string) string { return fmt.Sprint(get[func(float64, float64) error](t, e, fn)(1.5, 2)) },
			func(fn string) string { return fmt.Sprint(get[func(twoFloat, twoFloat) error](t, e, fn)(1.5, 2)) }},
		{"(float64, float64)", func(fn string) string { return call(func() { get[func(float64, float64)](t, e, fn)(-0.5, 3) }) },
			func(fn string) string { return call(func() { get[func(twoFloat, twoFloat)](t, e, fn)(-0.5, 3) }) }},
	}
	for _, p := range pairs {
		for _, fn := range []string{"ok", "bad"} {
			run(t, e, `seen = ""`)
			a := p.fast(fn)
			sa := global[string](t, e, "seen")
			run(t, e, `seen = ""`)
			b := p.refl(fn)
			if sb := global[string](t, e, "seen"); a != b || sa != sb {
				t.Errorf("%s %s: %q (seen %q), reflect-made %q (seen %q)", p.name, fn, a, sa, b, sb)
			}
		}
	}
	if raceEnabled {
		return
	}
	ss := get[func(string, string) error](t, e, "ok")
	si := get[func(string, int) error](t, e, "ok")
	ff := get[func(float64, float64) error](t, e, "ok")
	ii := get[func(int, int)](t, e, "ok")
	if a := testing.AllocsPerRun(200, func() { _ = ss("a", "b"); _ = si("a", 1); _ = ff(1, 2); ii(1, 2) }); a != 0 {
		t.Errorf("%.1f allocations per 4 calls, want 0", a)
	}
}
