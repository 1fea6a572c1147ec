package bench

import (
	"errors"
	"fmt"
	"testing"

	lua "github.com/yuin/gopher-lua"
	"github.com/zlua-go/zlua"
	"github.com/zlua-go/zlua/bench/native"
)

// pcallLoop is the script of BenchmarkErrors_PcallGoError: n protected
// calls of a host function that raises.
func pcallLoop(n int) string {
	return fmt.Sprintf(`local fail, pcall = fail, pcall
		for i = 1, %d do
			local ok, err = pcall(fail)
			if ok then error("fail did not raise") end
		end`, n)
}

// BenchmarkErrors_PcallGoError measures pcall of a host function that
// raises "entity not found" (C: luaL_error; zlua: a Go func returning an
// error; gopher-lua: RaiseError).
func BenchmarkErrors_PcallGoError(b *testing.B) {
	b.Run("native", func(b *testing.B) {
		s, err := native.Open()
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		if err := s.DoString(pcallLoop(b.N)); err != nil {
			b.Fatal(err)
		}
	})
	b.Run("zlua", func(b *testing.B) {
		e, err := zlua.New(zlua.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer e.Close()
		errNotFound := errors.New("entity not found")
		if err := e.SetGlobal("fail", func() error { return errNotFound }); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		if err := e.DoString(pcallLoop(b.N)); err != nil {
			b.Fatal(err)
		}
	})
	b.Run("gopherlua", func(b *testing.B) {
		L := lua.NewState()
		defer L.Close()
		L.SetGlobal("fail", L.NewFunction(func(L *lua.LState) int {
			L.RaiseError("entity not found")
			return 0
		}))
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		if err := L.DoString(pcallLoop(b.N)); err != nil {
			b.Fatal(err)
		}
	})
}
