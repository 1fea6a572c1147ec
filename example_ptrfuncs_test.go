package zlua_test

import (
	"fmt"

	"github.com/zlua-go/zlua"
)

// Lend a struct for one call and let Lua read it through Go getters that
// take the pointer: no copy, no reflection, no allocation.
func ExampleOpaque_getter() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()

	env.SetGlobal("hp", func(h *Hero) int { return h.HP })
	env.SetGlobal("heal", func(h *Hero, n int) { h.HP += n })
	env.DoString(`function tick(h) if hp(h) < 10 then heal(h, 5) end return hp(h) end`)
	var tick func(any) (int, error)
	env.GetFunction("tick", &tick)

	hero := &Hero{HP: 7}
	fmt.Println(tick(zlua.Opaque(hero)))
	fmt.Println(hero.HP)
	// Output:
	// 12 <nil>
	// 12
}
