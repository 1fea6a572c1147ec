package zlua_test

import (
	"fmt"

	"github.com/zlua-go/zlua"
)

// An event bus: scripts subscribe a handler with on and drop it with off.
// Each crossing makes a new *Function, so off finds the subscription with
// Same, which compares the Lua values (rawequal).
func ExampleFunction_Same() {
	env, err := zlua.New(zlua.Options{})
	if err != nil {
		panic(err)
	}
	defer env.Close()
	var handlers []*zlua.Function
	_ = env.SetGlobal("on", func(h *zlua.Function) { handlers = append(handlers, h) })
	_ = env.SetGlobal("off", func(h *zlua.Function) error {
		for i, s := range handlers {
			same, err := s.Same(h)
			if err != nil {
				return err
			}
			if same {
				handlers = append(handlers[:i], handlers[i+1:]...)
				s.Release()
				break
			}
		}
		h.Release()
		return nil
	})
	err = env.DoString(`
		local function greet() print("hello") end
		local function count() end
		on(greet); on(count)
		off(greet)`)
	fmt.Println(len(handlers), err)
	// Output: 1 <nil>
}
