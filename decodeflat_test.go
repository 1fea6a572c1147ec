package zlua_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/zlua-go/zlua"
)

// fHit is a flat struct: every field a number, boolean or string.
type fHit struct {
	Damage int     `lua:"damage"`
	Small  int8    `lua:"small"`
	Count  uint16  `lua:"count"`
	X      float64 `lua:"x"`
	F      float32 `lua:"f"`
	Kind   string  `lua:"kind"`
	Crit   bool    `lua:"crit"`
}

// TestFlatTablesDecodeLikeTheWalk covers the one-crossing decoding of
// flat tables (cgo.Thread.ReadPairs, decodeflat.go): tables of one shape
// decoded again and again keep their own values (the remembered keys and
// strings never leak from one table into the next), and every value the
// common case does not cover (numeric strings, floats into integer
// fields, numbers out of range, wrong types, nested tables, more pairs
// than one read holds) gets the conversion and the error of the
// pair-by-pair walk.
func TestFlatTablesDecodeLikeTheWalk(t *testing.T) {
	e := newEnv(t)
	var got []fHit
	must(t, e.SetGlobal("take", func(h fHit) { got = append(got, h) }))
	run(t, e, `for i = 1, 3 do
			take({damage = i, small = -i, count = i * 1000, x = i / 2, f = i, kind = "k" .. i % 2, crit = i == 2})
		end
		take({kind = "k1", damage = 9}) -- another order
		take({Kind = "fold", DAMAGE = 8})
		take({damage = "12", x = "0.5", kind = 7, count = 3.0, small = 4.0}) -- the walk's conversions
		local big = {damage = 1}
		for i = 1, 40 do big["extra" .. i] = i end
		take(big) -- more pairs than one read
		take({damage = 2, extra = {1, 2}}) -- a table value
	`)
	want := []fHit{
		{Damage: 1, Small: -1, Count: 1000, X: 0.5, F: 1, Kind: "k1"},
		{Damage: 2, Small: -2, Count: 2000, X: 1, F: 2, Kind: "k0", Crit: true},
		{Damage: 3, Small: -3, Count: 3000, X: 1.5, F: 3, Kind: "k1"},
		{Damage: 9, Kind: "k1"},
		{Damage: 8, Kind: "fold"},
		{Damage: 12, X: 0.5, Kind: "7", Count: 3, Small: 4},
		{Damage: 1},
		{Damage: 2},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("decoded\n got %+v\nwant %+v", got, want)
	}
	for _, c := range []struct{ chunk, want string }{
		{`take({damage = 1.5})`, "bad argument #1 to 'take' (damage: number has no integer representation)"},
		{`take({small = 200})`, "bad argument #1 to 'take' (small: number out of range for int8)"},
		{`take({count = -1})`, "bad argument #1 to 'take' (count: number out of range for uint16)"},
		{`take({f = 1e300})`, "bad argument #1 to 'take' (f: number out of range for float32)"},
		{`take({damage = true})`, "bad argument #1 to 'take' (damage: number expected, got boolean)"},
		{`take({crit = 1})`, "bad argument #1 to 'take' (crit: boolean expected, got number)"},
		{`take({kind = false})`, "bad argument #1 to 'take' (kind: string expected, got boolean)"},
		{`take({x = "far"})`, "bad argument #1 to 'take' (x: number expected, got string)"},
		{`take({damage = 1, x = {}})`, "bad argument #1 to 'take' (x: number expected, got table)"},
	} {
		err := e.DoString(c.chunk)
		if err == nil || !strings.HasSuffix(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant suffix %q", c.chunk, err, c.want)
		}
	}
}

// TestFlatDecodeNestedAndConcurrent: a Go function taking a struct that
// Lua calls again from inside itself (its argument values are reused
// between calls, never while a call runs), and the same signature called
// by two Envs on two goroutines at once (-race checks the reuse).
func TestFlatDecodeNestedAndConcurrent(t *testing.T) {
	e := newEnv(t)
	var got []string
	must(t, e.SetGlobal("visit", func(h fHit) {
		if h.Damage > 0 {
			if err := e.DoString(fmt.Sprintf(`visit({damage = %d, kind = "inner%d"})`, h.Damage-1, h.Damage-1)); err != nil {
				t.Error(err)
			}
		}
		got = append(got, h.Kind)
	}))
	run(t, e, `visit({damage = 3, kind = "outer"})`)
	if want := "[inner0 inner1 inner2 outer]"; fmt.Sprint(got) != want {
		t.Errorf("nested calls saw %v, want %s", got, want)
	}
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env, err := zlua.New(zlua.Options{})
			if err != nil {
				t.Error(err)
				return
			}
			defer env.Close()
			sum := 0
			if err := env.SetGlobal("add", func(h fHit) { sum += h.Damage + len(h.Kind) }); err != nil {
				t.Error(err)
				return
			}
			if err := env.DoString(`for i = 1, 2000 do add({damage = i, kind = "ab"}) end`); err != nil {
				t.Error(err)
			}
			if want := 2000*2001/2 + 2*2000; sum != want {
				t.Errorf("sum = %d, want %d", sum, want)
			}
		}()
	}
	wg.Wait()
}
