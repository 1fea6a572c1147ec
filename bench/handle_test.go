package bench

import (
	"testing"

	lua "github.com/yuin/gopher-lua"
	"github.com/zlua-go/zlua"
	"github.com/zlua-go/zlua/bench/native"
)

const addLua = `function add(a, b) return a + b end`

// BenchmarkCalls_GoToLua measures one Go→Lua call of add(a, b) through a typed
// handle (func(int, int) (int, error)); the native row is the raw C path:
// lua_rawgeti + 2 pushes + lua_pcall + lua_tointeger, one cgo call.
func BenchmarkCalls_GoToLua(b *testing.B) {
	b.Run("native", func(b *testing.B) {
		s, err := native.Open()
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		if err := s.DoString(addLua); err != nil {
			b.Fatal(err)
		}
		ref := s.Ref("add")
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		for i := 0; i < b.N; i++ {
			if v, err := s.Call2(ref, int64(i), 1); err != nil || v != int64(i)+1 {
				b.Fatal(v, err)
			}
		}
	})
	b.Run("zlua", func(b *testing.B) {
		e, err := zlua.New(zlua.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer e.Close()
		if err := e.DoString(addLua); err != nil {
			b.Fatal(err)
		}
		var add func(int, int) (int, error)
		if err := e.GetFunction("add", &add); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		for i := 0; i < b.N; i++ {
			if v, err := add(i, 1); err != nil || v != i+1 {
				b.Fatal(v, err)
			}
		}
	})
	b.Run("gopherlua", func(b *testing.B) {
		L := lua.NewState()
		defer L.Close()
		if err := L.DoString(addLua); err != nil {
			b.Fatal(err)
		}
		fn := L.GetGlobal("add")
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		for i := 0; i < b.N; i++ {
			if err := L.CallByParam(lua.P{Fn: fn, NRet: 1, Protect: true}, lua.LNumber(i), lua.LNumber(1)); err != nil {
				b.Fatal(err)
			}
			if v := L.Get(-1); v != lua.LNumber(i+1) {
				b.Fatal(v)
			}
			L.Pop(1)
		}
	})
}
