package zlua_test

import (
	"slices"
	"testing"

	"github.com/zlua-go/zlua"
	"github.com/zlua-go/zlua/cgo"
)

// TestNumericParametersAreHintedToTheTrampoline checks that a Go
// function's closure carries the hints of its numeric parameters (two
// bits per argument: signed integer kinds, float kinds; pointers to
// structs; none for other kinds), and a method's hints start after its
// receiver: the trampoline reads numbers with one Lua API call
// (cgo/gate.c, read_num) and a struct pointer's value without the
// integer test (read_arg).
func TestNumericParametersAreHintedToTheTrampoline(t *testing.T) {
	// The first functions of an Env have fast ids, whose hints the env
	// keeps; past them each sentinel keeps its own.
	t.Run("fast", func(t *testing.T) {
		needFastIDs(t)
		testNumericHints(t, newEnv(t), func(e *zlua.Env) []uint32 { return zlua.FastHints(e) })
	})
	t.Run("sentinel", func(t *testing.T) {
		e := newEnv(t)
		burnFastIDs(t, e)
		testNumericHints(t, e, func(e *zlua.Env) []uint32 {
			fn, _ := zlua.ProvenAddrs(e)
			var hints []uint32
			for _, p := range fn {
				hints = append(hints, zlua.SentinelHints(p))
			}
			return hints
		})
	})
}

// testNumericHints registers three functions in e and checks, after a
// call of each, that hints (what the trampolines keep) has its hints.
func testNumericHints(t *testing.T, e *zlua.Env, hints func(*zlua.Env) []uint32) {
	must(t, e.SetGlobal("f", func(a int, b float64, s string, c int8, u uint) int { return a }))
	must(t, e.SetGlobal("g", func(p *hintedObj, n *int, x any, q *hintedObj) {}))
	must(t, e.SetGlobal("obj", &hintedObj{}))
	wantF := cgo.HintInt | cgo.HintNum<<2 | cgo.HintInt<<6 // s and u: no hint
	wantG := cgo.HintRef | cgo.HintRef<<6                  // *int and any take numbers
	wantStep := cgo.HintNum<<2 | cgo.HintInt<<4            // argument 1 is obj
	// Each closure is checked right after its call, which entered its
	// sentinel in the proven-address cache (where two could share an entry).
	for _, c := range []struct {
		script string
		want   uint32
	}{{`f(1, 2, "x", 3, 4)`, wantF}, {`g(obj, nil, 2, nil)`, wantG}, {`obj:Step(1, 2)`, wantStep}} {
		must(t, e.DoString(c.script))
		if h := hints(e); !slices.Contains(h, c.want) {
			t.Errorf("after %s: no function with hints %#x among %#x", c.script, c.want, h)
		}
	}
}

type hintedObj struct{ X float64 }

func (o *hintedObj) Step(dx float64, n int) { o.X += dx * float64(n) }

// TestHintedNumericArgumentsConvertAsBefore pins what a Go function with
// integer and float parameters receives for every kind of Lua value, the
// same with or without the trampoline's one-call read: integers, integral
// floats and numeric strings convert, integers beyond 2^53 given as
// strings go through a float (as Go's general path always did), and what
// does not convert raises the same errors.
func TestHintedNumericArgumentsConvertAsBefore(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("fi", func(a int64) int64 { return a }))
	must(t, e.SetGlobal("f8", func(a int8) int8 { return a }))
	must(t, e.SetGlobal("ff", func(a float64) float64 { return a }))
	must(t, e.SetGlobal("o", &hintedObj{}))
	must(t, e.DoString(`
		local function check(got, want, what)
			if got ~= want then error(what .. ": got " .. tostring(got) .. ", want " .. tostring(want), 2) end
		end
		check(fi(3), 3, "int")
		check(fi(3.0), 3, "integral float")
		check(fi("12"), 12, "numeric string")
		check(fi(" 0x10 "), 16, "hex string")
		check(fi(2^53), 2^53, "2^53")
		check(fi(-2^53), -2^53, "-2^53")
		-- a string beyond 2^53: exact on Lua 5.4, as luaL_checkinteger reads
		-- it (through a float before the seventeenth round); a float on LuaJIT
		check(tostring(fi("9007199254740993")), tostring(math.tointeger and 9007199254740993 or 2^53), "a string beyond 2^53")
		check(ff(2), 2, "int to float")
		check(ff("1.5"), 1.5, "string to float")
		check(ff(0.25), 0.25, "float")
		local nan = ff(0/0); check(nan ~= nan, true, "nan")
		local function err(f, ...) local ok, e = pcall(f, ...); check(ok, false, "error"); return e end
		errs = {
			err(fi, 2.5), err(fi, "2.5"), err(fi, "abc"), err(fi, {}), err(fi, true),
			err(f8, 300), err(ff, "x"), err(ff, {}), err(o.Step, o, "y", 1), err(o.Step, o, 1, 1.5),
		}`))
	want := []string{
		"bad argument #1 to 'fi' (number has no integer representation)",
		"bad argument #1 to 'fi' (number has no integer representation)",
		"bad argument #1 to 'fi' (number expected, got string)",
		"bad argument #1 to 'fi' (number expected, got table)",
		"bad argument #1 to 'fi' (number expected, got boolean)",
		"bad argument #1 to 'f8' (number out of range for int8)",
		"bad argument #1 to 'ff' (number expected, got string)",
		"bad argument #1 to 'ff' (number expected, got table)",
		"bad argument #1 to 'hintedObj:Step' (number expected, got string)",
		"bad argument #2 to 'hintedObj:Step' (number has no integer representation)",
	}
	checkErrs(t, e, want)
}

// checkErrs compares the error messages the script left in the global
// errs with want, each by its end (the start names the chunk and line).
func checkErrs(t *testing.T, e *zlua.Env, want []string) {
	t.Helper()
	var got []string
	must(t, e.Global("errs", &got))
	if len(got) != len(want) {
		t.Fatalf("got %d errors %q, want %d", len(got), got, len(want))
	}
	for i := range want {
		if !endsWith(got[i], want[i]) {
			t.Errorf("error %d: got %q, want it to end with %q", i, got[i], want[i])
		}
	}
}

func endsWith(s, suffix string) bool {
	return len(s) >= len(suffix) && s[len(s)-len(suffix):] == suffix
}

// TestStructPointerParametersReadEveryValueAsBefore pins what a *struct
// parameter (hinted cgo.HintRef: the trampoline asks the type without the
// integer test) receives for every kind of Lua value: its object, an
// opaque handle of its type, nil and a table convert; an integer, a float and the
// other types raise the errors they raised before the hint, naming the
// value's own type.
func TestStructPointerParametersReadEveryValueAsBefore(t *testing.T) {
	e := newEnv(t)
	o := &hintedObj{X: 7}
	must(t, e.SetGlobal("o", o))
	must(t, e.SetGlobal("gx", func(p *hintedObj) float64 {
		if p == nil {
			return -1
		}
		return p.X
	}))
	must(t, e.SetGlobal("gy", func(n int, p *hintedObj) float64 { return float64(n) + p.X }))
	must(t, e.DoString(`
		function viaHandle(h) return gx(h), gy(1, h) end
		local function check(got, want, what)
			if got ~= want then error(what .. ": got " .. tostring(got) .. ", want " .. tostring(want), 2) end
		end
		check(gx(o), 7, "object")
		check(gy(2, o), 9, "object as argument 2")
		check(gx(nil), -1, "nil")
		check(gx({X = 3}), 3, "a table, decoded into a new struct")
		local function err(f, ...) local ok, e = pcall(f, ...); check(ok, false, "error"); return e end
		errs = {
			err(gx, 3), err(gx, 2^63), err(gx, 1.5), err(gx, "7"), err(gx, true),
			err(gy, 1, 3), err(gy, 1, io.stdout),
		}`))
	var viaHandle func(any) (float64, float64, error)
	must(t, e.GetFunction("viaHandle", &viaHandle))
	a, b, err := viaHandle(zlua.Opaque(o))
	if err != nil || a != 7 || b != 8 {
		t.Fatalf("viaHandle(Opaque(o)) = %v, %v, %v; want 7, 8, nil", a, b, err)
	}
	want := []string{
		"bad argument #1 to 'gx' (hintedObj expected, got number)",
		"bad argument #1 to 'gx' (hintedObj expected, got number)",
		"bad argument #1 to 'gx' (hintedObj expected, got number)",
		"bad argument #1 to 'gx' (hintedObj expected, got string)",
		"bad argument #1 to 'gx' (hintedObj expected, got boolean)",
		"bad argument #2 to 'gy' (hintedObj expected, got number)",
		"bad argument #2 to 'gy' (hintedObj expected, got FILE*)",
	}
	checkErrs(t, e, want)
}
