package zlua_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

type valuesBag struct{ items []any }

// Items returns the bag's items as results.
func (b *valuesBag) Items() zlua.Values { return zlua.Values(b.items) }

// TestValuesAreSeveralResults: a Go function or method whose result is
// zlua.Values returns its elements one by one (before, a []any result was
// one table and a Go function's result count was fixed by its signature).
func TestValuesAreSeveralResults(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("upto", func(n int) zlua.Values {
		var v zlua.Values
		for i := 1; i <= n; i++ {
			v = append(v, i)
		}
		return v
	}))
	must(t, e.SetGlobal("lookup", func(k string) (zlua.Values, error) {
		switch k {
		case "sword":
			return zlua.Values{"sword", 12, true}, nil
		case "none":
			return zlua.Values{nil, "not found"}, nil
		}
		return nil, errors.New("bad key " + k)
	}))
	must(t, e.SetGlobal("tagged", func() (string, zlua.Values, int) { return "a", zlua.Values{"b", "c"}, 4 }))
	must(t, e.SetGlobal("bag", &valuesBag{items: []any{1.5, "x", []int{1, 2}}}))
	run(t, e, `
		assert(select("#", upto(0)) == 0 and select("#", upto(3)) == 3)
		local a, b, c = upto(3) assert(a == 1 and b == 2 and c == 3)
		local t = {upto(5)} assert(#t == 5 and t[5] == 5)
		local n, dmg, ok = lookup("sword") assert(n == "sword" and dmg == 12 and ok == true)
		local v, msg = lookup("none") assert(v == nil and msg == "not found")
		assert(select("#", lookup("none")) == 2)
		local ok2, err = pcall(lookup, "x") assert(not ok2 and err:find("bad key x"))
		local p, q, r, s = tagged() assert(p == "a" and q == "b" and r == "c" and s == 4)
		local f, g, h = bag:Items() assert(f == 1.5 and g == "x" and h[2] == 2)
		assert(select("#", pcall(upto, 4)) == 5)`)
	// an element that does not convert names its result and element
	must(t, e.SetGlobal("badvals", func() zlua.Values { return zlua.Values{1, refArr{}} }))
	err := e.DoString(`badvals()`)
	if err == nil || !strings.Contains(err.Error(), "result #1 of 'badvals' (element 2 of its Values)") {
		t.Errorf("an element that does not convert: %v", err)
	}
	// as a parameter, an ordinary []any
	must(t, e.SetGlobal("count", func(v zlua.Values) int { return len(v) }))
	run(t, e, `assert(count({1, 2, 3}) == 3)`)
}
