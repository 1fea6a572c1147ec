package zlua_test

import (
	"fmt"

	"github.com/zlua-go/zlua"
)

// Color is blittable: Lua gets a copy whose fields C reads and writes.
type Color struct{ R, G, B uint8 }

// Gray has a value receiver, so it is callable on the copy.
func (c Color) Gray() int { return (int(c.R) + int(c.G) + int(c.B)) / 3 }

// Struct values travel by value: Lua works on its own copy, and a Go
// function taking the struct gets a copy of Lua's.
func Example_byValStruct() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()

	red := Color{R: 255}
	env.SetGlobal("c", red)
	env.SetGlobal("paint", func(c Color) string { return fmt.Sprint(c) })
	env.DoString(`
		c.G = 128                      -- changes Lua's copy only
		gray = c:Gray()
		painted = paint(c)
		ok = pcall(function() c.B = 300 end) -- out of range for uint8
	`)
	var gray int
	var painted string
	var ok bool
	env.Global("gray", &gray)
	env.Global("painted", &painted)
	env.Global("ok", &ok)
	fmt.Println(red, gray, painted, ok)
	// Output: {255 0 0} 127 {255 128 0} false
}

// Opaque lends a pointer to Lua for one call: the script reads and writes
// the struct through the handle, and the handle dies when the call
// returns.
func ExampleOpaque() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()

	env.DoString(`
		function tint(h)
			local c = zlua.get_opaquevalue(h)
			c.B = 200
			zlua.set_opaquevalue(h, c)
			saved = h
		end`)
	var tint func(any) error
	env.GetFunction("tint", &tint)

	c := Color{R: 10}
	fmt.Println(tint(zlua.Opaque(&c)), c)
	err := env.DoString(`zlua.get_opaquevalue(saved)`)
	fmt.Println(err)
	// Output:
	// <nil> {10 0 200}
	// (dostring):1: invalid opaque parameter handle
}
