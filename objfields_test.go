package zlua_test

import (
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
	"github.com/zlua-go/zlua/objreg"
)

// Base is embedded by value: its fields are promoted and C serves them
// (their offset is known without a pointer hop).
type Base struct {
	ID    int
	Alive bool
}

// Extra is embedded by pointer: Go serves its fields.
type Extra struct{ Gold int }

// Mob covers every field kind C serves on a Go object held by reference.
type Mob struct {
	Base
	*Extra
	I8    int8
	I16   int16
	I32   int32
	I64   int64
	I     int
	U8    uint8
	U16   uint16
	U32   uint32
	U64   uint64
	U     uint
	UP    uintptr
	F32   float32
	F64   float64
	On    bool
	Name  string
	Pos   Vec
	Score int `lua:"score"`
	Skip  int `lua:"-"`
	Kick  int `lua:"Hit"` // shadowed by the method Hit: Lua sees the method
}

func (m *Mob) Hit(n int) { m.I -= n }

// goCalls runs chunk and returns how many Lua→Go calls it made.
func goCalls(t *testing.T, e *zlua.Env, chunk string) uint64 {
	t.Helper()
	before := e.Stats().GoCalls
	run(t, e, chunk)
	return e.Stats().GoCalls - before
}

func TestObjectFieldsServedInC(t *testing.T) {
	e := newEnv(t)
	m := &Mob{Extra: &Extra{Gold: 3}, I: 7, F64: 1.5, Name: "orc"}
	m.ID = 42
	must(t, e.SetGlobal("m", m))
	// The first access of a numeric field enters Go once, which pins the
	// object; every later read and write of any numeric field stays in C.
	if n := goCalls(t, e, `assert(m.I == 7)`); n != 1 {
		t.Errorf("first field read made %d Go calls, want 1", n)
	}
	if n := goCalls(t, e, `
		for i = 1, 50000 do m.I = m.I + 1 end
		for i = 1, 25000 do
			m.F64 = m.F64 + 0.5; m.U8 = i % 256; m.On = not m.On
			local x = m.ID + m.score + m.I8 + m.U64 + m.F32
		end`); n != 0 {
		t.Errorf("10^5 field reads and writes made %d Go calls, want 0", n)
	}
	if m.I != 50007 || m.F64 != 1.5+25000*0.5 || m.U8 != 25000%256 || m.On {
		t.Errorf("Go sees %+v after Lua's writes", m)
	}
	// Go's writes are seen by Lua, still without entering Go.
	m.I, m.ID, m.Score, m.F32, m.On = -3, 9, 11, 2.5, true
	if n := goCalls(t, e, `assert(m.I == -3 and m.ID == 9 and m.score == 11 and m.F32 == 2.5 and m.On == true)`); n != 0 {
		t.Errorf("reads after Go's writes made %d Go calls", n)
	}
	// Every other key keeps the Go path: strings, nested structs, fields
	// of embedded pointers, methods (the method shadows the renamed field).
	run(t, e, `
		assert(m.Name == "orc") ; m.Name = "elf"
		assert(m.Gold == 3) ; m.Gold = 4
		m.Pos.X = 2
		assert(type(m.Hit) == "function") ; m:Hit(1)
	`)
	if m.Name != "elf" || m.Gold != 4 || m.Pos.X != 2 || m.I != -4 || m.Kick != 0 {
		t.Errorf("Go path: %+v", m)
	}
	if got := e.Stats().PinnedObjects; got != 2 { // m, and m.Pos (pinned with its parent)
		t.Errorf("PinnedObjects = %d, want 2", got)
	}
}

func TestObjectFieldKindsAndLimits(t *testing.T) {
	e := newEnv(t)
	m := &Mob{}
	must(t, e.SetGlobal("m", m))
	run(t, e, `
		m.I8, m.I16, m.I32, m.I64 = -128, 32767, -2147483648, 9007199254740992
		m.U8, m.U16, m.U32, m.U = 255, 65535, 4294967295, 12
		m.UP, m.F32, m.F64 = 7, 0.25, -1e300
		m.I = "12"  -- a numeric string, as Go arguments take it
		m.U64 = 2^53
	`)
	want := Mob{I8: -128, I16: 32767, I32: -2147483648, I64: 1 << 53, U8: 255, U16: 65535,
		U32: 4294967295, U: 12, UP: 7, F32: 0.25, F64: -1e300, I: 12, U64: 1 << 53}
	if *m != want {
		t.Errorf("after writes:\n got %+v\nwant %+v", *m, want)
	}
	m.U64 = math.MaxUint64
	run(t, e, `assert(m.U64 == 2^64, "uint64 above MaxInt64 reads as the nearest float")
		assert(m.I8 == -128 and m.U32 == 4294967295 and m.F32 == 0.25)`)
}

// A write C refuses says what the Go setter says for the same value: the
// first write to a fresh object's field is served by Go (it pins the
// object), the same write to a pinned one by C.
func TestObjectFieldErrorsMatchTheGoSetter(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct{ field, value, want string }{
		{"I8", "128", "bad value for field 'I8' of Mob (number out of range for int8)"},
		{"U8", "-1", "bad value for field 'U8' of Mob (number out of range for uint8)"},
		{"U16", "70000", "bad value for field 'U16' of Mob (number out of range for uint16)"},
		{"I32", "2^31", "bad value for field 'I32' of Mob (number out of range for int32)"},
		{"U32", "-1", "bad value for field 'U32' of Mob (number out of range for uint32)"},
		{"U", "-1", "bad value for field 'U' of Mob (number out of range for uint)"},
		{"UP", "-1", "bad value for field 'UP' of Mob (number out of range for uintptr)"},
		{"U64", "-1", "bad value for field 'U64' of Mob (number out of range for uint64)"},
		{"I", "1.5", "bad value for field 'I' of Mob (number has no integer representation)"},
		{"I", "2^64", "bad value for field 'I' of Mob (number has no integer representation)"}, // 2^63 is MaxInt64 on LuaJIT (TestMaxInt64ComesBack)
		{"I", `"x"`, "bad value for field 'I' of Mob (number expected, got string)"},
		{"I", "{}", "bad value for field 'I' of Mob (number expected, got table)"},
		{"F64", "nil", "bad value for field 'F64' of Mob (number expected, got nil)"},
		{"F32", "io.stdout", "bad value for field 'F32' of Mob (number expected, got FILE*)"},
		{"On", "1", "bad value for field 'On' of Mob (boolean expected, got number)"},
		{"score", `"1"`, ""}, // numeric strings convert
		{"U64", "2^63", ""},  // an uint64 above MaxInt64 comes back as a float
		{"U", "2^63 + 2^62", ""},
		{"U64", "2^65", "bad value for field 'U64' of Mob (number out of range for uint64)"},
		{"U8", "2^63", "bad value for field 'U8' of Mob (number out of range for uint8)"},
		{"U64", "1/0", "bad value for field 'U64' of Mob (number has no integer representation)"},
		{"U64", "-2^64", "bad value for field 'U64' of Mob (number out of range for uint64)"}, // probe K1 F3
		{"U32", "-1.5", "bad value for field 'U32' of Mob (number has no integer representation)"},
		{"U", "0/0", "bad value for field 'U' of Mob (number has no integer representation)"},
		{"U16", `"-3"`, "bad value for field 'U16' of Mob (number out of range for uint16)"},
		{"F32", "1e39", "bad value for field 'F32' of Mob (number out of range for float32)"},
		{"F32", "1/0", ""},
	} {
		chunk := "m." + c.field + " = " + c.value
		var msgs [2]string
		for i, warm := range []string{"", "local _ = m.ID"} {
			must(t, e.SetGlobal("m", &Mob{}))
			run(t, e, warm)
			err := e.DoString(chunk)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("%s (warm=%v): %v", chunk, i == 1, err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("%s (warm=%v): err = %v, want %q", chunk, i == 1, err, c.want)
			case err != nil:
				msgs[i] = err.Error()
			}
		}
		if msgs[0] != msgs[1] {
			t.Errorf("%s: Go setter said %q, C said %q", chunk, msgs[0], msgs[1])
		}
		if c.want != "" && !strings.HasPrefix(msgs[1], `(dostring):1: `) {
			t.Errorf("%s: error %q lacks the position of the assignment", chunk, msgs[1])
		}
	}
}

// Numeric strings written to unsigned fields: C stores what the Go setter
// stores, on Lua 5.4 the exact integer a string names (probe K1 F1: the C
// path read "9223372036854775807" as a float, 2^63). LuaJIT reads every
// number as a float: both paths agree on it.
func TestObjectFieldUnsignedStringsMatchTheGoSetter(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct{ field, value string }{
		{"U64", `"9223372036854775807"`},
		{"U64", `"9223372036854775000"`},
		{"U", `"0x7ffffffffffffe01"`},
		{"UP", `"9223372036854775296"`},
		{"U64", `"18446744073709551615"`},
		{"U32", `"4294967295"`},
		{"U64", `"1e19"`},
	} {
		var got [2]*Mob
		for i, warm := range []string{"", "local _ = m.ID"} {
			got[i] = &Mob{}
			must(t, e.SetGlobal("m", got[i]))
			run(t, e, warm)
			run(t, e, "m."+c.field+" = "+c.value)
		}
		if *got[0] != *got[1] {
			t.Errorf("m.%s = %s: Go setter stored %+v, C stored %+v", c.field, c.value, *got[0], *got[1])
		}
	}
	m := &Mob{}
	must(t, e.SetGlobal("m", m))
	run(t, e, `local _ = m.ID; m.U64 = "9223372036854775807"`)
	want := uint64(math.MaxInt64)
	if strings.HasPrefix(zlua.Backend, "LuaJIT") {
		want = 1 << 63 // the string reads as the float 2^63
	}
	if m.U64 != want {
		t.Errorf("C stored U64 = %d, want %d", m.U64, want)
	}
}

// A released object (resurrected by a finalizer after its own __gc) and a
// stale one error on field access after C has served its fields.
func TestReleasedObjectFieldsError(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("p", &Mob{I: 1}))
	run(t, e, `
		assert(p.I == 1); p.I = 2 -- pinned, now served in C
		local function sentinel(fn)
			if newproxy then
				local s = newproxy(true); getmetatable(s).__gc = fn; return s
			end
			return setmetatable({}, {__gc = fn})
		end
		do
			local o = p
			p = nil
			sentinel(function() saved = o end)
		end
		if jit then jit.flush() end
		collectgarbage(); collectgarbage()
		assert(saved, "finalizer did not run")
	`)
	for _, chunk := range []string{`return saved.I`, `saved.I = 3`, `return saved.On`} {
		err := e.DoString(chunk)
		if err == nil || !strings.Contains(err.Error(), "attempt to use a released object") {
			t.Errorf("%s: err = %v, want the released-object error", chunk, err)
		}
	}
	must(t, e.Pump())
	if n := e.Stats().PinnedObjects; n != 0 {
		t.Errorf("PinnedObjects = %d after the slot was released", n)
	}
}

// An object is pinned only once Lua reads or writes one of its numeric
// fields, and unpinned when its slot is released, at Reset and at Close.
func TestPinnedUntilReleased(t *testing.T) {
	base := objreg.LivePins()
	e := newEnv(t)
	must(t, e.SetGlobal("a", &Mob{}))
	must(t, e.SetGlobal("b", &Mob{}))
	run(t, e, `local n = a.Name; a:Hit(1)`)
	if n := e.Stats().PinnedObjects; n != 0 {
		t.Fatalf("PinnedObjects = %d before any numeric field access", n)
	}
	run(t, e, `a.I = 1; local x = b.F64`)
	if n := e.Stats().PinnedObjects; n != 2 || objreg.LivePins() != base+2 {
		t.Fatalf("PinnedObjects = %d, live pins %d, want 2", n, objreg.LivePins()-base)
	}
	run(t, e, `a = nil; collectgarbage(); collectgarbage()`)
	must(t, e.Pump())
	if n := e.Stats().PinnedObjects; n != 1 || objreg.LivePins() != base+1 {
		t.Fatalf("after a's release: PinnedObjects = %d, live pins %d, want 1", n, objreg.LivePins()-base)
	}
	e.Reset(nil)
	must(t, e.Pump())
	if objreg.LivePins() != base {
		t.Fatalf("live pins %d after Reset, want 0", objreg.LivePins()-base)
	}
	must(t, e.SetGlobal("c", &Mob{}))
	run(t, e, `c.I = 5`)
	must(t, e.Close())
	if objreg.LivePins() != base {
		t.Fatalf("live pins %d after Close, want 0", objreg.LivePins()-base)
	}
	runtime.GC()
}

// The metamethods serving fields in C can be fetched and called on
// anything, and their upvalues replaced: errors, never a crash, and never
// a write outside the object.
func TestObjectFieldMetamethodsOnForeignValues(t *testing.T) {
	e := newEnv(t)
	m := &Mob{I: 1}
	must(t, e.SetGlobal("m", m))
	must(t, e.SetGlobal("v", Vec3{1, 2, 3}))
	run(t, e, `m.I = 2`)
	for _, chunk := range []string{
		`local mt = debug.getmetatable(m); return mt.__index(v, "I")`,
		`local mt = debug.getmetatable(m); mt.__newindex(v, "I", 3)`,
		`local mt = debug.getmetatable(m); mt.__newindex(io.stdout, "I", 3)`,
		`local mt = debug.getmetatable(m); return mt.__index(1, "I")`,
		`local mt = debug.getmetatable(m); mt.__newindex({}, "I", 3)`,
		`local mt = debug.getmetatable(m); return mt.__index(m, {})`,
		`local mt = debug.getmetatable(m); mt.__newindex(m)`,
		`local mt = debug.getmetatable(m); return mt.__eq(m, 1)`,
		`local mt = debug.getmetatable(m); return mt.__eq()`,
	} {
		_ = e.DoString(chunk) // an error or a value; the process survives
	}
	// Upvalues replaced with anything: the C functions trust none.
	run(t, e, `
		local mt = debug.getmetatable(m)
		local f = mt.__index
		if jit then -- the C function behind LuaJIT's Lua __index closure
			for i = 1, 3 do
				local _, u = debug.getupvalue(f, i)
				if type(u) == "function" and u ~= rawget then f = u end
			end
		end
		for i = 1, 3 do
			for _, x in ipairs({1, "s", {}, io.stdout, v, m, function() end}) do
				local g = (i == 1 and f) or mt.__newindex
				if debug.setupvalue(g, 1, x) then
					pcall(g, m, "I", 5); pcall(g, m, "On"); pcall(g, m, "Nope", 1)
				end
				if debug.setupvalue(g, 2, x) then
					pcall(g, m, "I", 5); pcall(g, m, "Nope", 1)
				end
			end
		end`)
	if m.I != 2 && m.I != 5 {
		t.Errorf("m.I = %d", m.I)
	}
}

// equalityEnv returns an Env with globals a, a2 (the same object), b,
// views va and vb of a and b, and two unkeyed slices sa and sb.
func equalityEnv(t *testing.T) *zlua.Env {
	e := newEnv(t)
	a, b := &Player{Name: "a"}, &Player{Name: "b"}
	must(t, e.SetGlobal("a", a))
	must(t, e.SetGlobal("a2", a))
	must(t, e.SetGlobal("b", b))
	must(t, e.SetGlobal("va", zlua.AsView[Mover](a)))
	must(t, e.SetGlobal("vb", zlua.AsView[Mover](b)))
	must(t, e.SetGlobal("sa", zlua.ByRef([]int{1})))
	must(t, e.SetGlobal("sb", zlua.ByRef([]int{1})))
	return e
}

func TestEqualityDecidedInC(t *testing.T) {
	e := equalityEnv(t)
	// Same binding: identity is known in C.
	if n := goCalls(t, e, `
		for i = 1, 1000 do
			assert(a == a2 and a ~= b and not (b == a) and va ~= vb and va == va)
			assert(a ~= v and a ~= io.stdout)
		end`); n != 0 {
		t.Errorf("same-binding comparisons made %d Go calls", n)
	}
	// The same object through two bindings, or unkeyed (ByRef slices):
	// Go compares the objects.
	run(t, e, `
		assert(a == va and va == a and b == vb and a ~= vb)
		assert(sa ~= sb and sa == sa)
	`)
}

func TestTypeWithoutFieldsIndexesItsMethods(t *testing.T) {
	e := newEnv(t)
	p := &Player{HP: 3}
	must(t, e.SetGlobal("mv", zlua.AsView[Mover](p)))
	must(t, e.SetGlobal("ch", make(chan int)))
	if n := goCalls(t, e, `for i = 1, 100 do local f = mv.MoveTo end`); n != 0 {
		t.Errorf("method lookups made %d Go calls", n)
	}
	// The VM finds methods in the table itself: no C function runs.
	run(t, e, `assert(type(debug.getmetatable(mv).__index) == "table")
		assert(type(debug.getmetatable(ch).__index) == "table")`)
	for _, c := range []struct{ chunk, want string }{
		{`return mv.HP`, `(dostring):1: Mover has no field or method 'HP'`},
		{`return mv[1]`, "Mover has no field or method '1'"},
		{`return mv[1.5]`, "Mover has no field or method '1.5'"},
		{`return mv[true]`, "Mover has no field or method '(boolean key)'"},
		{`return mv[io.stdout]`, "Mover has no field or method '(FILE* key)'"},
		{`return mv[0/0 ~= 0/0 and 0/0 or 1]`, "Mover has no field or method '"},
		{`mv:Heal(1)`, "Mover has no field or method 'Heal'"},
		{`return ch.x`, "has no field or method 'x'"},
	} {
		err := e.DoString(c.chunk)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.chunk, err, c.want)
		}
	}
	// The same keys through the Go getter of a type with fields read the
	// same way.
	must(t, e.SetGlobal("pl", p))
	for _, k := range []string{`1`, `1.5`, `true`, `io.stdout`, `2^53`, `-0.0`, `1/0`} {
		e1 := e.DoString(`return mv[` + k + `]`)
		e2 := e.DoString(`return pl[` + k + `]`)
		if e1 == nil || e2 == nil || strings.Replace(e2.Error(), "pl[", "mv[", 1) != strings.Replace(e1.Error(), "Mover", "Player", 1) {
			t.Errorf("key %s: C says %v, Go says %v", k, e1, e2)
		}
	}
}

func TestTwoResultsAndNoResultsWithoutAProgram(t *testing.T) {
	e := newEnv(t)
	p := &Player{}
	p.Pos = Vec{1.5, -2}
	must(t, e.SetGlobal("p", p))
	run(t, e, `
		assert(select("#", p:Position()) == 2)
		local x, y = p:Position()
		assert(x == 1.5 and y == -2)
		assert(select("#", p:MoveTo(3, 4)) == 0)
		local a, b = p:Position()
		assert(a == 3 and b == 4)
	`)
}

// TestObjectsPushedAfterAFieldAccessArePinnedAtPush: once a script used
// the C fields of one object of a type, a new userdata of that type is
// pinned as it is pushed, so a Go-driven update (Go calls a Lua handler
// with objects Lua does not keep) reads and writes fields without a Go
// call per object; the pins still end with the objects' slots.
func TestObjectsPushedAfterAFieldAccessArePinnedAtPush(t *testing.T) {
	base := objreg.LivePins()
	e := newEnv(t)
	run(t, e, `function update(m) m.F64 = m.F64 + m.I end`)
	var update func(any) error
	must(t, e.GetFunction("update", &update))
	mobs := make([]*Mob, 100)
	for i := range mobs {
		mobs[i] = &Mob{I: i}
	}
	must(t, update(mobs[0])) // the type's first field access pins lazily
	before := e.Stats().GoCalls
	for frame := 0; frame < 3; frame++ {
		for _, m := range mobs[1:] {
			must(t, update(m))
		}
		run(t, e, `collectgarbage() collectgarbage()`) // the userdata go
		must(t, e.Pump())                              // and their slots
	}
	if n := e.Stats().GoCalls - before; n != 0 {
		t.Errorf("%d Go calls for 297 updates of objects pushed after the type's first field access, want 0", n)
	}
	for i, m := range mobs[1:] {
		if m.F64 != float64(3*(i+1)) {
			t.Fatalf("mob %d: F64 = %v, want %v", i+1, m.F64, 3*(i+1))
		}
	}
	if n := e.Stats().PinnedObjects; n != 0 {
		t.Errorf("PinnedObjects = %d once every userdata was collected, want 0", n)
	}
	must(t, e.Close())
	if objreg.LivePins() != base {
		t.Errorf("live pins %d after Close, want 0", objreg.LivePins()-base)
	}
}

// TestObjectsReturnedAfterAFieldAccessArePinnedAtPush: the same for
// objects a Go function returns (spawn() in a loop).
func TestObjectsReturnedAfterAFieldAccessArePinnedAtPush(t *testing.T) {
	e := newEnv(t)
	n := 0
	must(t, e.SetGlobal("spawn", func() *Mob { n++; return &Mob{I: n} }))
	run(t, e, `local m = spawn() m.I = m.I + 1`) // the type's first field access
	if got := goCalls(t, e, `local s = 0
		for i = 1, 200 do local m = spawn() m.F64 = m.I * 2 s = s + m.F64 end
		assert(s == 2 * (201 * 202 / 2 - 1), s)`); got != 200 {
		t.Errorf("%d Go calls for 200 spawns and their fields, want 200 (the spawns)", got)
	}
}
