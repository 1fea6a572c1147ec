package zlua_test

import (
	"strings"
	"testing"
)

// delegateMob is the object argument of the reflect-made delegates below.
type delegateMob struct{ HP int }

// A typed handle the fast table does not serve (an object argument, made
// with reflect.MakeFunc) allocates only reflect's own argument slice when
// it has no result but its error, and reports failures the same way.
func TestObjectDelegatesAllocateOnlyReflectsArguments(t *testing.T) {
	e := newEnv(t)
	run(t, e, `seen = 0
		function on_hit(m) seen = seen + m.HP end
		function hp(m) return m.HP end
		function bad(m) error("no " .. m.HP, 0) end`)
	onHit := get[func(*delegateMob) error](t, e, "on_hit")
	hp := get[func(*delegateMob) (int, error)](t, e, "hp")
	bad := get[func(*delegateMob) error](t, e, "bad")
	badHP := get[func(*delegateMob) (int, error)](t, e, "bad")
	m := &delegateMob{HP: 3}
	if err := onHit(m); err != nil || global[int](t, e, "seen") != 3 {
		t.Fatalf("on_hit: %v, seen %d", err, global[int](t, e, "seen"))
	}
	if n, err := hp(m); n != 3 || err != nil {
		t.Fatalf("hp = %d, %v", n, err)
	}
	if err := bad(m); err == nil || !strings.Contains(err.Error(), "no 3") {
		t.Fatalf("bad = %v", err)
	}
	if n, err := badHP(m); n != 0 || err == nil || !strings.Contains(err.Error(), "no 3") {
		t.Fatalf("bad as (int, error) = %d, %v", n, err)
	}
	if err := onHit(nil); err == nil {
		t.Fatal("on_hit(nil) indexed nil without an error")
	}
	if raceEnabled {
		return // the race detector's instrumentation allocates
	}
	if a := testing.AllocsPerRun(1000, func() { _ = onHit(m) }); a > 1 {
		t.Errorf("func(*T) error: %.1f allocs per call, want at most 1 (reflect's argument slice)", a)
	}
	if a := testing.AllocsPerRun(1000, func() { _, _ = hp(m) }); a > 3 {
		t.Errorf("func(*T) (int, error): %.1f allocs per call, want at most 3", a)
	}
}
