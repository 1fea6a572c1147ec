package zlua_test

import (
	"errors"
	"testing"

	"github.com/zlua-go/zlua"
)

// Leafer's methods are declared leaf in init; Strider has the same
// methods, undeclared: the C path every leaf call must agree with.
type Leafer struct {
	X, Y  float64
	HP    int
	Env   *zlua.Env    // for the methods that break the promise
	Fn    *zlua.Function
	Tab   *zlua.Table
	Moves int
}

func (w *Leafer) Position() (float64, float64) { return w.X, w.Y }
func (w *Leafer) Move(dx, dy float64)            { w.X += dx; w.Y += dy; w.Moves++ }
func (w *Leafer) Damage(n int) bool              { w.HP -= n; return w.HP <= 0 }
func (w *Leafer) Small(a int8, b uint8, c float32, on bool) (int16, bool) {
	return int16(a) + int16(b), on && c > 0
}
func (w *Leafer) Scale(f float32, n uint32) float64 { return float64(f) * float64(n) }
func (w *Leafer) Big(n int64, u uint64) float64     { return float64(n) + float64(u) }
func (w *Leafer) NaN() float64                      { return w.X / w.X }
func (w *Leafer) Nothing()                          {}

// Fail misbehaves by code: 1 returns an error, 2 panics, 3 calls DoString,
// 4 reads a table, 5 calls a held function, 6 yields, 7 ignores the
// error of its Env call.
func (w *Leafer) Fail(code int) (int, error) {
	switch code {
	case 1:
		return 0, errors.New("leafer failed")
	case 2:
		panic("leafer panicked")
	case 3:
		return 0, w.Env.DoString("x = 1")
	case 4:
		var v int
		return v, w.Tab.Get("k", &v)
	case 5:
		_, err := w.Fn.Call()
		return 0, err
	case 6:
		return 0, zlua.Yield(1)
	case 7:
		_ = w.Env.DoString("x = 1")
		return 7, nil
	}
	return code, nil
}

type Strider struct{ Leafer }

var leaferLeaves = []string{"Position", "Move", "Damage", "Small", "Scale", "Big", "NaN", "Nothing", "Fail"}

func init() {
	if err := zlua.Leaf[*Leafer](leaferLeaves...); err != nil {
		panic(err)
	}
}

// leafCalls counts, with a call hook, the calls of the C closures behind
// w's methods (the Go functions the leaf closures hold as upvalue cfn,
// or the methods themselves where they are C functions) made by body.
func leafCalls(t *testing.T, e *zlua.Env, body string) int {
	t.Helper()
	run(t, e, `
		local cfuncs = {}
		for _, k in ipairs({"Position", "Move", "Damage"}) do
			local f = w[k]
			if debug.getinfo(f, "S").what == "C" then cfuncs[f] = true end
			for i = 1, math.huge do
				local name, u = debug.getupvalue(f, i)
				if name == nil then break end
				if name == "cfn" then cfuncs[u] = true end
			end
		end
		assert(next(cfuncs) ~= nil, "no C method closure found")
		local n, getinfo = 0, debug.getinfo
		debug.sethook(function() if cfuncs[getinfo(2, "f").func] then n = n + 1 end end, "c")
		`+body+`
		debug.sethook()
		ccalls = n`)
	return global[int](t, e, "ccalls")
}

// On LuaJIT a leaf method is called by its Lua closure through the FFI,
// without a lua_CFunction; on Lua 5.4 each call is the trampoline's.
func TestLeafMethodCallsMakeNoCFunctionCall(t *testing.T) {
	e := newEnv(t)
	w := &Leafer{HP: 1000}
	must(t, e.SetGlobal("w", w))
	n := leafCalls(t, e, `
		for i = 1, 100 do
			local x, y = w:Position()
			w:Move(1, 0.5)
			assert(w:Damage(1) == false)
		end`)
	if onLuaJIT {
		if n != 0 {
			t.Errorf("LuaJIT: 300 leaf calls made %d calls of the C closures, want 0", n)
		}
	} else if n != 300 {
		t.Errorf("Lua 5.4: 300 leaf calls made %d calls of the C closures, want 300", n)
	}
	if w.X != 100 || w.Y != 50 || w.HP != 900 || w.Moves != 100 {
		t.Errorf("Go sees %+v", *w)
	}
	if got := e.Stats().GoCalls; got < 300 {
		t.Errorf("Stats().GoCalls = %d after 300 leaf calls", got)
	}
}
