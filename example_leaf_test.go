package zlua_test

import (
	"fmt"

	"github.com/zlua-go/zlua"
)

// Ship's Move and Position touch only the ship: they can be leaf methods.
type Ship struct {
	X, Y float64
	Fuel int
}

// Move moves the ship if it has fuel left and reports whether it moved.
func (s *Ship) Move(dx, dy float64) bool {
	if s.Fuel == 0 {
		return false
	}
	s.X, s.Y, s.Fuel = s.X+dx, s.Y+dy, s.Fuel-1
	return true
}

// Position returns where the ship is.
func (s *Ship) Position() (float64, float64) { return s.X, s.Y }

// Declare hot methods that never call back into their Env as leaf
// methods, before the type is first pushed: on LuaJIT, compiled Lua loops
// then call them through the FFI without leaving the trace.
func ExampleLeaf() {
	if err := zlua.Leaf[*Ship]("Move", "Position"); err != nil {
		fmt.Println(err)
		return
	}
	env, err := zlua.New(zlua.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer env.Close()
	ship := &Ship{Fuel: 3}
	if err := env.SetGlobal("ship", ship); err != nil {
		fmt.Println(err)
		return
	}
	if err := env.DoString(`
		moved = 0
		for i = 1, 5 do
			if ship:Move(1, 0.5) then moved = moved + 1 end
		end
		x, y = ship:Position()`); err != nil {
		fmt.Println(err)
		return
	}
	var moved int
	var x, y float64
	_ = env.Global("moved", &moved)
	_ = env.Global("x", &x)
	_ = env.Global("y", &y)
	fmt.Println(moved, x, y, ship.Fuel)
	// A method without the signature a leaf method needs is refused.
	fmt.Println(zlua.Leaf[*zlua.Env]("DoString"))
	// Output:
	// 3 3 1.5 0
	// zlua: Leaf[*zlua.Env]: method DoString: parameter 1 is string (a leaf method takes numbers and booleans)
}
