package zlua_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

var onLuaJIT = strings.HasPrefix(zlua.Backend, "LuaJIT")

// cFunctionCalls runs body after the first field access of global v
// (which pins an object) and returns how many calls of zlua's C field
// closures it made, counted by a call hook: on Lua 5.4 they are v's
// __index and __newindex; on LuaJIT they are the upvalues of the Lua
// closures (jitindex.c) named in names, which an FFI call replaces.
func cFunctionCalls(t *testing.T, e *zlua.Env, v, body string, names ...string) int {
	t.Helper()
	return closureCalls(t, e, `local v = `+v+`
		local _ = v.F64
		local mt = debug.getmetatable(v)
		local closures = {mt.__index, mt.__newindex}`, body, names...)
}

// closureCalls runs prelude, which sets the local closures to a list of
// functions, then returns how many calls of the C functions among them,
// and of those held as their upvalues named in names, body made (a call
// hook counts them).
func closureCalls(t *testing.T, e *zlua.Env, prelude, body string, names ...string) int {
	t.Helper()
	upv := "{"
	for _, n := range names {
		upv += fmt.Sprintf("[%q] = true, ", n)
	}
	upv += "}"
	run(t, e, prelude+`
		local cfuncs, names = {}, `+upv+`
		for _, f in ipairs(closures) do
			if debug.getinfo(f, "S").what == "C" then cfuncs[f] = true end
			for i = 1, math.huge do
				local name, u = debug.getupvalue(f, i)
				if name == nil then break end
				if names[name] then cfuncs[u] = true end
			end
		end
		assert(next(cfuncs) ~= nil, "no C closure found")
		local n, getinfo = 0, debug.getinfo
		debug.sethook(function() if cfuncs[getinfo(2, "f").func] then n = n + 1 end end, "c")
		`+body+`
		debug.sethook()
		ccalls = n`)
	return global[int](t, e, "ccalls")
}

// On LuaJIT the numeric and boolean fields of a pinned Go object are read
// and written by FFI calls from the compiled __index/__newindex closures
// (jitindex.c), without a lua_CFunction; on Lua 5.4 each access is a call
// of the C closure.
func TestJITFieldAccessMakesNoCFunctionCall(t *testing.T) {
	e := newEnv(t)
	m := &Mob{Extra: &Extra{}, F64: 1}
	must(t, e.SetGlobal("m", m))
	n := cFunctionCalls(t, e, "m", `
		for i = 1, 10 do
			m.I = m.I + i; m.F64 = m.F64 * 2; m.On = not m.On; m.U8 = m.U8 + 1
		end`, "getter", "setter")
	if onLuaJIT {
		if n != 0 {
			t.Errorf("LuaJIT: 80 field accesses made %d calls of the C closures, want 0", n)
		}
	} else if n < 80 {
		t.Errorf("Lua 5.4: 80 field accesses made %d calls of the C closures, want 80", n)
	}
	if m.I != 55 || m.F64 != 1024 || m.On || m.U8 != 10 {
		t.Errorf("Go sees %+v", m)
	}
	// Strings, fields of embedded pointers and methods keep their paths.
	run(t, e, `m.Name = "x"; m.Gold = 2; m:Hit(5); assert(m.Name == "x" and m.Gold == 2 and m.I == 50)`)
}

// Values the fast path does not store as they are (conversions, errors)
// and objects it does not prove reach the C closure, with its results and
// messages; compiled loops (200 iterations) and interpreted code agree.
func TestJITFieldEdgeValuesMatchTheCPath(t *testing.T) {
	e := newEnv(t)
	m := &Mob{Extra: &Extra{}}
	must(t, e.SetGlobal("m", m))
	run(t, e, `
		for i = 1, 200 do
			m.I8, m.I16, m.I32, m.I64 = -128, 32767, -2147483648, -9007199254740992
			m.U8, m.U16, m.U32, m.U = 255, 65535, 4294967295, 2^62
			m.UP, m.F32, m.F64, m.On = 7, 0.25, -1e300, true
			m.I = "12"         -- a numeric string: the C closure converts it
			m.U64 = 2^63       -- above the int64 range: the C closure
			m.score = i
		end`)
	want := Mob{I8: -128, I16: 32767, I32: -2147483648, I64: -1 << 53, U8: 255, U16: 65535,
		U32: 4294967295, U: 1 << 62, UP: 7, F32: 0.25, F64: -1e300, On: true, I: 12, U64: 1 << 63}
	want.Extra, want.Score = m.Extra, 200
	if *m != want {
		t.Errorf("after writes:\n got %+v\nwant %+v", *m, want)
	}
	m.U64, m.F32, m.F64 = math.MaxUint64, float32(math.Inf(-1)), math.NaN()
	run(t, e, `
		for i = 1, 200 do
			assert(m.U64 == 2^64 and m.I8 == -128 and m.U32 == 4294967295 and m.On == true)
			assert(m.F32 == -math.huge and m.F64 ~= m.F64 and m.I64 == -2^53 and m.score == 200)
		end`)
	m.F32, m.F64 = 0, 0
	run(t, e, `for i = 1, 200 do m.F64 = 0/0; m.F32 = math.huge end`) // inf converts (C closure)
	if !math.IsNaN(m.F64) || !math.IsInf(float64(m.F32), 1) {
		t.Errorf("F64 %v F32 %v, want NaN and +Inf", m.F64, m.F32)
	}
	for _, c := range []struct{ chunk, want string }{
		{"for i = 1, 200 do m.I8 = 100 + i end", "number out of range for int8"},
		{"for i = 1, 200 do m.I = i + 0.5 end", "number has no integer representation"},
		{"for i = 1, 200 do m.U32 = -i end", "number out of range for uint32"},
		{"for i = 1, 200 do m.F32 = 1e39 end", "number out of range for float32"},
		{"for i = 1, 200 do m.On = i end", "boolean expected, got number"},
		{"for i = 1, 200 do m.I = i > 0 end", "number expected, got boolean"},
		{"for i = 1, 200 do m.F64 = {} end", "number expected, got table"},
	} {
		err := e.DoString(c.chunk)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.chunk, err, c.want)
		}
	}
}

// The index closures are called with other values than their objects only
// through debug.getmetatable: those, and objects of another type, go to
// the C closure, which refuses or serves them as before.
func TestJITFieldClosuresOnForeignValues(t *testing.T) {
	e := newEnv(t)
	m, v := &Mob{Extra: &Extra{}, I: 3}, &Vec{X: 2}
	must(t, e.SetGlobal("m", m))
	must(t, e.SetGlobal("v", v))
	run(t, e, `
		assert(m.I == 3 and v.X == 2)
		local idx = debug.getmetatable(m).__index
		local nidx = debug.getmetatable(m).__newindex
		-- another type's object: the C closure decides (Lua 5.4 refuses it,
		-- LuaJIT's serves it from its own type's directory)
		local ok, x = pcall(idx, v, "X")
		assert(not ok or x == 2)
		for _, x in ipairs({1, "s", {}, true, io.stdout, newproxy and newproxy() or 2}) do
			assert(not pcall(idx, x, "I"))
			assert(not pcall(nidx, x, "I", 1))
		end
		assert(m.I == 3)`)
	if v.X != 2 || m.I != 3 {
		t.Errorf("v.X = %v, m.I = %v", v.X, m.I)
	}
}

// A limited call (a deadline) runs LuaJIT interpreted: its field accesses
// take the C closures, with the same results.
func TestJITFieldsUnderADeadline(t *testing.T) {
	e := newEnv(t)
	m := &Mob{Extra: &Extra{}}
	must(t, e.SetGlobal("m", m))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := e.DoStringContext(ctx, `for i = 1, 1000 do m.I = m.I + 1; m.F64 = m.I / 2 end`); err != nil {
		t.Fatal(err)
	}
	run(t, e, `for i = 1, 1000 do m.I = m.I + 1 end`)
	if m.I != 2000 || m.F64 != 500 {
		t.Errorf("m.I = %d, m.F64 = %v", m.I, m.F64)
	}
}

// The sandbox drops ffi from package.loaded although zlua keeps the
// module for its closures; on LibsAll, require finds the module zlua
// loaded.
func TestJITFieldsKeepFFIOutOfTheSandbox(t *testing.T) {
	e, err := zlua.New(zlua.Options{Libs: zlua.LibsSafe})
	must(t, err)
	defer e.Close()
	m := &Mob{Extra: &Extra{}, I: 1}
	must(t, e.SetGlobal("m", m))
	run(t, e, `for i = 1, 200 do m.I = m.I + 1 end
		assert(package.loaded.ffi == nil and package.preload.ffi == nil)
		assert(not pcall(require, "ffi"))`)
	if m.I != 201 {
		t.Errorf("m.I = %d", m.I)
	}
	if onLuaJIT {
		all := newEnv(t)
		run(t, all, `local ffi = require "ffi"; assert(type(ffi.cast) == "function")`)
	}
}

// BenchmarkJITFieldAccess is one read and one write of numeric fields of a
// pinned Go object per op, in a loop LuaJIT compiles, in the same loop with
// the compiler off (jit.off: LuaJIT's interpreter runs the FFI calls), and
// under a deadline (a limited call: the C closures serve it).
//
//	go test -tags luajit -run '^$' -bench JITFieldAccess -benchtime 2000000x .
func BenchmarkJITFieldAccess(b *testing.B) {
	const loop = `local m, s = m, 0; for i = 1, %d do s = s + m.F64; m.I = i end`
	for _, c := range []struct{ name, prep string }{{"compiled", ""}, {"interpreted", "jit.off()"}, {"limited", ""}} {
		b.Run(c.name, func(b *testing.B) {
			e, err := zlua.New(zlua.Options{})
			must(b, err)
			defer e.Close()
			m := &Mob{Extra: &Extra{}}
			must(b, e.SetGlobal("m", m))
			run(b, e, "local _ = m.F64")
			timedVariant(b, e, c.name, c.prep, fmt.Sprintf(loop, b.N))
			if m.I != b.N {
				b.Fatalf("m.I = %d, want %d", m.I, b.N)
			}
		})
	}
}

// Every write the fast path sees agrees with the C closures: the same
// (field, value) pairs are written in a loop LuaJIT compiles and in a
// limited call (which the C closures serve), and the errors, the Go
// struct and what Lua reads back must match. On Lua 5.4 both runs take
// the C closures (the test then checks limited and plain calls agree).
func TestJITFieldPathsAgree(t *testing.T) {
	fast, slow := newEnv(t), newEnv(t)
	mf, ms := &Mob{Extra: &Extra{}}, &Mob{Extra: &Extra{}}
	must(t, fast.SetGlobal("m", mf))
	must(t, slow.SetGlobal("m", ms))
	run(t, fast, "local _ = m.I")
	run(t, slow, "local _ = m.I")
	snapshot := func(e *zlua.Env) string {
		m := *mf
		if e == slow {
			m = *ms
		}
		m.Extra = nil // distinct pointers, equal contents
		return fmt.Sprintf("%+v", m)
	}
	writeAgreement(t, fast, slow, "m", []string{"I8", "I16", "I32", "I64", "I", "U8", "U16", "U32", "U64",
		"U", "UP", "F32", "F64", "On", "ID", "score"}, snapshot)
}

// On LuaJIT, == between two keyed objects proved by their addresses is
// decided by an FFI call from the compiled __eq closure; the C closure
// (its upvalue ceq) runs only for what it refuses (views of one object,
// unkeyed objects, anything else). On Lua 5.4 __eq is the C closure, and
// two plain keyed objects have none (callbackgate's needsEq): only views
// and unkeyed objects call it.
func TestJITObjectEqualityWithoutACFunction(t *testing.T) {
	e := equalityEnv(t)
	count := func(body string) int {
		run(t, e, `
			local eq = debug.getmetatable(va).__eq
			local c = {}
			if debug.getinfo(eq, "S").what == "C" then c[eq] = true end
			for i = 1, math.huge do
				local name, v = debug.getupvalue(eq, i)
				if name == nil then break end
				if name == "ceq" then c[v] = true end
			end
			local n, getinfo = 0, debug.getinfo
			debug.sethook(function() if c[getinfo(2, "f").func] then n = n + 1 end end, "c")
			`+body+`
			debug.sethook()
			ccalls = n`)
		return global[int](t, e, "ccalls")
	}
	// a == a2 is one userdata (no __eq); a ~= b calls none on Lua 5.4,
	// va ~= vb the C one there
	keyed := count(`for i = 1, 10 do assert(a == a2 and a ~= b and va ~= vb) end`)
	views := count(`for i = 1, 10 do assert(a == va and sa ~= sb) end`)
	if onLuaJIT && keyed != 0 {
		t.Errorf("LuaJIT: 20 keyed comparisons called the C __eq %d times, want 0", keyed)
	} else if !onLuaJIT && keyed != 10 {
		t.Errorf("Lua 5.4: 10 comparisons of plain objects and 10 of views called the C __eq %d times, want 10", keyed)
	}
	if views != 20 {
		t.Errorf("20 comparisons of views and unkeyed objects called the C __eq %d times, want 20", views)
	}
	// compiled loops and limited calls agree
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	const cmp = `local r = {}
		for i = 1, 200 do
			r = {a == a2, a == b, a ~= b, va == vb, a == va, vb == b, sa == sb, sa == sa, a == sa, va == sb}
		end
		eqs = table.concat((function() local t = {} for i, x in ipairs(r) do t[i] = tostring(x) end return t end)(), ",")`
	run(t, e, cmp)
	fast := global[string](t, e, "eqs")
	must(t, e.DoStringContext(ctx, cmp))
	if slow := global[string](t, e, "eqs"); fast != slow || fast != "true,false,true,false,true,true,false,true,false,false" {
		t.Errorf("compiled %s, limited %s", fast, slow)
	}
}

// The fields of a blittable struct pushed by value are read and written by
// FFI calls on LuaJIT too (the payload is in the userdata); methods, nested
// structs, arrays and companions keep the C closures.
func TestJITStructFieldAccessMakesNoCFunctionCall(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("s", Sample{F64: 1, Pos: Vec3{X: 3, Y: 4}}))
	n := cFunctionCalls(t, e, "s", `
		for i = 1, 10 do
			s.I = s.I + i; s.F64 = s.F64 * 2; s.On = not s.On; s.U8 = s.U8 + 1
		end`, "cindex", "cnewindex")
	if onLuaJIT && n != 0 {
		t.Errorf("LuaJIT: 80 struct field accesses made %d calls of the C closures, want 0", n)
	} else if !onLuaJIT && n != 80 {
		t.Errorf("Lua 5.4: 80 struct field accesses made %d calls of the C closures, want 80", n)
	}
	var got Sample
	must(t, e.Global("s", &got))
	if got.I != 55 || got.F64 != 1024 || got.On || got.U8 != 10 {
		t.Errorf("Go reads %+v", got)
	}
	run(t, e, `assert(s.Pos:Len() == 5 and s.Arr[1] == 0)`)
	must(t, e.SetGlobal("r", Record{Name: "n", N: 2}))
	run(t, e, `for i = 1, 200 do r.N = r.N + 1 end; assert(r.N == 202 and r.Name == "n" and r:Summary() == "n:")`)
}

// writeAgreement writes every (field, value) pair into global v of two
// Envs, in a loop LuaJIT compiles and in a limited call (the C closures),
// and fails on any difference of errors, of what snapshot reports after
// each write, or of what Lua reads back at the end.
func writeAgreement(t *testing.T, fast, slow *zlua.Env, v string, fields []string, snapshot func(*zlua.Env) string) {
	t.Helper()
	values := []string{"0", "1", "-1", "127", "128", "-129", "255", "256", "32767", "-32769", "65535", "65536",
		"2147483647", "2147483648", "-2147483649", "4294967295", "4294967296", "2^53", "-2^53", "2^63", "-2^63",
		"2^64", "1.5", "-0.0", "0/0", "math.huge", "-math.huge", "1e39", "-1e39", "3.4028234663852886e38",
		"'12'", "'0x10'", "'1.5'", "'x'", "true", "false", "nil", "{}"}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	for _, f := range fields {
		for _, val := range values {
			chunk := fmt.Sprintf("for i = 1, 100 do %s.%s = %s end", v, f, val)
			errFast := fast.DoString(chunk)
			errSlow := slow.DoStringContext(ctx, chunk)
			if fmt.Sprint(errFast) != fmt.Sprint(errSlow) {
				t.Errorf("%s: compiled %v, limited %v", chunk, errFast, errSlow)
			}
			if a, b := snapshot(fast), snapshot(slow); a != b {
				t.Fatalf("%s: after the compiled loop %s, after the limited call %s", chunk, a, b)
			}
		}
	}
	read := fmt.Sprintf(`local t = {}
		for _, k in ipairs({"%s"}) do
			local x
			for i = 1, 100 do x = %s[k] end
			t[#t + 1] = k .. "=" .. tostring(x)
		end
		readback = table.concat(t, " ")`, strings.Join(fields, `", "`), v)
	run(t, fast, read)
	must(t, slow.DoStringContext(ctx, read))
	if a, b := global[string](t, fast, "readback"), global[string](t, slow, "readback"); a != b {
		t.Errorf("reads differ:\ncompiled %s\nlimited  %s", a, b)
	}
}

func TestJITStructFieldPathsAgree(t *testing.T) {
	fast, slow := newEnv(t), newEnv(t)
	must(t, fast.SetGlobal("s", Sample{}))
	must(t, slow.SetGlobal("s", Sample{}))
	snapshot := func(e *zlua.Env) string {
		var s Sample
		must(t, e.Global("s", &s))
		return fmt.Sprintf("%+v", s)
	}
	writeAgreement(t, fast, slow, "s", []string{"I8", "I16", "I32", "I64", "I", "U8", "U16", "U32", "U64",
		"F32", "F64", "On", "score"}, snapshot)
}

// timedVariant runs prep (LuaJIT only: jit.off() and the like), then
// times chunk: as a limited call (under a deadline, so LuaJIT's compiler
// is off and the C closures serve it) for the variant "limited", as a
// plain call otherwise. The timer is stopped when it returns.
func timedVariant(b *testing.B, e *zlua.Env, variant, prep, chunk string) {
	b.Helper()
	if prep != "" && onLuaJIT {
		run(b, e, prep)
	}
	b.ReportAllocs()
	b.ResetTimer()
	defer b.StopTimer()
	if variant == "limited" {
		ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
		defer cancel()
		must(b, e.DoStringContext(ctx, chunk))
		return
	}
	run(b, e, chunk)
}
