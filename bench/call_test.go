package bench

import (
	"fmt"
	"testing"

	lua "github.com/yuin/gopher-lua"
	"github.com/zlua-go/zlua"
	"github.com/zlua-go/zlua/bench/native"
)

// loop is the script every row of BenchmarkCalls_LuaToGo runs: n calls of add.
func loop(n int) string {
	return fmt.Sprintf("local add = add; local s = 0; for i = 1, %d do s = add(s, 1) end; assert(s == %d)", n, n)
}

// BenchmarkCalls_LuaToGo measures one Lua→host call of add(a, b) with two integer
// arguments and one result, from a Lua loop.
func BenchmarkCalls_LuaToGo(b *testing.B) {
	b.Run("native", func(b *testing.B) { nativeLoop(b, false) })
	// The cgo floor: native's C function with the sum computed in Go
	// through one bare cgo callback. It is what the cgo crossing alone
	// costs, the least any binding running Go code for a Lua call pays;
	// zlua's row minus this one is what zlua itself adds.
	b.Run("cgofloor", func(b *testing.B) { nativeLoop(b, true) })
	b.Run("zlua", func(b *testing.B) {
		e, err := zlua.New(zlua.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer e.Close()
		if err := e.SetGlobal("add", func(a, b int) int { return a + b }); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		if err := e.DoString(loop(b.N)); err != nil {
			b.Fatal(err)
		}
	})
	b.Run("gopherlua", func(b *testing.B) {
		L := lua.NewState()
		defer L.Close()
		L.SetGlobal("add", L.NewFunction(func(L *lua.LState) int {
			L.Push(lua.LNumber(L.CheckInt(1) + L.CheckInt(2)))
			return 1
		}))
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		if err := L.DoString(loop(b.N)); err != nil {
			b.Fatal(err)
		}
	})
}

// nativeLoop runs the loop script in a native state: add is native's C
// function, or with floor the cgo floor's (State.UseCgoFloor).
func nativeLoop(b *testing.B, floor bool) {
	s, err := native.Open()
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if floor {
		s.UseCgoFloor()
	}
	b.ReportAllocs()
	b.ResetTimer()
	defer startCPU(b).report()
	if err := s.DoString(loop(b.N)); err != nil {
		b.Fatal(err)
	}
}
