package zlua_test

import (
	"fmt"

	"github.com/zlua-go/zlua"
)

type Hero struct {
	Name string
	HP   int
	Mana int `lua:"mp"`
}

func (h *Hero) Heal(n int)          { h.HP += n }
func (h *Hero) MoveTo(x, y float64) {}

// Walker is a view of a Hero that only moves.
type Walker interface{ MoveTo(x, y float64) }

// Go pointers reach Lua as objects: methods, fields (renamed with the lua
// tag), and the same userdata every time the same pointer is pushed.
func Example_methods() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()

	hero := &Hero{Name: "ann", HP: 10, Mana: 3}
	env.SetGlobal("hero", hero)
	env.SetGlobal("find", func() *Hero { return hero })
	env.DoString(`
		hero:Heal(5)
		hero.Name = "bob"
		same = rawequal(find(), hero)
		mp = hero.mp
	`)
	var same bool
	var mp int
	env.Global("same", &same)
	env.Global("mp", &mp)
	fmt.Println(hero.Name, hero.HP, mp, same)
	// Output: bob 15 3 true
}

// A view restricts what Lua sees of an object to an interface's methods.
func ExampleAsView() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()

	env.SetGlobal("walker", zlua.AsView[Walker](&Hero{HP: 10}))
	err := env.DoString(`walker:MoveTo(1, 2); walker:Heal(1)`)
	fmt.Println(err != nil)
	// Output: true
}

// Maps and slices are copied into tables unless pushed by reference.
func ExampleByRef() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()

	stock := map[string]int{"potion": 2}
	env.SetGlobal("copy", stock)
	env.SetGlobal("stock", zlua.ByRef(stock))
	env.DoString(`copy.potion = 100; stock.potion = stock.potion - 1; stock.elixir = 1`)
	fmt.Println(stock["potion"], stock["elixir"])
	// Output: 1 1
}

// Register places constructors and constants under the root table go.
func ExampleEnv_Register() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()

	env.Register("game.NewHero", func(name string) *Hero { return &Hero{Name: name, HP: 1} })
	env.DoString(`hero = go.game.NewHero("cid")`)
	var h *Hero
	env.Global("hero", &h)
	fmt.Println(h.Name, h.HP)
	// Output: cid 1
}

// Numeric and boolean fields of a Go object are read and written by C:
// after the first access, which pins the object, a script's field loop
// makes no Go call, and Go sees the values in its struct.
func Example_fieldsServedInC() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()

	hero := &Hero{HP: 10}
	env.SetGlobal("hero", hero)
	env.DoString(`hero.HP = hero.HP + 1`) // the first access enters Go once
	before := env.Stats().GoCalls
	env.DoString(`for i = 1, 1000 do hero.HP = hero.HP + 1; hero.mp = i end`)
	fmt.Println(hero.HP, hero.Mana, env.Stats().GoCalls-before, env.Stats().PinnedObjects)
	// Output: 1011 1000 0 1
}

// A Lua handler bound to a typed func runs without reflection; a pointer
// lent with Opaque for the call is one word and allocates nothing.
func ExampleOpaque_typed() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()

	env.DoString(`function weigh(h) return zlua.get_opaquevalue(h).HP * 2 end`)
	var weigh func(any) (float64, error)
	env.GetFunction("weigh", &weigh)
	w, err := weigh(zlua.Opaque(&Hero{HP: 21}))
	fmt.Println(w, err)
	// Output: 42 <nil>
}
