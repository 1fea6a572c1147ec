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

// debug.getmetatable reaches zlua's __gc metamethods: called by hand on
// any value (a foreign userdata, an object, a struct, another sentinel, a
// table) they must do nothing harmful, and the real objects keep working.
func TestFinalizersCalledByHandOnForeignValues(t *testing.T) {
	e := newEnv(t)
	thing := &sharedThing{}
	must(t, e.SetGlobal("thing", thing))
	must(t, e.SetGlobal("gf", func() int { return 7 }))
	must(t, e.SetGlobal("vec", struct{ X, Y float64 }{1, 2}))
	run(t, e, `
		local sentinel = select(2, debug.getupvalue(gf, 1))
		local objgc = debug.getmetatable(thing).__gc
		local fngc = debug.getmetatable(sentinel).__gc
		local tiny = newproxy and newproxy(true) or io.stdout
		for _, gc in ipairs({objgc, fngc}) do
			for _, v in ipairs({io.stdout, tiny, vec, {}, 42, "s"}) do
				pcall(gc, v)
			end
		end
		pcall(objgc, sentinel)
		pcall(fngc, thing)
		assert(gf() == 7, "the Go function was released by a foreign __gc call")
		assert(thing:Bump() == 1, "the object was released by a foreign __gc call")
		assert(vec.X == 1)
	`)
}
