package zlua_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

// Leafer's methods are declared leaf in init; Strider has the same
// methods, undeclared: the C path every leaf call must agree with.
type Leafer struct {
	X, Y  float64
	HP    int
	Env   *zlua.Env // for the methods that break the promise
	Fn    *zlua.Function
	Tab   *zlua.Table
	Moves int
}

func (w *Leafer) Position() (float64, float64) { return w.X, w.Y }
func (w *Leafer) Move(dx, dy float64)          { w.X += dx; w.Y += dy; w.Moves++ }
func (w *Leafer) Damage(n int) bool            { w.HP -= n; return w.HP <= 0 }
func (w *Leafer) Small(a int8, b uint8, c float32, on bool) (int16, bool) {
	return int16(a) + int16(b), on && c > 0
}
func (w *Leafer) Scale(f float32, n uint32) float64 { return float64(f) * float64(n) }
func (w *Leafer) Big(n int64, u uint64) float64     { return float64(n) + float64(u) }
func (w *Leafer) NaN() float64                      { return w.X / w.X }
func (w *Leafer) Nothing()                          {}
func (w *Leafer) Set(x, y float64, hp int)          { w.X, w.Y, w.HP = x, y, hp }
func (w *Leafer) Flags(a, b bool) (bool, int8)      { return a != b, -1 }

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
	case 8:
		return 0, w.Env.Close()
	case 9:
		var x int
		return x, w.Env.Global("x", &x)
	}
	return code, nil
}

type Strider struct{ Leafer }

var leaferLeaves = []string{"Position", "Move", "Damage", "Small", "Scale", "Big", "NaN", "Nothing", "Fail",
	"Set", "Flags"}

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
	return closureCalls(t, e, `local closures = {w.Position, w.Move, w.Damage}`, body, "cfn")
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

// leafProbe defines probe(), which calls w's leaf methods with good and
// bad input of every kind and returns one line per call: its results or
// its error. Run by a compiled loop it goes through the leaf closures;
// in a limited call through the C closures (the reference).
const leafProbe = `
	local function sentinel(fn)
		if newproxy then
			local p = newproxy(true); getmetatable(p).__gc = fn; return p
		end
		return setmetatable({}, {__gc = fn})
	end
	do
		local o = gone
		gone = nil
		sentinel(function() released = o end)
	end
	if jit then jit.flush() end
	collectgarbage(); collectgarbage()
	assert(released, "finalizer did not run")
	local function pack(...) return {n = select("#", ...), ...} end
	local cases = {
		function() return pack(w:Position()) end,
		function() w:Move(1.5, -2); return pack(w:Position()) end,
		function() return pack(w:Damage(1), w:Damage(98), w:Damage(1)) end,
		function() return pack(w:Small(-128, 255, 0.5, true)) end,
		function() return pack(w:Small(127, 0, -1, false)) end,
		function() return pack(w:Small(-1, 1, 3.4e38, true)) end,
		function() return pack(w:Scale(0.1, 3), w:Scale(-1e38, 4294967295)) end,
		function() return pack(w:Big(2^53, 2^53), w:Big(-2^53, 0)) end,
		function() w:Set(0, 0, 100); local n = w:NaN(); return pack(n ~= n, w:NaN()) end,
		function() return pack(w:Nothing()) end,
		function() return pack(w:Flags(true, false)) end,
		function() return pack(w:Fail(0), w:Fail(5 - 5)) end,
		-- wrong types
		function() return pack(w:Move("1", 2)) end,
		function() return pack(w:Move("x", 2)) end,
		function() return pack(w:Move(nil, 1)) end,
		function() return pack(w:Move()) end,
		function() return pack(w:Move(1)) end,
		function() return pack(w:Move(1, 2, 3)) end,
		function() return pack(w:Move({}, 1)) end,
		function() return pack(w:Move(true, 1)) end,
		function() return pack(w:Move(0/0, 1), w:Position() ~= w:Position()) end,
		function() w:Set(0, 0, 100); return pack(w:Move(math.huge, -math.huge), w:Position()) end,
		function() return pack(w:Damage(0/0)) end,
		function() return pack(w:Damage(math.huge)) end,
		function() return pack(w:Damage(-math.huge)) end,
		function() return pack(w:Damage(2^53)) end,
		function() return pack(w:Damage(2^53 + 2)) end,
		function() return pack(w:Damage(2^63)) end,
		function() return pack(w:Damage(1.5)) end,
		function() return pack(w:Damage("3")) end,
		function() return pack(w:Damage(true)) end,
		function() return pack(w:Small(128, 0, 1, true)) end,
		function() return pack(w:Small(-129, 0, 1, true)) end,
		function() return pack(w:Small(0, 256, 1, true)) end,
		function() return pack(w:Small(0, -1, 1, true)) end,
		function() return pack(w:Small(0, 0, 1e39, true)) end,
		function() return pack(w:Small(0, 0, -1e39, true)) end,
		function() return pack(w:Small(0, 0, 0/0, true)) end,
		function() return pack(w:Small(0, 0, math.huge, true)) end,
		function() return pack(w:Small(0, 0, 1, 1)) end,
		function() return pack(w:Small(0, 0, 1, nil)) end,
		function() return pack(w:Small(0, 0, 1)) end,
		function() return pack(w:Small(0.5, 0, 1, true)) end,
		function() return pack(w:Scale(0.1, -1)) end,
		function() return pack(w:Scale(0.1, 2^32)) end,
		function() return pack(w:Big(2^60, 1)) end,
		function() return pack(w:Big(0, -1)) end,
		function() return pack(w:Big(0, 2^64)) end,
		function() return pack(w:Flags(1, false)) end,
		function() return pack(w:Flags(nil, false)) end,
		-- receivers
		function() return pack(w.Move(1, 2)) end,
		function() return pack(w.Move({}, 1, 2)) end,
		function() return pack(w.Move(nil, 1, 2)) end,
		function() return pack(w.Move(other, 1, 2)) end,
		function() return pack(w.Move(io.stdout, 1, 2)) end,
		function() return pack(w.Move(released, 1, 2)) end,
		function() return pack(w.Position(released)) end,
		function() return pack(w.Position(other)) end,
		function() return pack(w.Position()) end,
		-- failures
		function() return pack(w:Fail(1)) end,
		function() return pack(w:Fail(2)) end,
		function() return pack(w:Fail(6)) end,
		function() return pack(w:Fail(3)) end,
		function() return pack(w:Fail(7)) end,
	}
	function probe()
		w:Set(0, 0, 100)
		local out = {}
		for i, f in ipairs(cases) do
			local ok, r = pcall(f)
			if ok then
				for j = 1, r.n do r[j] = tostring(r[j]) end
				r = table.concat(r, " ", 1, r.n)
			end
			out[i] = i .. ": " .. tostring(ok) .. " " .. r
		end
		return table.concat(out, "\n")
	end`

// The same calls give byte-identical results and errors through the leaf
// closures (a loop LuaJIT compiles) and through the C closures (a limited
// call, which takes them), on both backends; on LuaJIT with the direct
// calls of amd64 and with the dispatch path of other architectures.
func TestLeafCallsMatchTheCPath(t *testing.T) {
	for _, direct := range []bool{true, false} {
		t.Run(fmt.Sprintf("direct=%v", direct), func(t *testing.T) {
			defer zlua.LeafDirect(zlua.LeafDirect(direct))
			leafCallsMatchTheCPath(t)
		})
	}
}

func leafCallsMatchTheCPath(t *testing.T) {
	e := newEnv(t)
	w := &Leafer{Env: e}
	must(t, e.SetGlobal("w", w))
	must(t, e.SetGlobal("gone", &Leafer{}))
	must(t, e.SetGlobal("other", &Strider{}))
	run(t, e, leafProbe)
	run(t, e, `for i = 1, 300 do leafout = probe() end`)
	leaf := global[string](t, e, "leafout")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	must(t, e.DoStringContext(ctx, `cout = probe()`))
	cpath := global[string](t, e, "cout")
	if leaf != cpath {
		ll, cl := strings.Split(leaf, "\n"), strings.Split(cpath, "\n")
		for i := range min(len(ll), len(cl)) {
			if ll[i] != cl[i] {
				t.Errorf("leaf path: %s\n   C path: %s", ll[i], cl[i])
			}
		}
		if len(ll) != len(cl) {
			t.Errorf("%d lines through the leaf path, %d through the C path", len(ll), len(cl))
		}
	}
	for _, want := range []string{
		"4: true 127 true", "13: true ", "14: false (dostring)", "number expected, got string",
		"bad self (Leafer expected, got Strider)", "attempt to use a released object",
		"leafer failed", "leafer panicked", "Leafer.Fail is declared leaf and cannot yield",
		"Leafer.Fail is declared leaf and cannot call into its Env", "number out of range",
	} {
		if !strings.Contains(leaf, want) {
			t.Errorf("probe output lacks %q:\n%s", want, leaf)
		}
	}
	if testing.Verbose() {
		fmt.Println(leaf)
	}
}

// A leaf method that calls into its Env gets an error wrapping
// ErrLeafCall, and its call raises that error in Lua whatever it did with
// it; the Env stays usable. The same on both backends, through the leaf
// closures (a compiled loop) and the C closures (a limited call).
func TestLeafMethodCannotCallIntoItsEnv(t *testing.T) {
	e := newEnv(t)
	tab, err := e.NewTable()
	must(t, err)
	must(t, tab.Set("k", 1))
	fn, err := e.LoadString("f", "return 1")
	must(t, err)
	w := &Leafer{Env: e, Tab: tab, Fn: fn}
	must(t, e.SetGlobal("w", w))
	const want = "zlua: Leafer.Fail is declared leaf and cannot call into its Env"
	for code, what := range map[int]string{3: "DoString", 4: "Table.Get", 5: "Function.Call",
		7: "DoString, error ignored", 8: "Close", 9: "Global"} {
		chunk := fmt.Sprintf(`for i = 1, 100 do w:Fail(%d) end`, code)
		for _, limited := range []bool{false, true} {
			err := doMaybeLimited(e, chunk, limited)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s (limited %v): %v, want %q", what, limited, err, want)
			}
			if !errors.Is(err, zlua.ErrLeafCall) {
				t.Errorf("%s (limited %v): %v does not wrap ErrLeafCall", what, limited, err)
			}
			// usable afterwards: Lua, Go calls, the guard is off
			run(t, e, `x = 41; w:Move(1, 1); assert(w:Fail(0) == 0)`)
			if x := global[int](t, e, "x"); x != 41 {
				t.Errorf("after %s: x = %d", what, x)
			}
		}
	}
	// the held handles still work from Go
	var v int
	must(t, tab.Get("k", &v))
	if _, err := fn.Call(); err != nil {
		t.Errorf("Function.Call after the leaf errors: %v", err)
	}
	// Yield from a leaf method, inside a coroutine: an error, not a yield
	run(t, e, `
		local co = coroutine.create(function() for i = 1, 100 do w:Fail(6) end end)
		local ok, err = coroutine.resume(co)
		assert(not ok and err:find("Leafer.Fail is declared leaf and cannot yield", 1, true), err)`)
}

// Panics and error results of leaf methods raise what the C path raises
// (TestLeafCallsMatchTheCPath compares the texts); the Env stays usable
// and counts the panics and calls.
func TestLeafPanicsAndErrorsKeepTheEnvUsable(t *testing.T) {
	e := newEnv(t)
	w := &Leafer{Env: e, HP: 10}
	must(t, e.SetGlobal("w", w))
	before := e.Stats()
	run(t, e, `
		for i = 1, 200 do
			local ok, err = pcall(w.Fail, w, 1 + i % 2)
			assert(not ok and (err:find("leafer failed") or err:find("leafer panicked")), err)
			w:Move(1, 0)
		end`)
	after := e.Stats()
	if p := after.Panics - before.Panics; p != 100 {
		t.Errorf("Stats().Panics grew by %d, want 100", p)
	}
	if c := after.GoCalls - before.GoCalls; c < 400 {
		t.Errorf("Stats().GoCalls grew by %d, want at least 400", c)
	}
	if w.X != 200 {
		t.Errorf("X = %v after 200 moves", w.X)
	}
	run(t, e, `assert(w:Damage(1) == false)`)
}

type leafBad struct{}

func (*leafBad) Str(s string)                      {}
func (*leafBad) Five(a, b, c, d, e int)            {}
func (*leafBad) Three() (int, int, int)            { return 0, 0, 0 }
func (*leafBad) Var(a ...int)                      {}
func (*leafBad) Ptr() (*leafBad, int)              { return nil, 0 }
func (*leafBad) Ok(a int, b float32) (bool, error) { return false, nil }

type leafLate struct{ N int }

func (l *leafLate) Inc() { l.N++ }

// Declarations that the leaf path cannot take fail with an error naming
// the method and why, and declare nothing.
func TestLeafDeclarationErrors(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{zlua.Leaf[*leafBad]("Missing"), `zlua: Leaf[*zlua_test.leafBad]: *zlua_test.leafBad has no exported method "Missing"`},
		{zlua.Leaf[*leafBad]("Str"), "method Str: parameter 1 is string (a leaf method takes numbers and booleans)"},
		{zlua.Leaf[*leafBad]("Five"), "method Five: takes 5 parameters (a leaf method takes at most 4)"},
		{zlua.Leaf[*leafBad]("Three"), "method Three: returns 3 values"},
		{zlua.Leaf[*leafBad]("Var"), "method Var: is variadic"},
		{zlua.Leaf[*leafBad]("Ptr"), "method Ptr: result 1 is *zlua_test.leafBad (a leaf method returns numbers and booleans, or one pointer)"},
		{zlua.Leaf[*leafBad]("Ok", "Str"), "method Str"},
		{zlua.Leaf[leafBad]("Ok"), "leaf methods need a pointer type"},
		{zlua.Leaf[*leafBad](), "no method named"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("got %v, want %q", c.err, c.want)
		}
	}
	must(t, zlua.Leaf[*leafBad]("Ok"))
	must(t, zlua.Leaf[*leafBad]("Ok")) // again: harmless
	// after an Env bound the type: refused
	e := newEnv(t)
	must(t, e.SetGlobal("l", &leafLate{}))
	err := zlua.Leaf[*leafLate]("Inc")
	if err == nil || !strings.Contains(err.Error(), "method Inc declared after an Env bound the type") {
		t.Errorf("late declaration: %v", err)
	}
	// a declaration that changes nothing is accepted after binding
	must(t, zlua.Leaf[*Leafer]("Move", "Damage"))
}

// A leaf method is one value per type (the methods table holds it), and
// what debug reaches of its closure leads to no raw memory: no upvalue is
// a cdata that can be indexed or offset, and the FFI functions, called by
// a script with forged arguments, refuse them (LuaJIT; on Lua 5.4 the
// method is the trampoline).
func TestLeafClosureEdges(t *testing.T) {
	e := newEnv(t)
	w, w2 := &Leafer{HP: 5}, &Leafer{}
	must(t, e.SetGlobal("w", w))
	must(t, e.SetGlobal("w2", w2))
	must(t, e.SetGlobal("other", &Strider{}))
	run(t, e, `
		assert(w.Move == w.Move and w.Move == w2.Move and w.Damage ~= w.Move)
		assert(other.Move ~= w.Move)
		local ups = {}
		for i = 1, math.huge do
			local name, u = debug.getupvalue(w.Move, i)
			if name == nil then break end
			ups[name] = u
			if type(u) == "cdata" then
				assert(not pcall(function() return u[0] end), name .. " can be indexed")
				assert(not pcall(function() return u + 1 end), name .. " can be offset")
				assert(not pcall(function() return u.x end), name .. " has fields")
			end
		end
		if not jit then
			assert(next(ups) == nil or ups.cfn == nil)
			return
		end
		local call, res, env, finish = ups.call2, ups.res, ups.env, ups.finish
		assert(call and res and env and finish and ups.cfn, "leaf closure upvalues")
		local spec, fnid = ups.spec, ups.fnid
		-- the genuine call works
		assert(call(env, w, spec, fnid, 1, 2) == 1 and w.X == 1 and w.Y == 2)
		-- forged: another binding, another type's object, unknown or
		-- foreign function ids, booleans for numbers, a non-zlua userdata
		assert(call(env, w, spec + 16, fnid, 1, 2) == 0)
		assert(call(env, other, spec, fnid, 1, 2) == 0)
		assert(call(env, w, spec, 1e6, 1, 2) == 0)
		assert(call(env, w, spec, 0, 1, 2) == 0)
		assert(call(env, w, spec + 3, fnid, 1, 2) == 0)
		assert(call(env, io.stdout, spec, fnid, 1, 2) == 0)
		-- the other arities against Move: the count is refused
		assert(ups.call1 == nil or ups.call1(env, w, spec, fnid, 1) == 0)
		assert(not pcall(call, env, {}, spec, fnid, 1, 2))
		assert(res(env, 0) ~= res(env, 0) and res(env, 7) ~= res(env, 7))
		assert(select("#", finish()) == 0)
		assert(w.X == 1 and w.Y == 2, "a forged call moved w")`)
}

// Limited calls (deadline, instruction limit) run with the JIT off and
// take the C closures, where an FFI call would cost more; script hooks
// keep firing in loops of leaf calls.
func TestLeafLimitedCallsAndHooks(t *testing.T) {
	e := newEnv(t)
	w := &Leafer{HP: 1 << 20}
	must(t, e.SetGlobal("w", w))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	must(t, e.DoStringContext(ctx, `
		local cfuncs = {}
		for i = 1, math.huge do
			local name, u = debug.getupvalue(w.Move, i)
			if name == nil then break end
			if name == "cfn" then cfuncs[u] = true end
		end
		if debug.getinfo(w.Move, "S").what == "C" then cfuncs[w.Move] = true end
		local n, getinfo = 0, debug.getinfo
		debug.sethook(function() if cfuncs[getinfo(2, "f").func] then n = n + 1 end end, "c")
		for i = 1, 100 do w:Move(1, 0) end
		debug.sethook()
		assert(n == 100, n .. " C closure calls in a limited call, want 100")`))
	// (LuaJIT runs no count hook in compiled code, leaf calls or not:
	// the interpreter is where hooks fire)
	run(t, e, `
		local hits = 0
		if jit then jit.off() end
		debug.sethook(function() hits = hits + 1 end, "", 1000)
		for i = 1, 100000 do w:Move(0, 1) end
		debug.sethook()
		if jit then jit.on() end
		assert(hits > 10, hits)`)
	if w.X != 100 || w.Y != 100000 {
		t.Errorf("X, Y = %v, %v", w.X, w.Y)
	}
	// a deadline stops a loop of leaf calls
	ctx2, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	err := e.DoStringContext(ctx2, `while true do w:Move(0, 0) end`)
	if err == nil {
		t.Fatal("endless loop of leaf calls under a deadline returned nil")
	}
	run(t, e, `w:Move(1, 0)`)
}

// Close from another goroutine while leaf calls run is refused
// (ErrConcurrentUse) and changes nothing; the loop finishes.
func TestLeafCallsRacingClose(t *testing.T) {
	e, err := zlua.New(zlua.Options{})
	must(t, err)
	w := &Leafer{}
	must(t, e.SetGlobal("w", w))
	stop := make(chan struct{})
	refused := make(chan int)
	// The Closes start once the script runs: a Close that won the claim
	// before DoString began would close the Env, or make DoString's start
	// ErrConcurrentUse, and the calls would not race it at all.
	begun := make(chan struct{})
	must(t, e.SetGlobal("begun", func() { close(begun) }))
	go func() {
		<-begun
		n := 0
		for {
			select {
			case <-stop:
				refused <- n
				return
			default:
			}
			if err := e.Close(); errors.Is(err, zlua.ErrConcurrentUse) {
				n++
			}
		}
	}()
	err = e.DoString(`begun() for i = 1, 3000000 do w:Move(1, 0) end`)
	close(stop)
	if n := <-refused; n == 0 {
		t.Log("no Close was refused while the script ran") // a slow goroutine start
	}
	must(t, err)
	if w.X != 3000000 {
		t.Errorf("X = %v", w.X)
	}
	must(t, e.Close())
}

// Leaf calls allocate nothing in Lua; a script that runs out of memory
// among them gets the memory error as always, and leaf calls work after.
func TestLeafCallsUnderAMemoryLimit(t *testing.T) {
	e, err := zlua.New(zlua.Options{MemoryLimit: 8 << 20})
	must(t, err)
	defer e.Close()
	w := &Leafer{}
	must(t, e.SetGlobal("w", w))
	err = e.DoString(`local t = {} for i = 1, 1e8 do w:Move(1, 0); t[i] = {w:Position()} end`)
	if !errors.Is(err, zlua.ErrMemory) {
		t.Fatalf("err = %v, want ErrMemory", err)
	}
	x := w.X
	run(t, e, `collectgarbage(); for i = 1, 1000 do w:Move(1, 0) end`)
	if w.X != x+1000 {
		t.Errorf("X = %v, want %v", w.X, x+1000)
	}
}

// A leaf method's panic keeps the Go stack from where it was raised, on
// the leaf path (LuaJIT's FFI call) as on the trampoline's.
func TestLeafMethodPanicCarriesItsStack(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("w", &Leafer{}))
	err := e.DoString(`w:Fail(2)`)
	var pe *zlua.PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v, want *PanicError", err)
	}
	// "function\n\tfile:line" per frame: the panic, then the method
	lines := strings.Split(pe.Stack(), "\n")
	if len(lines) < 3 || lines[0] != "runtime.gopanic" || !strings.HasSuffix(lines[2], "(*Leafer).Fail") {
		t.Errorf("the stack does not start at the method's panic:\n%s", pe.Stack())
	}
}

// A leaf method called without any argument says "got no value", as the
// undeclared method does: LuaJIT's leaf closure passes the arguments on
// as they came (probe L1 F1: it passed an explicit nil receiver).
func TestLeafMethodWithoutReceiver(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("w", &Leafer{}))
	must(t, e.SetGlobal("p", &Player{}))
	for chunk, want := range map[string]string{
		`local f = w.Position; f()`:    "calling 'Leafer:Position' on bad self (Leafer expected, got no value)",
		`local f = w.Move; f()`:        "calling 'Leafer:Move' on bad self (Leafer expected, got no value)",
		`local f = w.Position; f(nil)`: "calling 'Leafer:Position' on bad self (Leafer expected, got nil)",
		`local f = w.Move; f(w)`:       "bad argument #1 to 'Leafer:Move' (number expected, got no value)",
		`local f = p.Hurt; f()`:        "calling 'Player:Hurt' on bad self (Player expected, got no value)",
	} {
		err := e.DoString(chunk)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", chunk, err, want)
		}
	}
}
