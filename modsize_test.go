package zlua_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/zlua-go/zlua"
)

// TestModulesLargerThanTheMemoryLimitAreRefusedUnread: under a memory
// limit, require refuses a module file larger than the limit by its size,
// before reading it (before, Go read the whole file and copied it, twice
// its size, only for Lua to refuse it for memory); a file within the limit
// loads as usual.
func TestModulesLargerThanTheMemoryLimitAreRefusedUnread(t *testing.T) {
	big := "return " + strings.Repeat(" ", 2<<20) + "1"
	mods := fstest.MapFS{
		"big.lua":   {Data: []byte(big)},
		"small.lua": {Data: []byte("return 2")},
	}
	e := newEnvWith(t, zlua.Options{Modules: mods, MemoryLimit: 1 << 20})
	err := e.DoString(`return require("big")`)
	want := "error loading module 'big' from file 'big.lua':\n\tfile of 2097160 bytes is larger than the memory limit (1048576 bytes)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("require of a file over the limit: %v\nwant %q", err, want)
	}
	run(t, e, `assert(require("small") == 2)`)
	// Without a limit the same file loads.
	e2 := newEnvWith(t, zlua.Options{Modules: mods})
	run(t, e2, `assert(require("big") == 1)`)
}
