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
