package bench

import (
	"fmt"
	"testing"

	lua "github.com/yuin/gopher-lua"
	"github.com/zlua-go/zlua"
	"github.com/zlua-go/zlua/bench/native"
)

// Hit is the struct a table argument decodes into (C's Hit).
type Hit struct {
	Damage int     `lua:"damage"`
	X      float64 `lua:"x"`
	Y      float64 `lua:"y"`
	Kind   string  `lua:"kind"`
}

func (h Hit) sum() float64 {
	s := float64(h.Damage) + h.X + h.Y
	if h.Kind != "" {
		s++
	}
	return s
}

const placeScript = `local t, s = {damage = 3, x = 1.5, y = 2, kind = "fire"}, 0
	for i = 1, %d do s = s + place(t) end
	assert(s == 7.5 * %[1]d)`

// BenchmarkTables_DecodeArg is place(t): a Go function taking a struct
// called with a 4-field table (zlua: the table decoded into Hit by field
// name; native: a C function reading the fields with lua_getfield;
// gopher-lua: a Go function reading them with RawGetString, as written by
// hand).
func BenchmarkTables_DecodeArg(b *testing.B) {
	b.Run("native", func(b *testing.B) {
		s, err := native.Open()
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		s.OpenTables()
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		must(b, s.DoString(fmt.Sprintf(placeScript, b.N)))
	})
	b.Run("zlua", func(b *testing.B) {
		e, err := zlua.New(zlua.Options{})
		must(b, err)
		defer e.Close()
		must(b, e.SetGlobal("place", func(h Hit) float64 { return h.sum() }))
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		must(b, e.DoString(fmt.Sprintf(placeScript, b.N)))
	})
	b.Run("gopherlua", func(b *testing.B) {
		L := lua.NewState()
		defer L.Close()
		L.SetGlobal("place", L.NewFunction(func(L *lua.LState) int {
			t := L.CheckTable(1)
			var h Hit
			d, ok1 := t.RawGetString("damage").(lua.LNumber)
			x, ok2 := t.RawGetString("x").(lua.LNumber)
			y, ok3 := t.RawGetString("y").(lua.LNumber)
			k, ok4 := t.RawGetString("kind").(lua.LString)
			if !ok1 || !ok2 || !ok3 || !ok4 {
				L.ArgError(1, "bad Hit")
			}
			h.Damage, h.X, h.Y, h.Kind = int(d), float64(x), float64(y), string(k)
			L.Push(lua.LNumber(h.sum()))
			return 1
		}))
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		if err := L.DoString(fmt.Sprintf(placeScript, b.N)); err != nil {
			b.Fatal(err)
		}
	})
}

const visitScript = `local t, s = {hp = 10}, 0
	for i = 1, %d do s = visit(t, s) end
	assert(s == %[1]d)`

// BenchmarkTables_HandleArg is visit(t, n): a host function given a table
// the script owns (an object table passed to a host API) and a count
// (zlua: a func(*zlua.Table, int) int, so the table arrives as a handle
// Go may keep; native: a C function checking the table with
// luaL_checktype; gopher-lua: a Go function with CheckTable).
func BenchmarkTables_HandleArg(b *testing.B) {
	b.Run("native", func(b *testing.B) {
		s, err := native.Open()
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		s.OpenTables()
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		must(b, s.DoString(fmt.Sprintf(visitScript, b.N)))
	})
	b.Run("zlua", func(b *testing.B) {
		e, err := zlua.New(zlua.Options{})
		must(b, err)
		defer e.Close()
		must(b, e.SetGlobal("visit", func(t *zlua.Table, n int) int {
			if t == nil {
				panic("no table")
			}
			return n + 1
		}))
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		must(b, e.DoString(fmt.Sprintf(visitScript, b.N)))
	})
	b.Run("gopherlua", func(b *testing.B) {
		L := lua.NewState()
		defer L.Close()
		L.SetGlobal("visit", L.NewFunction(func(L *lua.LState) int {
			L.CheckTable(1)
			L.Push(lua.LNumber(L.CheckInt(2) + 1))
			return 1
		}))
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		if err := L.DoString(fmt.Sprintf(visitScript, b.N)); err != nil {
			b.Fatal(err)
		}
	})
}
