package zlua_test

import (
	"errors"
	"fmt"

	"github.com/zlua-go/zlua"
)

// A Go function called from a script, and a global read back.
func Example() {
	env, err := zlua.New(zlua.Options{})
	if err != nil {
		panic(err)
	}
	defer env.Close()

	env.SetGlobal("add", func(a, b int) int { return a + b })
	if err := env.DoString(`total = add(40, 2)`); err != nil {
		panic(err)
	}
	var total int
	env.Global("total", &total)
	fmt.Println(total)
	// Output: 42
}

// Go errors become Lua errors that pcall catches; uncaught, the Go caller
// gets them back with errors.Is.
func ExampleEnv_SetGlobal_errors() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()

	errNoSuchItem := errors.New("no such item")
	env.SetGlobal("take", func(item string) (int, error) {
		if item != "sword" {
			return 0, errNoSuchItem
		}
		return 1, nil
	})
	env.DoString(`ok, msg = pcall(take, "shield")`)
	var msg string
	env.Global("msg", &msg)
	fmt.Println(msg)

	err := env.DoString(`take("shield")`)
	fmt.Println(errors.Is(err, errNoSuchItem))
	// Output:
	// no such item
	// true
}

// A panic in a Go function is recovered at the gate.
func ExamplePanicError() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()

	env.SetGlobal("explode", func() { panic("out of ammo") })
	err := env.DoString(`explode()`)
	var pe *zlua.PanicError
	if errors.As(err, &pe) {
		fmt.Println(pe.Func, pe.Value)
	}
	// Output: explode out of ammo
}

// A Go function yields the coroutine that called it; the values passed to
// resume become its results.
func ExampleYield() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()

	env.SetGlobal("wait_for", func(event string) (string, error) {
		return "", zlua.Yield(event)
	})
	env.DoString(`
		co = coroutine.create(function()
			local payload = wait_for("door_opened")
			result = "got " .. payload
		end)
		local _, waiting = coroutine.resume(co)
		first = waiting
		coroutine.resume(co, "player 7")
	`)
	var first, result string
	env.Global("first", &first)
	env.Global("result", &result)
	fmt.Println(first, "/", result)
	// Output: door_opened / got player 7
}

// Lua tables come back as Go maps and slices.
func ExampleEnv_Global() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()

	env.DoString(`config = { tick_rate = 30, maps = { "dust", "harbor" } }`)
	var rate int
	var maps []string
	env.DoString(`rate, maps = config.tick_rate, config.maps`)
	env.Global("rate", &rate)
	env.Global("maps", &maps)
	fmt.Println(rate, maps)
	// Output: 30 [dust harbor]
}
