package bench

import (
	"context"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
	"github.com/zlua-go/zlua"
	"github.com/zlua-go/zlua/bench/native"
)

// worker is the coroutine every row of BenchmarkThreads_Resume resumes:
// it yields its argument plus one, forever.
const worker = `function worker(x) while true do x = coroutine.yield(x + 1) end end`

// BenchmarkThreads_Resume measures one resume from the host of a
// coroutine that yields one integer back (the scheduler's step).
func BenchmarkThreads_Resume(b *testing.B) {
	b.Run("native", func(b *testing.B) {
		s, err := native.Open()
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		if err := s.DoString(worker); err != nil {
			b.Fatal(err)
		}
		co := s.NewThread("worker")
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		for i := 0; i < b.N; i++ {
			if r, err := s.Resume(co, int64(i)); err != nil || r != int64(i)+1 {
				b.Fatalf("resume = %d, %v", r, err)
			}
		}
	})
	// zlua: a typed resume func (BindResume), the allocation-free way;
	// zluaAny: Resume with []any arguments and results.
	for _, typed := range []bool{true, false} {
		name := "zlua"
		if !typed {
			name = "zluaAny"
		}
		b.Run(name, func(b *testing.B) {
			e, err := zlua.New(zlua.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			if err := e.DoString(worker); err != nil {
				b.Fatal(err)
			}
			var fn *zlua.Function
			if err := e.GetFunction("worker", &fn); err != nil {
				b.Fatal(err)
			}
			defer fn.Release()
			th, err := e.NewThread(fn)
			if err != nil {
				b.Fatal(err)
			}
			defer th.Release()
			var step func(int) (int, error)
			if err := th.BindResume(&step); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			defer startCPU(b).report()
			for i := 0; i < b.N; i++ {
				if typed {
					if r, err := step(i); err != nil || r != i+1 {
						b.Fatalf("resume = %v, %v", r, err)
					}
					continue
				}
				out, err := th.Resume(i)
				if err != nil || len(out) != 1 || out[0] != int64(i)+1 {
					b.Fatalf("resume = %v, %v", out, err)
				}
			}
		})
	}
	b.Run("gopherlua", func(b *testing.B) {
		L := lua.NewState()
		defer L.Close()
		if err := L.DoString(worker); err != nil {
			b.Fatal(err)
		}
		fn := L.GetGlobal("worker").(*lua.LFunction)
		co, _ := L.NewThread()
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		for i := 0; i < b.N; i++ {
			st, err, vals := L.Resume(co, fn, lua.LNumber(i))
			if st != lua.ResumeYield || err != nil || len(vals) != 1 || vals[0] != lua.LNumber(i+1) {
				b.Fatalf("resume = %v, %v, %v", st, err, vals)
			}
		}
	})
}

// BenchmarkCalls_GoToLuaContext measures a Go→Lua call of f(x) returning
// x through a typed func, without a context, under context.Background (no
// watcher: the plain path) and under a deadline (a limited call: the hook
// and a watcher per call).
func BenchmarkCalls_GoToLuaContext(b *testing.B) {
	e, err := zlua.New(zlua.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	if err := e.DoString(`function f(x) return x end`); err != nil {
		b.Fatal(err)
	}
	var plain func(int) error
	var withCtx func(context.Context, int) error
	if err := e.GetFunction("f", &plain); err != nil {
		b.Fatal(err)
	}
	if err := e.GetFunction("f", &withCtx); err != nil {
		b.Fatal(err)
	}
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		defer startCPU(b).report()
		for i := 0; i < b.N; i++ {
			if err := plain(i); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("background", func(b *testing.B) {
		ctx := context.Background()
		b.ReportAllocs()
		defer startCPU(b).report()
		for i := 0; i < b.N; i++ {
			if err := withCtx(ctx, i); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("deadline", func(b *testing.B) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
		defer cancel()
		b.ReportAllocs()
		defer startCPU(b).report()
		for i := 0; i < b.N; i++ {
			if err := withCtx(ctx, i); err != nil {
				b.Fatal(err)
			}
		}
	})
}
