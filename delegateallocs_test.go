package zlua_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// delegateMob is the object argument of the func(*T) delegates below.
type delegateMob struct{ HP int }

// mobPtr is *delegateMob under a name of its own: a func taking it is made
// by reflect.MakeFunc, the reference the func(*T) delegates must match.
type mobPtr *delegateMob

// shown runs a typed handle's call and gives its results and error, or
// its panic, as text.
func shown(call func() string) (s string) {
	defer func() {
		if r := recover(); r != nil {
			s = fmt.Sprintf("panic: %v", r)
		}
	}()
	return call()
}

// ptrDelegateCases are the scripts each func(*T) shape is called with: a
// result of the right type, an error, a result of the wrong type, none.
const ptrDelegateScript = `seen = 0
	function good(m) seen = seen + m.HP; return m.HP * 2, "extra" end
	function half(m) return m.HP / 2 end
	function yes(m) return m.HP > 1 end
	function bad(m) error("no " .. m.HP, 0) end
	function wrong(m) return {} end
	function none(m) end
	function idx(m) return m.missing_field end`

// A func(*T) typed handle is made without reflect.MakeFunc: it pushes the
// same value, gives the same results and errors (and panics where the
// type has no error result) as the reflect-made func of the same shape
// with a named pointer type, and allocates nothing per call.
func TestPointerDelegatesMatchReflectAndAllocateNothing(t *testing.T) {
	e := newEnv(t)
	run(t, e, ptrDelegateScript)
	m := &delegateMob{HP: 3}
	type shape struct {
		name       string
		fast, refl func(fn string, m *delegateMob) string
	}
	shapes := []shape{
		{"func(*T)", func(fn string, m *delegateMob) string { get[func(*delegateMob)](t, e, fn)(m); return "ok" },
			func(fn string, m *delegateMob) string { get[func(mobPtr)](t, e, fn)(m); return "ok" }},
		{"func(*T) error", func(fn string, m *delegateMob) string { return fmt.Sprint(get[func(*delegateMob) error](t, e, fn)(m)) },
			func(fn string, m *delegateMob) string { return fmt.Sprint(get[func(mobPtr) error](t, e, fn)(m)) }},
		{"func(*T) int", func(fn string, m *delegateMob) string { return fmt.Sprint(get[func(*delegateMob) int](t, e, fn)(m)) },
			func(fn string, m *delegateMob) string { return fmt.Sprint(get[func(mobPtr) int](t, e, fn)(m)) }},
		{"func(*T) (int, error)", func(fn string, m *delegateMob) string { return show(get[func(*delegateMob) (int, error)](t, e, fn)(m)) },
			func(fn string, m *delegateMob) string { return show(get[func(mobPtr) (int, error)](t, e, fn)(m)) }},
		{"func(*T) float64", func(fn string, m *delegateMob) string {
			return fmt.Sprint(get[func(*delegateMob) float64](t, e, fn)(m))
		},
			func(fn string, m *delegateMob) string { return fmt.Sprint(get[func(mobPtr) float64](t, e, fn)(m)) }},
		{"func(*T) (float64, error)", func(fn string, m *delegateMob) string {
			return show(get[func(*delegateMob) (float64, error)](t, e, fn)(m))
		},
			func(fn string, m *delegateMob) string { return show(get[func(mobPtr) (float64, error)](t, e, fn)(m)) }},
		{"func(*T) bool", func(fn string, m *delegateMob) string { return fmt.Sprint(get[func(*delegateMob) bool](t, e, fn)(m)) },
			func(fn string, m *delegateMob) string { return fmt.Sprint(get[func(mobPtr) bool](t, e, fn)(m)) }},
		{"func(*T) (bool, error)", func(fn string, m *delegateMob) string {
			return show(get[func(*delegateMob) (bool, error)](t, e, fn)(m))
		},
			func(fn string, m *delegateMob) string { return show(get[func(mobPtr) (bool, error)](t, e, fn)(m)) }},
	}
	for _, s := range shapes {
		for _, fn := range []string{"good", "half", "yes", "bad", "wrong", "none", "idx"} {
			for _, arg := range []*delegateMob{m, nil} {
				run(t, e, "seen = 0")
				fast := shown(func() string { return s.fast(fn, arg) })
				fastSeen := global[int](t, e, "seen")
				run(t, e, "seen = 0")
				refl := shown(func() string { return s.refl(fn, arg) })
				if fast != refl || fastSeen != global[int](t, e, "seen") {
					t.Errorf("%s %s(%v): %q (seen %d), reflect-made: %q (seen %d)", s.name, fn, arg != nil,
						fast, fastSeen, refl, global[int](t, e, "seen"))
				}
			}
		}
	}
	// the object reached the script as itself: a write through it is
	// seen by Go, and the same pointer is the same Lua value
	run(t, e, `function heal(m) m.HP = m.HP + 10; last = m end
		function same(m) return rawequal(m, last) end`)
	if err := get[func(*delegateMob) error](t, e, "heal")(m); err != nil || m.HP != 13 {
		t.Fatalf("heal: %v, HP %d", err, m.HP)
	}
	if !get[func(*delegateMob) bool](t, e, "same")(m) {
		t.Fatal("the same pointer passed twice reached Lua as two values")
	}
	if raceEnabled {
		return // the race detector's instrumentation allocates
	}
	onHit := get[func(*delegateMob) error](t, e, "good")
	hp := get[func(*delegateMob) (int, error)](t, e, "good")
	alive := get[func(*delegateMob) bool](t, e, "yes")
	for name, call := range map[string]func(){
		"func(*T) error":        func() { _ = onHit(m) },
		"func(*T) (int, error)": func() { _, _ = hp(m) },
		"func(*T) bool":         func() { _ = alive(m) },
	} {
		if a := testing.AllocsPerRun(1000, call); a != 0 {
			t.Errorf("%s: %.1f allocs per call, want 0", name, a)
		}
	}
}

// A func(*T) handle refuses its calls once the Env is closed, in the
// words of a reflect-made one.
func TestPointerDelegatesAfterClose(t *testing.T) {
	e, err := zlua.New(zlua.Options{})
	must(t, err)
	run(t, e, ptrDelegateScript)
	fast := get[func(*delegateMob) (int, error)](t, e, "good")
	refl := get[func(mobPtr) (int, error)](t, e, "good")
	must(t, e.Close())
	m := &delegateMob{HP: 1}
	a, b := show(fast(m)), show(refl(m))
	if a != b || !strings.Contains(a, "closed") && !strings.Contains(a, "reset") {
		t.Fatalf("after Close: %q, reflect-made %q", a, b)
	}
}
