package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
	"github.com/zlua-go/zlua"
	"github.com/zlua-go/zlua/bench/native"
)

// computeLoop is the script of BenchmarkLimits_Loop: n turns of plain Lua
// arithmetic, no call and no allocation.
func computeLoop(n int) string {
	return fmt.Sprintf("local s = 0 for i = 1, %d do s = s + (i %% 7) * 3 end", n)
}

// BenchmarkLimits_Loop measures one turn of a plain Lua loop, run without
// a limit and under a deadline that never comes (zluaDeadline:
// DoStringContext with an hour; gopherluaContext: gopher-lua's
// SetContext, which checks the context at every instruction). On Lua 5.4
// a count hook would make every instruction pass through the hook's
// bookkeeping; zlua installs it only once the context is done
// (docs/ARCHITECTURE.md, "The limit's count hook only once the context is
// done"). On LuaJIT a limited call runs interpreted.
func BenchmarkLimits_Loop(b *testing.B) {
	b.Run("native", func(b *testing.B) {
		s, err := native.Open()
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		if err := s.DoString(computeLoop(b.N)); err != nil {
			b.Fatal(err)
		}
	})
	for _, limited := range []bool{false, true} {
		name := "zlua"
		if limited {
			name = "zluaDeadline"
		}
		b.Run(name, func(b *testing.B) {
			e, err := zlua.New(zlua.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
			defer cancel()
			b.ReportAllocs()
			b.ResetTimer()
			defer startCPU(b).report()
			if limited {
				err = e.DoStringContext(ctx, computeLoop(b.N))
			} else {
				err = e.DoString(computeLoop(b.N))
			}
			if err != nil {
				b.Fatal(err)
			}
		})
	}
	for _, limited := range []bool{false, true} {
		name := "gopherlua"
		if limited {
			name = "gopherluaContext"
		}
		b.Run(name, func(b *testing.B) {
			L := lua.NewState()
			defer L.Close()
			ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
			defer cancel()
			if limited {
				L.SetContext(ctx)
			}
			b.ReportAllocs()
			b.ResetTimer()
			defer startCPU(b).report()
			if err := L.DoString(computeLoop(b.N)); err != nil {
				b.Fatal(err)
			}
		})
	}
}
