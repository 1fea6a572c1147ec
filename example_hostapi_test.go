package zlua_test

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"

	"github.com/zlua-go/zlua"
)

// scripts holds the game's Lua modules (testdata/modules/game/init.lua and
// game/items.lua), compiled into the binary.
//
//go:embed testdata/modules
var scripts embed.FS

// Modules compiled into the binary with embed: require("game.items") loads
// game/items.lua from the FS, also in the sandbox.
func ExampleOptions_modules() {
	mods, _ := fs.Sub(scripts, "testdata/modules")
	env, _ := zlua.New(zlua.Options{Modules: mods, Libs: zlua.LibsSafe})
	defer env.Close()

	var greeting string
	var price int
	env.Eval(`require("game.items").greeting`, &greeting)
	env.Eval(`require("game.items").price("sword")`, &price)
	fmt.Println(greeting, price)

	err := env.DoString(`require("game.weapons")`)
	fmt.Println(err)
	// Output:
	// hello, items 10
	// (dostring):1: module 'game.weapons' not found:
	//	no field package.preload['game.weapons']
	//	no file 'game/weapons.lua'
	//	no file 'game/weapons/init.lua'
}

// Preload offers a Go API as a module: a map of Go functions becomes the
// module table.
func ExampleEnv_Preload() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()

	env.Preload("dice", map[string]any{
		"roll": func(sides int) int { return sides }, // a loaded die
	})
	var n int
	env.Eval(`require("dice").roll(6)`, &n)
	fmt.Println(n)
	// Output: 6
}

// Eval returns the values of an expression, or of a chunk's return
// statement.
func ExampleEnv_Eval() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()

	var sum int
	var name string
	env.Eval(`40 + 2, ("orc"):upper()`, &sum, &name)
	fmt.Println(sum, name)

	var squares []int
	env.Eval(`local t = {} for i = 1, 4 do t[i] = i * i end return t`, &squares)
	fmt.Println(squares)
	// Output:
	// 42 ORC
	// [1 4 9 16]
}

// LoadString compiles a named chunk: errors and tracebacks say where.
func ExampleEnv_LoadString() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()

	ai, _ := env.LoadString("mods/ai.lua", "local hp = ...\nif hp < 0 then error('negative hp') end\nreturn hp > 10 and 'fight' or 'flee'")
	out, _ := ai.Call(20)
	fmt.Println(out[0])
	_, err := ai.Call(-1)
	fmt.Println(err)
	// Output:
	// fight
	// mods/ai.lua:2: negative hp
}

// A table handle: Get and Set index it as Lua code does.
func ExampleTable() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()

	env.DoString(`config = {name = "arena", spawns = {3, 5, 8}}`)
	var config *zlua.Table
	env.Global("config", &config)

	var name string
	var spawns []int
	config.Get("name", &name)
	config.Get("spawns", &spawns)
	config.Set("players", 16)
	fmt.Println(name, spawns)

	var players int
	env.Eval(`config.players`, &players)
	fmt.Println(players)
	// Output:
	// arena [3 5 8]
	// 16
}

// ForEach walks a table; nested tables arrive as handles.
func ExampleTable_ForEach() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()

	var waves *zlua.Table
	env.Eval(`{{kind = "orc", n = 3}, {kind = "troll", n = 1}}`, &waves)
	waves.ForEach(func(i, wave any) error {
		var kind string
		var n int
		wave.(*zlua.Table).Get("kind", &kind)
		wave.(*zlua.Table).Get("n", &n)
		fmt.Println(i, kind, n)
		return nil
	})
	// Output:
	// 1 orc 3
	// 2 troll 1
}

// Method binds a Lua method to a typed Go func: calling it calls
// Shop:buy(item), with the table as self.
func ExampleTable_Method() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()

	env.DoString(`
		Shop = {gold = 100, prices = {sword = 30}}
		function Shop:buy(item)
			self.gold = self.gold - self.prices[item]
			return self.gold
		end`)
	var shop *zlua.Table
	env.Global("Shop", &shop)
	var buy func(item string) (int, error)
	shop.Method("buy", &buy)
	left, _ := buy("sword")
	fmt.Println(left)
	// Output: 70
}

// Global, SetGlobal and GetFunction follow dotted paths.
func ExampleEnv_Global_path() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()

	env.DoString(`Game = {rules = {maxHP = 100}}`)
	env.SetGlobal("Game.rules.maxMP", 50)
	var hp, mp int
	env.Global("Game.rules.maxHP", &hp)
	env.Global("Game.rules.maxMP", &mp)
	fmt.Println(hp, mp)

	var x int
	fmt.Println(env.Global("Game.nope.x", &x))
	// Output:
	// 100 50
	// zlua: global "Game.nope.x": attempt to index a nil value (Game.nope)
}

// A handle given back to Lua is the Lua value itself.
func ExampleFunction_pushBack() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()

	env.DoString(`function hello() return "hello" end`)
	var hello *zlua.Function
	env.GetFunction("hello", &hello)
	env.SetGlobal("handler", func() *zlua.Function { return hello })

	var same bool
	var s string
	env.Eval(`rawequal(handler(), hello), handler()()`, &same, &s)
	fmt.Println(same, s)
	// Output: true hello
}

// Options.Root "_G" registers values as globals.
func ExampleOptions_root() {
	env, _ := zlua.New(zlua.Options{Root: "_G"})
	defer env.Close()

	env.Register("game.spawn", func(kind string) string { return "spawned " + kind })
	var s string
	env.Eval(`game.spawn("orc")`, &s)
	fmt.Println(s)
	// Output: spawned orc
}

// Lua errors are *LuaError values; Go panics inside are *PanicError.
func ExampleLuaError() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()

	env.SetGlobal("boom", func() { panic("out of mana") })
	err := env.DoString(`boom()`)
	var le *zlua.LuaError
	var pe *zlua.PanicError
	fmt.Println(errors.As(err, &le), le.Message)
	fmt.Println(errors.As(err, &pe), pe.Func, pe.Value)
	// Output:
	// true (dostring):1: go function 'boom' panicked: out of mana
	// true boom out of mana
}

// NewTable builds a table from Go and hands it to a script; Len counts as
// Lua's # does.
func ExampleEnv_NewTable() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()

	inventory, _ := env.NewTable()
	inventory.Set(1, "sword")
	inventory.Set(2, "shield")
	env.SetGlobal("inventory", inventory)
	env.DoString(`table.insert(inventory, "potion")`)

	n, _ := inventory.Len()
	var last string
	inventory.Get(n, &last)
	fmt.Println(n, last)
	// Output: 3 potion
}
