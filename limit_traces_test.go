package zlua_test

import (
	"errors"
	"testing"

	"github.com/zlua-go/zlua"
)

// tracedKey is a by-value struct a Go function hands back in a slice.
type tracedKey struct{ S string }

// The memory limit reached in a hot loop whose calls into Go return
// charged values in all their results ({f(...)}) ends in Lua's memory
// error. On LuaJIT it killed the process (probe T F6: SIGSEGV in
// lj_err_mem): the loop's trace was stitched around the Go function's C
// call, the charge made room with a full collection inside that call,
// and the next allocation the trace made that the limit refused read a
// frame that was not one. Envs with a limit now run without stitching.
func TestTheLimitReachedInAStitchedLoopIsAnError(t *testing.T) {
	for name, chunk := range map[string]string{
		"copies":  `local s = string.rep("a", 65536) keep = {} for i = 1, 600 do keep[i] = {eks({{S = s .. i}})} end`,
		"objects": `local s = string.rep("a", 65536) keep = {} for i = 1, 600 do keep[i] = {eptr({{Name = s .. i}})} end`,
		"select":  `local s = string.rep("a", 65536) keep = {} for i = 1, 600 do keep[i] = select(1, eks({{S = s .. i}})) end`,
	} {
		t.Run(name, func(t *testing.T) {
			e, err := zlua.New(zlua.Options{Libs: zlua.LibsSafe, MemoryLimit: 16 << 20})
			must(t, err)
			defer func() { must(t, e.Close()) }()
			must(t, e.SetGlobal("eks", func(k []tracedKey) []tracedKey { return k }))
			must(t, e.SetGlobal("eptr", func(s []*chargeEntity) []*chargeEntity { return s }))
			if err := e.DoString(chunk); !errors.Is(err, zlua.ErrMemory) {
				t.Fatalf("err = %v, want a memory error", err)
			}
		})
	}
}
