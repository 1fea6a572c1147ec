package zlua_test

import (
	"testing"

	"github.com/zlua-go/zlua"
)

// The table rows of outside probe C2-F3: a table of 1000 elements decoded
// into a slice and a map, walked with ForEach, and indexed with Get and
// Set (docs/ARCHITECTURE.md, "Batched table reads").
const tableBatchN = 1000

func tableBatchEnv(b *testing.B) *zlua.Env {
	e := newEnv(b)
	if err := e.DoString(`
		S = {} for i = 1, 1000 do S[i] = i end
		M = {} for i = 1, 1000 do M["k" .. i] = i end`); err != nil {
		b.Fatal(err)
	}
	return e
}

func BenchmarkTableBatch(b *testing.B) {
	b.Run("GlobalSlice", func(b *testing.B) {
		e := tableBatchEnv(b)
		b.ReportAllocs()
		var s []int
		for b.Loop() {
			if err := e.Global("S", &s); err != nil || len(s) != tableBatchN {
				b.Fatal(err, len(s))
			}
		}
	})
	b.Run("GlobalMap", func(b *testing.B) {
		e := tableBatchEnv(b)
		b.ReportAllocs()
		for b.Loop() {
			var m map[string]int
			if err := e.Global("M", &m); err != nil || len(m) != tableBatchN {
				b.Fatal(err, len(m))
			}
		}
	})
	b.Run("GlobalAnyMap", func(b *testing.B) {
		e := tableBatchEnv(b)
		b.ReportAllocs()
		for b.Loop() {
			var m any
			if err := e.Global("M", &m); err != nil || len(m.(map[string]any)) != tableBatchN {
				b.Fatal(err)
			}
		}
	})
	b.Run("ForEach", func(b *testing.B) {
		e := tableBatchEnv(b)
		var tb *zlua.Table
		if err := e.Global("S", &tb); err != nil {
			b.Fatal(err)
		}
		defer tb.Release()
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			if err := tb.ForEach(func(k, v any) error { n++; return nil }); err != nil || n != tableBatchN {
				b.Fatal(err, n)
			}
		}
	})
	b.Run("GetSet", func(b *testing.B) {
		e := tableBatchEnv(b)
		tb, err := e.NewTable()
		if err != nil {
			b.Fatal(err)
		}
		defer tb.Release()
		b.ReportAllocs()
		for b.Loop() {
			for j := 1; j <= tableBatchN; j++ {
				if err := tb.Set(j, j); err != nil {
					b.Fatal(err)
				}
			}
			var v int
			for j := 1; j <= tableBatchN; j++ {
				if err := tb.Get(j, &v); err != nil || v != j {
					b.Fatal(err, v)
				}
			}
		}
	})
}
