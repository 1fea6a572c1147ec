package zlua_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

type sharedThing struct{ N int }

func (s *sharedThing) Bump() int { s.N++; return s.N }

// Values of one Env reaching another through Go are refused or converted,
// never used as if they were the other state's.
func TestValuesFromAnotherEnv(t *testing.T) {
	a, b := newEnv(t), newEnv(t)
	run(t, a, `function fa() return "a" end`)
	var fa *zlua.Function
	must(t, a.GetFunction("fa", &fa))
	if err := b.SetGlobal("fa", fa); err == nil || !strings.Contains(err.Error(), "another Env") {
		t.Errorf("pushing A's function handle into B = %v", err)
	}
	// A's error object returned by B's Go function is raised as its text:
	// B never reads A's registry ref.
	errA := a.DoString(`error(setmetatable({}, {__tostring = function() return "from A" end}))`)
	must(t, b.SetGlobal("relay", func() error { return errA }))
	run(t, b, `local ok, err = pcall(relay); assert(not ok and err == "from A", tostring(err))`)
	// One Go object in two Envs: two userdata, each with its own identity.
	thing := &sharedThing{}
	must(t, a.SetGlobal("thing", thing))
	must(t, b.SetGlobal("thing", thing))
	must(t, b.SetGlobal("same", func(x *sharedThing) *sharedThing { return x }))
	run(t, a, `assert(thing:Bump() == 1)`)
	run(t, b, `assert(thing:Bump() == 2 and rawequal(same(thing), thing))`)
	must(t, a.Close())
	// B is unaffected by A's Close; A's handle is stale.
	run(t, b, `assert(thing:Bump() == 3)`)
	if _, err := fa.Call(); !errors.Is(err, zlua.ErrStale) {
		t.Errorf("A's handle after A closed = %v", err)
	}
}
