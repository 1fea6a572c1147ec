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

// A table a script raises as its error reads into a Go value.
func ExampleLuaError_Value() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()

	err := env.DoString(`error({code = "E_GOLD", need = 5})`)
	var le *zlua.LuaError
	if errors.As(err, &le) {
		var e struct {
			Code string
			Need int
		}
		if err := le.Value(&e); err == nil {
			fmt.Println(le.Message)
			fmt.Println(e.Code, e.Need)
		}
	}
	// Output:
	// (error object is a table value)
	// E_GOLD 5
}

// A Go function returns a variable number of results with Values.
func ExampleValues() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()

	env.SetGlobal("find", func(name string) zlua.Values {
		if name == "sword" {
			return zlua.Values{"sword", 12}
		}
		return zlua.Values{nil, "no " + name}
	})
	env.DoString(`
		item, damage = find("sword")
		missing, why = find("shield")
		count = select("#", find("sword"))`)
	var item, why string
	var damage, count int
	env.Global("item", &item)
	env.Global("damage", &damage)
	env.Global("why", &why)
	env.Global("count", &count)
	fmt.Println(item, damage, why, count)
	// Output: sword 12 no shield 2
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

// A Lua function called from Go through a typed func.
func ExampleEnv_GetFunction() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()

	env.DoString(`function damage(base, level) return base + level * 3 end`)
	var damage func(int, int) (int, error)
	if err := env.GetFunction("damage", &damage); err != nil {
		panic(err)
	}
	hit, err := damage(10, 4)
	fmt.Println(hit, err)
	// Output: 22 <nil>
}

// Lua event handlers kept by Go, a frame loop that pumps, and work posted
// from another goroutine.
func ExampleEnv_Pump() {
	env, _ := zlua.New(zlua.Options{PumpBudget: 1000})
	defer env.Close()

	var handlers []func(string) error
	env.SetGlobal("on_event", func(h func(string) error) { handlers = append(handlers, h) })
	env.DoString(`on_event(function(name) last = name end)`)

	done := make(chan struct{})
	go func() { // another goroutine hands work to the Env's goroutine
		env.Post(func(env *zlua.Env) { env.SetGlobal("posted", true) })
		close(done)
	}()
	<-done

	for frame := 0; frame < 2; frame++ {
		for _, h := range handlers {
			h(fmt.Sprintf("tick %d", frame))
		}
		env.Pump() // end of frame: releases, posted work, pending Reset
	}
	var last string
	var posted bool
	env.Global("last", &last)
	env.Global("posted", &posted)
	fmt.Println(last, posted)
	// Output: tick 1 true
}

// Reset rebuilds the state at the next Pump, e.g. for a hot reload.
func ExampleEnv_Reset() {
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()

	env.DoString(`version = 1`)
	env.Reset(func(env *zlua.Env) error { return env.DoString(`version = 2`) })
	env.Pump()
	var version int
	env.Global("version", &version)
	fmt.Println(version)
	// Output: 2
}
