package zlua_test

import (
	"fmt"
	"sort"

	"github.com/zlua-go/zlua"
)

// Vec2 is pushed by value: each Lua value is a copy.
type Vec2 struct{ X, Y float64 }

// Go functions become the operators of a type's userdata. Operands arrive
// in Lua's order: 2 * v calls __mul(2, v).
func ExampleMetamethods() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()

	scale := func(v Vec2, k float64) Vec2 { return Vec2{v.X * k, v.Y * k} }
	zlua.Metamethods[Vec2](env, map[string]any{
		"__add": func(a, b Vec2) Vec2 { return Vec2{a.X + b.X, a.Y + b.Y} },
		"__mul": func(a, b any) (Vec2, error) {
			if v, ok := a.(Vec2); ok {
				return scale(v, toFloat(b)), nil
			}
			if v, ok := b.(Vec2); ok {
				return scale(v, toFloat(a)), nil
			}
			return Vec2{}, fmt.Errorf("cannot multiply %T by %T", a, b)
		},
		"__eq":       func(a, b Vec2) bool { return a == b },
		"__tostring": func(v Vec2) string { return fmt.Sprintf("(%g, %g)", v.X, v.Y) },
	})
	env.SetGlobal("vec", func(x, y float64) Vec2 { return Vec2{x, y} })
	env.SetGlobal("say", func(s string) { fmt.Println(s) })
	env.DoString(`
		local a, b = vec(1, 2), vec(3, 4)
		say(tostring(a + b) .. " " .. tostring(2 * a) .. " " .. tostring(a * 0.5))
		say(tostring(a + b == vec(4, 6)))
		say(select(2, pcall(function() return a + 1 end)))
	`)
	// Output:
	// (4, 6) (2, 4) (0.5, 1)
	// true
	// (dostring):5: bad argument #2 to 'Vec2.__add' (Vec2 expected, got number)
}

// toFloat reads a Lua number that reached an any parameter: integers
// arrive as int64, other numbers as float64.
func toFloat(x any) float64 {
	switch n := x.(type) {
	case int64:
		return float64(n)
	case float64:
		return n
	}
	return 0
}

// Bag has a slice field scripts append to and a map field they fill: the
// lua:",ref" tag makes them views of the object's own fields instead of
// copies.
type Bag struct {
	Items  []string       `lua:"items,ref"`
	Counts map[string]int `lua:"counts,ref"`
	Notes  []string       // no tag: reading it gives a copy
}

// Maps and slices by reference iterate with pairs and ipairs (on LuaJIT
// too), and a slice field tagged ref grows through the object.
func Example_collections() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()

	bag := &Bag{Items: []string{"rope"}}
	env.SetGlobal("bag", bag)
	env.DoString(`
		bag.items[#bag.items + 1] = "lamp"
		for _, item in ipairs(bag.items) do
			bag.counts[item] = #item
		end
		local notes = bag.Notes
		notes[#notes + 1] = "lost: a copy"
	`)
	fmt.Println(bag.Items, bag.Counts, len(bag.Notes))

	prices := map[string]int{"rope": 3, "lamp": 12}
	env.SetGlobal("prices", zlua.ByRef(prices))
	var total int
	env.Eval(`(function()
		local sum = 0
		for _, p in pairs(prices) do sum = sum + p end
		return sum
	end)()`, &total)
	keys := make([]string, 0, len(prices))
	for k := range prices {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Println(total, keys)
	// Output:
	// [rope lamp] map[lamp:4 rope:4] 0
	// 15 [lamp rope]
}
