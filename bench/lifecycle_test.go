package bench

import (
	"testing"

	lua "github.com/yuin/gopher-lua"
	"github.com/zlua-go/zlua"
	"github.com/zlua-go/zlua/bench/native"
)

// lifecycleScript is what each state of BenchmarkLifecycle_NewClose runs
// between its creation and its close: a global and a small table.
const lifecycleScript = `player = {name = "p1", hp = 100, pos = {x = 1, y = 2}}`

// BenchmarkLifecycle_NewClose measures a state's whole life with every
// standard library open: create it, run a one-line script, close it (a
// server that gives each player or match its own Env pays it per
// session). native is luaL_newstate, luaL_openlibs and lua_close. On
// LuaJIT a state's first touches of a new allocator arena fault its pages
// in and closing it unmaps them; zlua keeps the arenas of small closed
// states for the next (cgo/alloc.c, outside probe C2-F9).
func BenchmarkLifecycle_NewClose(b *testing.B) {
	b.Run("native", func(b *testing.B) {
		b.ReportAllocs()
		defer startCPU(b).report()
		for i := 0; i < b.N; i++ {
			s, err := native.Open()
			if err != nil {
				b.Fatal(err)
			}
			if err := s.DoString(lifecycleScript); err != nil {
				b.Fatal(err)
			}
			s.Close()
		}
	})
	b.Run("zlua", func(b *testing.B) {
		b.ReportAllocs()
		defer startCPU(b).report()
		for i := 0; i < b.N; i++ {
			e, err := zlua.New(zlua.Options{})
			if err != nil {
				b.Fatal(err)
			}
			if err := e.DoString(lifecycleScript); err != nil {
				b.Fatal(err)
			}
			if err := e.Close(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("gopherlua", func(b *testing.B) {
		b.ReportAllocs()
		defer startCPU(b).report()
		for i := 0; i < b.N; i++ {
			L := lua.NewState()
			if err := L.DoString(lifecycleScript); err != nil {
				b.Fatal(err)
			}
			L.Close()
		}
	})
}
