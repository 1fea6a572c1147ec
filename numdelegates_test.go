package zlua_test

import (
	"fmt"
	"testing"

	"github.com/zlua-go/zlua"
)

// Named func types are not in the fast delegates' table: GetFunction
// makes them with reflect.MakeFunc, the reference the fast ones must
// match.
type (
	rInt0   func() (int, error)
	rFloat0 func() (float64, error)
	rBool0  func() (bool, error)
	rIntI   func(int) (int, error)
	rFloatI func(int) (float64, error)
	rBoolI  func(int) (bool, error)
	rIntF   func(float64) (int, error)
	rFloatF func(float64) (float64, error)
	rBoolF  func(float64) (bool, error)
)

// numPair is one shape of the number delegates: its fast and reflective
// calls, each giving the result and error as text.
type numPair struct {
	name       string
	fast, refl func(e *zlua.Env, fn string) string
}

// get is GetFunction or the test's end.
func get[F any](t *testing.T, e *zlua.Env, name string) F {
	t.Helper()
	var f F
	must(t, e.GetFunction(name, &f))
	return f
}

func show[V any](v V, err error) string { return fmt.Sprintf("%v, %v", v, err) }

func numPairs(t *testing.T) []numPair {
	return []numPair{
		{"func() (int, error)", func(e *zlua.Env, n string) string { return show(get[func() (int, error)](t, e, n)()) },
			func(e *zlua.Env, n string) string { return show(get[rInt0](t, e, n)()) }},
		{"func() (float64, error)", func(e *zlua.Env, n string) string { return show(get[func() (float64, error)](t, e, n)()) },
			func(e *zlua.Env, n string) string { return show(get[rFloat0](t, e, n)()) }},
		{"func() (bool, error)", func(e *zlua.Env, n string) string { return show(get[func() (bool, error)](t, e, n)()) },
			func(e *zlua.Env, n string) string { return show(get[rBool0](t, e, n)()) }},
		{"func(int) (int, error)", func(e *zlua.Env, n string) string { return show(get[func(int) (int, error)](t, e, n)(-7)) },
			func(e *zlua.Env, n string) string { return show(get[rIntI](t, e, n)(-7)) }},
		{"func(int) (float64, error)", func(e *zlua.Env, n string) string { return show(get[func(int) (float64, error)](t, e, n)(9)) },
			func(e *zlua.Env, n string) string { return show(get[rFloatI](t, e, n)(9)) }},
		{"func(int) (bool, error)", func(e *zlua.Env, n string) string { return show(get[func(int) (bool, error)](t, e, n)(0)) },
			func(e *zlua.Env, n string) string { return show(get[rBoolI](t, e, n)(0)) }},
		{"func(float64) (int, error)", func(e *zlua.Env, n string) string { return show(get[func(float64) (int, error)](t, e, n)(4.5)) },
			func(e *zlua.Env, n string) string { return show(get[rIntF](t, e, n)(4.5)) }},
		{"func(float64) (float64, error)", func(e *zlua.Env, n string) string { return show(get[func(float64) (float64, error)](t, e, n)(0.25)) },
			func(e *zlua.Env, n string) string { return show(get[rFloatF](t, e, n)(0.25)) }},
		{"func(float64) (bool, error)", func(e *zlua.Env, n string) string { return show(get[func(float64) (bool, error)](t, e, n)(-1)) },
			func(e *zlua.Env, n string) string { return show(get[rBoolF](t, e, n)(-1)) }},
	}
}

// TestNumberDelegatesMatchTheReflectivePath calls the typed funcs with no
// argument or one number and one number or boolean result, served
// without reflection, and the same shapes made by reflect.MakeFunc, on
// Lua functions returning each kind of value, raising, or echoing their
// argument: the results and error texts are the same.
func TestNumberDelegatesMatchTheReflectivePath(t *testing.T) {
	e := newEnv(t)
	for _, ret := range []string{"7", "2.5", "3.0", "-0.0", "2^63", "'12'", "'0x10'", "'x'", "true", "false", "nil", "{}", "", "...", `error("boom", 0)`, `error({})`} {
		run(t, e, `function f(...) return `+ret+` end`)
		for _, p := range numPairs(t) {
			if got, want := p.fast(e, "f"), p.refl(e, "f"); got != want {
				t.Errorf("%s of `return %s`: %s, want %s (reflect.MakeFunc's)", p.name, ret, got, want)
			}
		}
	}
	// An Env call from a released or closed function, as the others
	run(t, e, `function g() return 1 end`)
	fi := get[func(int) (int, error)](t, e, "g")
	ri := get[rIntI](t, e, "g")
	e.Close()
	if got, want := show(fi(1)), show(ri(1)); got != want {
		t.Errorf("after Close: %s, want %s", got, want)
	}
}

// The forms without an error result panic with the error the other
// returns, and none of the number delegates allocates.
func TestNumberDelegatesPanicWithTheErrorAndAllocateNothing(t *testing.T) {
	e := newEnv(t)
	run(t, e, `function id(x) return x end
		function one() return 1 end
		function yes() return true end
		function bad() return "x" end`)
	ii, fi, bi := get[func(int) int](t, e, "id"), get[func(float64) int](t, e, "id"), get[func(int) bool](t, e, "yes")
	ff, if_, bf := get[func(float64) float64](t, e, "id"), get[func(int) float64](t, e, "id"), get[func(float64) bool](t, e, "yes")
	i0, f0, b0 := get[func() int](t, e, "one"), get[func() float64](t, e, "one"), get[func() bool](t, e, "yes")
	allocs := testing.AllocsPerRun(1000, func() {
		if ii(5) != 5 || fi(6) != 6 || !bi(0) || ff(0.5) != 0.5 || if_(3) != 3 || !bf(1) || i0() != 1 || f0() != 1 || !b0() {
			t.Fatal("wrong result")
		}
	})
	if allocs != 0 {
		t.Errorf("number delegates allocated %v times per round of 9 calls", allocs)
	}
	_, want := get[func() (int, error)](t, e, "bad")()
	if want == nil {
		t.Fatal(`a result "x" read as an int: no error`)
	}
	for name, call := range map[string]func(){
		"func() int":     func() { get[func() int](t, e, "bad")() },
		"func() float64": func() { get[func() float64](t, e, "bad")() },
		"func(int) int":  func() { get[func(int) int](t, e, "bad")(1) },
	} {
		func() {
			defer func() {
				if r := recover(); fmt.Sprint(r) != fmt.Sprint(want) {
					t.Errorf("%s panicked with %v, want %v", name, r, want)
				}
			}()
			call()
		}()
	}
}

// BenchmarkTypedNumberCall calls `function step(k) return k + 1 end`
// through a func(int) (int, error) handle: the fast delegate, and its
// reflect.MakeFunc twin (a named func type).
func BenchmarkTypedNumberCall(b *testing.B) {
	e, err := zlua.New(zlua.Options{})
	must(b, err)
	defer e.Close()
	must(b, e.DoString(`function step(k) return k + 1 end`))
	var fast func(int) (int, error)
	var refl rIntI
	must(b, e.GetFunction("step", &fast))
	must(b, e.GetFunction("step", &refl))
	for _, c := range []struct {
		name string
		f    func(int) (int, error)
	}{{"fast", fast}, {"reflect", refl}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if v, err := c.f(i); err != nil || v != i+1 {
					b.Fatal(v, err)
				}
			}
		})
	}
}
