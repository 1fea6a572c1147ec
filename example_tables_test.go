package zlua_test

import (
	"fmt"

	"github.com/zlua-go/zlua"
)

// ServerConfig is what a server's config script describes.
type ServerConfig struct {
	Name       string
	MaxPlayers int `lua:"max_players"`
	Spawn      Point
	Weapons    []WeaponConfig
}

// Point is a position in the world.
type Point struct{ X, Y float64 }

// WeaponConfig is one weapon of the config.
type WeaponConfig struct {
	Name   string
	Damage int
}

// A config script decoded into a Go struct: keys match field names (or
// their lua tags) exactly or without regard to case, nested tables fill
// nested structs and slices, unknown keys are ignored, and errors name the
// path to the bad value.
func ExampleEnv_config() {
	env, _ := zlua.New(zlua.Options{Libs: zlua.LibsSafe})
	defer env.Close()

	env.DoString(`
		config = {
			name = "arena",
			max_players = 16,
			spawn = {x = 10, y = 20},
			weapons = {
				{name = "sword", damage = 12},
				{name = "bow", damage = 8, range = 30}, -- range: not in WeaponConfig, ignored
			},
		}`)
	var cfg ServerConfig
	if err := env.Global("config", &cfg); err != nil {
		fmt.Println(err)
	}
	fmt.Printf("%+v\n", cfg)

	env.DoString(`config.weapons[2].damage = "lots"`)
	fmt.Println(env.Global("config", &cfg))

	// Go functions taking structs accept tables too.
	env.SetGlobal("teleport", func(p Point) string { return fmt.Sprint(p) })
	env.DoString(`where = teleport({x = 1, y = 2})`)
	var where string
	env.Global("where", &where)
	fmt.Println(where)
	// Output:
	// {Name:arena MaxPlayers:16 Spawn:{X:10 Y:20} Weapons:[{Name:sword Damage:12} {Name:bow Damage:8}]}
	// zlua: global "config": config.weapons[2].damage: number expected, got string
	// {1 2}
}

// AsTable gives a script a plain table copy of a struct instead of a
// userdata: it can iterate it with pairs and use table functions on it.
func ExampleAsTable() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()

	cfg := ServerConfig{Name: "arena", Weapons: []WeaponConfig{{"sword", 12}, {"bow", 8}}}
	env.SetGlobal("config", zlua.AsTable(cfg))
	env.DoString(`
		local names = {}
		for _, w in ipairs(config.Weapons) do names[#names + 1] = w.Name end
		summary = config.Name .. ": " .. table.concat(names, ", ") .. " (" .. type(config) .. ")"`)
	var summary string
	env.Global("summary", &summary)
	fmt.Println(summary)
	// Output: arena: sword, bow (table)
}

// RawGet reads a proxy table's own contents, past its __index.
func ExampleTable_RawGet() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()

	env.DoString(`config = setmetatable({speed = 3}, {__index = function() return "default" end})`)
	var config *zlua.Table
	env.Global("config", &config)
	defer config.Release()

	var viaIndex, raw any
	config.Get("color", &viaIndex)
	config.RawGet("color", &raw)
	fmt.Println(viaIndex, raw)
	// Output: default <nil>
}
