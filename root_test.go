package zlua_test

import (
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// Options.Root names the table Register fills; "_G" registers globals.
func TestOptionsRoot(t *testing.T) {
	api := newEnvWith(t, zlua.Options{Root: "api"})
	must(t, api.Register("game.spawn", func(n int) int { return n * 2 }))
	run(t, api, `assert(api.game.spawn(2) == 4 and go == nil)`)

	globals := newEnvWith(t, zlua.Options{Root: "_G", Libs: zlua.LibsSafe})
	must(t, globals.Register("game.spawn", func(n int) int { return n * 3 }))
	must(t, globals.Register("MaxHP", 100))
	run(t, globals, `assert(game.spawn(2) == 6 and MaxHP == 100 and go == nil)`)
	run(t, globals, `_G = nil`) // Register writes the global table, not the variable _G
	must(t, globals.Register("later", true))
	run(t, globals, `assert(later == true)`)

	def := newEnv(t)
	must(t, def.Register("x", 1))
	run(t, def, `assert(go.x == 1)`)
	run(t, def, `go = 5`)
	if err := def.Register("y", 1); err == nil || !strings.Contains(err.Error(), "root 'go' is not a table") {
		t.Errorf("Register with the root replaced by a script = %v", err)
	}

	for _, bad := range []string{"1x", "a.b", "end", "a b", "é"} {
		if _, err := zlua.New(zlua.Options{Root: bad}); err == nil || !strings.Contains(err.Error(), "is not a Lua name") {
			t.Errorf("Root %q: %v", bad, err)
		}
	}
}
