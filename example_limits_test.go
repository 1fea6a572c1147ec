package zlua_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zlua-go/zlua"
)

// A memory limit turns a memory bomb into an error; the Env stays usable.
func ExampleOptions_memoryLimit() {
	env, _ := zlua.New(zlua.Options{MemoryLimit: 8 << 20})
	defer env.Close()

	err := env.DoString(`local t = {} while true do t[#t + 1] = ("x"):rep(1024) end`)
	fmt.Println(errors.Is(err, zlua.ErrMemory))

	env.DoString(`ok, msg = pcall(string.rep, "x", 1e9)`)
	var msg string
	env.Global("msg", &msg)
	fmt.Println(msg)
	fmt.Println(env.Stats().LuaPeakBytes <= 8<<20)
	// Output:
	// true
	// not enough memory
	// true
}

// A deadline stops a script that never returns.
func ExampleEnv_DoStringContext() {
	env, _ := zlua.New(zlua.Options{Libs: zlua.LibsSafe})
	defer env.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err := env.DoStringContext(ctx, `while true do end`)
	fmt.Println(errors.Is(err, context.DeadlineExceeded))
	fmt.Println(err)
	// Output:
	// true
	// (dostring):1: interrupted: context deadline exceeded
}

// The safe library set has no file, process or debug access.
func ExampleLibsSafe() {
	env, _ := zlua.New(zlua.Options{Libs: zlua.LibsSafe})
	defer env.Close()

	env.DoString(`
		has = {io = io ~= nil, debug = debug ~= nil, execute = os.execute ~= nil,
			time = os.time ~= nil, dump = string.dump ~= nil}
		local f, err = load(string.char(27) .. "Lua")
		why = err`)
	var has map[string]bool
	var why string
	env.Global("has", &has)
	env.Global("why", &why)
	fmt.Println(has)
	fmt.Println(why)
	// Output:
	// map[debug:false dump:false execute:false io:false time:true]
	// attempt to load a binary chunk (mode is 't')
}

// A handle on a table a script made runs its metamethods; GetContext
// bounds them as DoStringContext bounds a chunk.
func ExampleTable_GetContext() {
	env, _ := zlua.New(zlua.Options{Libs: zlua.LibsSafe})
	defer env.Close()
	env.DoString(`config = setmetatable({}, {__index = function() while true do end end})`)
	var config *zlua.Table
	env.Global("config", &config)
	defer config.Release()

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	var port int
	err := config.GetContext(ctx, "port", &port)
	fmt.Println(errors.Is(err, context.DeadlineExceeded))
	// Output:
	// true
}
