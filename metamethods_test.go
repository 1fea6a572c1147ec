package zlua_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// mVec is pushed by value (ByVal); mAcct by reference (ByObj).
type mVec struct{ X, Y float64 }

type mAcct struct {
	ID      int
	Balance int
}

func (a *mAcct) Deposit(n int) { a.Balance += n }

// number reads a Lua number received as any: integers arrive as int64.
func number(x any) (float64, bool) {
	switch n := x.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

func vecOps() map[string]any {
	return map[string]any{
		"__add": func(a, b mVec) mVec { return mVec{a.X + b.X, a.Y + b.Y} },
		"__sub": func(a, b any) string { return fmt.Sprintf("%T-%T", a, b) },
		"__mul": func(a, b any) (mVec, error) {
			v, vok := a.(mVec)
			k, kok := number(b)
			if !vok {
				v, vok = b.(mVec)
				k, kok = number(a)
			}
			if !vok || !kok {
				return mVec{}, errors.New("mVec can only be scaled by a number")
			}
			return mVec{v.X * k, v.Y * k}, nil
		},
		"__div":      func(a mVec, k float64) mVec { return mVec{a.X / k, a.Y / k} },
		"__unm":      func(a mVec) mVec { return mVec{-a.X, -a.Y} },
		"__eq":       func(a, b mVec) bool { return a == b },
		"__lt":       func(a, b mVec) bool { return a.X*a.X+a.Y*a.Y < b.X*b.X+b.Y*b.Y },
		"__le":       func(a, b mVec) bool { return a.X*a.X+a.Y*a.Y <= b.X*b.X+b.Y*b.Y },
		"__len":      func(a mVec) float64 { return math.Hypot(a.X, a.Y) },
		"__concat":   func(a, b any) string { return fmt.Sprint(a) + "|" + fmt.Sprint(b) },
		"__call":     func(a mVec, i int) float64 { return [2]float64{a.X, a.Y}[i-1] },
		"__tostring": func(a mVec) string { return fmt.Sprintf("(%g, %g)", a.X, a.Y) },
	}
}

func TestMetamethodsGiveValuesOperators(t *testing.T) {
	e := newEnv(t)
	must(t, zlua.Metamethods[mVec](e, vecOps()))
	must(t, e.SetGlobal("V", func(x, y float64) mVec { return mVec{x, y} }))
	run(t, e, `
		local a, b = V(1, 2), V(3, 4)
		local c = a + b
		assert(c.X == 4 and c.Y == 6, "add")
		assert(tostring(a * 2) == "(2, 4)" and tostring(2 * a) == "(2, 4)", "mixed operands, both orders")
		assert(tostring(b / 2) == "(1.5, 2)", "div")
		assert(tostring(-a) == "(-1, -2)", "unm")
		assert(#b == 5, "len")
		assert(a(1) == 1 and a(2) == 2, "call")
		assert(a == V(1, 2) and a ~= b and not rawequal(a, V(1, 2)), "eq on two copies")
		assert(a < b and not (b < a) and a <= V(2, 1) and b > a and b >= a, "lt, le")
		assert(tostring(b) == "(3, 4)", "tostring")
	`)
	// Operands reach Go in Lua's order.
	var sub [2]string
	must(t, e.Eval(`V(1, 1) - 1, 1 - V(1, 1)`, &sub[0], &sub[1]))
	if sub != [2]string{"zlua_test.mVec-int64", "int64-zlua_test.mVec"} {
		t.Errorf("__sub operands = %q", sub)
	}
	var cat [2]string
	must(t, e.Eval(`V(1, 2) .. "!", "<" .. V(1, 2)`, &cat[0], &cat[1]))
	if cat != [2]string{"{1 2}|!", "<|{1 2}"} {
		t.Errorf("__concat operands = %q", cat)
	}
}

func TestMetamethodsGiveObjectsOperators(t *testing.T) {
	e := newEnv(t)
	eqCalls := 0
	must(t, zlua.Metamethods[*mAcct](e, map[string]any{
		"__add": func(a, b *mAcct) *mAcct { return &mAcct{Balance: a.Balance + b.Balance} },
		"__eq": func(a, b *mAcct) bool {
			eqCalls++
			return a.ID == b.ID
		},
		"__lt":       func(a, b *mAcct) bool { return a.Balance < b.Balance },
		"__len":      func(a *mAcct) int { return a.Balance },
		"__tostring": func(a *mAcct) string { return fmt.Sprintf("acct#%d", a.ID) },
		"__call":     func(a *mAcct, n int) int { a.Deposit(n); return a.Balance },
	}))
	a1, a1b, a2 := &mAcct{ID: 1, Balance: 10}, &mAcct{ID: 1, Balance: 5}, &mAcct{ID: 2, Balance: 1}
	must(t, e.SetGlobal("a1", a1))
	must(t, e.SetGlobal("a1b", a1b))
	must(t, e.SetGlobal("a2", a2))
	must(t, e.SetGlobal("again", func() *mAcct { return a1 }))
	must(t, e.SetGlobal("p", &Player{Name: "ann"}))
	run(t, e, `
		local s = a1 + a2
		assert(s.Balance == 11 and #s == 11, "add, len")
		assert(a1 == a1b and a1 ~= a2, "user eq on two objects")
		assert(a1 == again(), "the same object")
		assert(a1 ~= p and a1 ~= 1, "other operands are not equal")
		assert(a2 < a1 and tostring(a2) == "acct#2", "lt, tostring")
		assert(a2(4) == 5, "call")
	`)
	if a2.Balance != 5 {
		t.Errorf("a2.Balance = %d after __call", a2.Balance)
	}
	if eqCalls != 2 {
		t.Errorf("user __eq ran %d times, want 2 (a1 == a1b, a1 ~= a2)", eqCalls)
	}
	// Another pointer type keeps zlua's identity __eq.
	run(t, e, `assert(p ~= a1)`)
	must(t, e.SetGlobal("p2", &Player{Name: "ann"}))
	run(t, e, `assert(p ~= p2, "two Players are two objects")`)
}

func TestMetamethodsReachValuesPushedBefore(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("v", mVec{1, 2}))
	must(t, e.SetGlobal("acct", &mAcct{ID: 7}))
	must(t, e.SetGlobal("view", zlua.AsView[interface{ Deposit(int) }](&mAcct{ID: 8})))
	run(t, e, `assert(not pcall(function() return v + v end))`)
	must(t, zlua.Metamethods[mVec](e, map[string]any{"__add": func(a, b mVec) mVec { return mVec{a.X + b.X, a.Y + b.Y} }}))
	must(t, zlua.Metamethods[*mAcct](e, map[string]any{"__tostring": func(a *mAcct) string { return fmt.Sprint("acct ", a.ID) }}))
	run(t, e, `
		local w = v + v
		assert(w.X == 2 and w.Y == 4)
		assert(tostring(acct) == "acct 7" and tostring(view) == "acct 8", "objects and views pushed before")
	`)
	// Setting a name again replaces it; the others stay.
	must(t, zlua.Metamethods[mVec](e, map[string]any{
		"__add":      func(a, b mVec) mVec { return mVec{a.X * b.X, a.Y * b.Y} },
		"__tostring": func(a mVec) string { return "vec" },
	}))
	run(t, e, `local w = v + v; assert(w.X == 1 and w.Y == 4 and tostring(w) == "vec")`)
	// Metamethods belong to the state: Reset clears them.
	e.Reset(nil)
	must(t, e.Pump())
	must(t, e.SetGlobal("v", mVec{1, 2}))
	if err := e.DoString(`return v + v`); err == nil || !strings.Contains(err.Error(), "attempt to perform arithmetic") {
		t.Errorf("after Reset: %v", err)
	}
}

func TestMetamethodsArePerEnv(t *testing.T) {
	e1, e2 := newEnv(t), newEnv(t)
	must(t, zlua.Metamethods[mVec](e1, vecOps()))
	for _, e := range []*zlua.Env{e1, e2} {
		must(t, e.SetGlobal("v", mVec{1, 2}))
	}
	run(t, e1, `assert(tostring(v + v) == "(2, 4)")`)
	if err := e2.DoString(`return v + v`); err == nil || !strings.Contains(err.Error(), "attempt to perform arithmetic") {
		t.Errorf("another Env got the metamethods: %v", err)
	}
	if err := e2.DoString(`assert(tostring(v):find("^mVec"))`); err != nil {
		t.Errorf("another Env lost its default __tostring: %v", err)
	}
}

func TestMetamethodsRefuseBadInput(t *testing.T) {
	e := newEnv(t)
	var nilFunc func(a, b mVec) mVec
	add := func(a, b mVec) mVec { return a }
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"__index", zlua.Metamethods[mVec](e, map[string]any{"__index": add}), `unsupported metamethod "__index"`},
		{"__idiv", zlua.Metamethods[mVec](e, map[string]any{"__idiv": add}), `unsupported metamethod "__idiv"`},
		{"__gc", zlua.Metamethods[*mAcct](e, map[string]any{"__gc": add}), `unsupported metamethod "__gc"`},
		{"add", zlua.Metamethods[mVec](e, map[string]any{"add": add}), `unsupported metamethod "add"`},
		{"number", zlua.Metamethods[mVec](e, map[string]any{"__add": 42}), "metamethod __add: Go function expected, got int"},
		{"nil", zlua.Metamethods[mVec](e, map[string]any{"__add": nil}), "metamethod __add: Go function expected, got <nil>"},
		{"nil func", zlua.Metamethods[mVec](e, map[string]any{"__add": nilFunc}), "metamethod __add: nil func("},
		{"int", zlua.Metamethods[int](e, map[string]any{"__add": add}), "int is neither a struct type"},
		{"map", zlua.Metamethods[map[string]int](e, map[string]any{"__add": add}), "neither a struct type"},
		{"handle", zlua.Metamethods[*zlua.Table](e, map[string]any{"__add": add}), "a handle crosses to Lua only as its Lua value"},
		{"nil env", zlua.Metamethods[mVec](nil, map[string]any{"__add": add}), "nil Env"},
		// One bad entry sets nothing.
		{"mixed", zlua.Metamethods[mVec](e, map[string]any{"__add": add, "__bad": add}), `unsupported metamethod "__bad"`},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) || !strings.HasPrefix(c.err.Error(), "zlua: metamethods of ") {
			t.Errorf("%s: err = %v, want %q", c.name, c.err, c.want)
		}
	}
	must(t, e.SetGlobal("v", mVec{1, 2}))
	if err := e.DoString(`return v + v`); err == nil || !strings.Contains(err.Error(), "attempt to perform arithmetic") {
		t.Errorf("a refused call set __add: %v", err)
	}
	must(t, e.Close())
	if err := zlua.Metamethods[mVec](e, vecOps()); !errors.Is(err, zlua.ErrClosed) {
		t.Errorf("closed Env: %v", err)
	}
}

func TestMetamethodErrorsAtTheOperator(t *testing.T) {
	e := newEnv(t)
	must(t, zlua.Metamethods[mVec](e, vecOps()))
	must(t, zlua.Metamethods[*mAcct](e, map[string]any{
		"__add": func(a, b *mAcct) (*mAcct, error) { return nil, errors.New("accounts do not add") },
		"__unm": func(a *mAcct) *mAcct { panic("no negative accounts") },
	}))
	must(t, e.SetGlobal("v", mVec{1, 2}))
	must(t, e.SetGlobal("a", &mAcct{}))
	for _, c := range []struct{ chunk, want string }{
		{"local x = 1\nreturn v + 'x'", "(dostring):2: bad argument #2 to 'mVec.__add' (mVec expected, got string)"},
		{"return 1 + v", "(dostring):1: bad argument #1 to 'mVec.__add' (mVec expected, got number)"},
		{"\n\nreturn v * v", "(dostring):3: mVec can only be scaled by a number"},
		{"return a + a", "(dostring):1: accounts do not add"},
		{"return -a", "(dostring):1: go function 'mAcct.__unm' panicked: no negative accounts"},
		{"return v / v", "(dostring):1: bad argument #2 to 'mVec.__div' (number expected, got mVec)"},
	} {
		err := e.DoString(c.chunk)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want %q", c.chunk, err, c.want)
		}
	}
	// A Go error stays reachable with errors.Is through the Lua error.
	var le *zlua.LuaError
	if err := e.DoString(`return a + a`); !errors.As(err, &le) || le.Unwrap() == nil {
		t.Errorf("a + a: %v", err)
	}
}

// The common shapes (func(T, T) T, func(T, T) bool, ... over a blittable
// struct or a pointer type) are called without reflection: a loop of
// operators allocates nothing in Go per operation (the reflective plan
// allocates several values per call).
func TestMetamethodFastShapesDoNotAllocate(t *testing.T) {
	e := newEnv(t)
	must(t, zlua.Metamethods[mVec](e, vecOps()))
	acct := &mAcct{ID: 1}
	must(t, zlua.Metamethods[*mAcct](e, map[string]any{
		"__add": func(a, b *mAcct) *mAcct { return acct },
		"__lt":  func(a, b *mAcct) bool { return a.Balance < b.Balance },
	}))
	must(t, e.SetGlobal("v", mVec{1, 2}))
	must(t, e.SetGlobal("a", acct))
	const loop = `local v, a, n = v, a, 0
		for i = 1, 1000 do
			local w = v + v
			w = -(v / 2)
			if v == w or v < w or v <= w or a < a then n = n + 1 end
			n = n + #v
			a = a + a
		end`
	run(t, e, loop) // builds the metatables and warms the caches
	allocs := testing.AllocsPerRun(3, func() {
		if err := e.DoString(loop); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 100 { // 8000 operators
		t.Errorf("%.0f allocations for 8000 operators", allocs)
	}
}

// mTag is not blittable (a string): its copies live in Go companions and
// take the reflective plan.
type mTag struct{ Name string }

func TestMetamethodsOnCompanionValues(t *testing.T) {
	e := newEnv(t)
	must(t, zlua.Metamethods[mTag](e, map[string]any{
		"__eq":     func(a, b mTag) bool { return a.Name == b.Name },
		"__concat": func(a, b mTag) mTag { return mTag{a.Name + b.Name} },
		"__lt":     func(a, b mTag) bool { return a.Name < b.Name },
	}))
	must(t, e.SetGlobal("tag", func(s string) mTag { return mTag{s} }))
	run(t, e, `
		local a, b = tag("x"), tag("y")
		assert(a == tag("x") and a ~= b and a < b)
		assert((a .. b).Name == "xy")
		assert(a ~= v, "nil operand")
	`)
	if err := e.DoString(`return tag("x") .. "s"`); err == nil || !strings.Contains(err.Error(), "bad argument #2 to 'mTag.__concat' (mTag expected, got string)") {
		t.Errorf("err = %v", err)
	}
}
