package bench

import (
	"fmt"
	"runtime"
	"runtime/cgo"
	"testing"

	lua "github.com/yuin/gopher-lua"
	"github.com/zlua-go/zlua"
	"github.com/zlua-go/zlua/bench/native"
	"github.com/zlua-go/zlua/objreg"
)

// Counter is the Go object of the object rows; its 24 bytes match the C
// Counter of bench/native.
type Counter struct{ N, pad1, pad2 int }

// Add is the method of the method-call row.
func (c *Counter) Add(x int) int { c.N += x; return c.N }

// objectRow runs script (with n substituted) on the three implementations:
// native C (get, mk, obj and Counter:Add in bench/native), zlua (Go
// functions returning *Counter) and gopher-lua (LUserData with a
// metatable). The script's %d is the iteration count.
func objectRow(b *testing.B, script string) {
	b.Run("native", func(b *testing.B) {
		s, err := native.Open()
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		if err := s.DoString(fmt.Sprintf(script, b.N)); err != nil {
			b.Fatal(err)
		}
	})
	b.Run("zlua", func(b *testing.B) {
		e, err := zlua.New(zlua.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer e.Close()
		same := &Counter{}
		must(b, e.SetGlobal("get", func() *Counter { return same }))
		must(b, e.SetGlobal("mk", func() *Counter { return &Counter{} }))
		must(b, e.SetGlobal("obj", same))
		must(b, e.SetGlobal("one", func() int { return 1 }))
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		must(b, e.DoString(fmt.Sprintf(script, b.N)))
		must(b, e.Pump())
	})
	b.Run("gopherlua", func(b *testing.B) {
		L := lua.NewState()
		defer L.Close()
		mt := L.NewTypeMetatable("Counter")
		L.SetField(mt, "__index", L.SetFuncs(L.NewTable(), map[string]lua.LGFunction{
			"Add": func(L *lua.LState) int {
				c := L.CheckUserData(1).Value.(*Counter)
				L.Push(lua.LNumber(c.Add(L.CheckInt(2))))
				return 1
			},
		}))
		newUD := func(c *Counter) *lua.LUserData {
			ud := L.NewUserData()
			ud.Value = c
			L.SetMetatable(ud, mt)
			return ud
		}
		same := newUD(&Counter{})
		L.SetGlobal("obj", same)
		L.SetGlobal("get", L.NewFunction(func(L *lua.LState) int { L.Push(same); return 1 }))
		L.SetGlobal("mk", L.NewFunction(func(L *lua.LState) int { L.Push(newUD(&Counter{})); return 1 }))
		L.SetGlobal("one", L.NewFunction(func(L *lua.LState) int { L.Push(lua.LNumber(1)); return 1 }))
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		if err := L.DoString(fmt.Sprintf(script, b.N)); err != nil {
			b.Fatal(err)
		}
	})
}

func must(b *testing.B, err error) {
	b.Helper()
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkObjects_CallOne is one Lua→host call of one() returning the integer 1:
// the baseline of BenchmarkObjects_CachedPush (same call, no arguments, one
// result that needs no push program).
func BenchmarkObjects_CallOne(b *testing.B) {
	objectRow(b, "local one = one; for i = 1, %d do local o = one() end")
}

// BenchmarkObjects_CachedPush is one Lua→host call of get() that returns the same
// object every time: the call itself (trampoline, one cgo callback for
// zlua), the identity-cache lookup (Go map, then the weak Lua table in C)
// and pushing the existing userdata. Subtract BenchmarkObjects_CallOne's row (the
// same call returning an integer) for the push alone.
func BenchmarkObjects_CachedPush(b *testing.B) {
	objectRow(b, "local get = get; for i = 1, %d do local o = get() end")
}

// BenchmarkObjects_NewPush is one call of mk() returning a new object (for zlua a
// new *Counter: Go allocation, a new slot, a new userdata entered in the
// weak cache), plus that object's later collection: the script ends with
// a full Lua collection (every __gc) and zlua's Pump releases the slots.
func BenchmarkObjects_NewPush(b *testing.B) {
	objectRow(b, "local mk = mk; for i = 1, %d do local o = mk() end; collectgarbage(); collectgarbage()")
}

// BenchmarkObjects_MethodCall is obj:Add(1) on a held object: the method lookup
// (__index, a methods table hit in C for native and zlua), the call, the
// receiver check (luaL_checkudata / zlua's ours+kind+slot+type check), one
// integer argument and one integer result.
func BenchmarkObjects_MethodCall(b *testing.B) {
	objectRow(b, "local o, s = obj, 0; for i = 1, %d do s = o:Add(1) end; assert(s == %[1]d)")
}

// BenchmarkObjects_BytesPerObject reports B/object: the memory one more live object
// costs, held by Lua in a presized table. zlua: the userdata and its weak
// cache entry (Lua heap) plus the slot, identity map entry and C count (Go
// heap and C). native: the userdata. gopher-lua: its LUserData. The Go
// object itself (24 bytes) is allocated before measuring and excluded.
func BenchmarkObjects_BytesPerObject(b *testing.B) {
	const n = 100_000
	objs := make([]*Counter, n)
	for i := range objs {
		objs[i] = &Counter{}
	}
	report := func(b *testing.B, bytes float64) {
		b.ReportMetric(bytes/n, "B/object")
	}
	prep := fmt.Sprintf("hold = {}; for i = 1, %d do hold[i] = false end; collectgarbage(); collectgarbage(); before = collectgarbage('count')", n)
	measure := "collectgarbage(); collectgarbage(); after = collectgarbage('count')"
	b.Run("native", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			s, err := native.Open()
			if err != nil {
				b.Fatal(err)
			}
			must(b, s.DoString(prep))
			must(b, s.DoString(fmt.Sprintf("for i = 1, %d do hold[i] = mk() end; ", n)+measure+
				"; if after - before < 1 then error('nothing measured') end; kb = after - before"))
			kb, err := s.Number("kb")
			must(b, err)
			report(b, kb*1024)
			s.Close()
		}
	})
	b.Run("zlua", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			e, err := zlua.New(zlua.Options{})
			must(b, err)
			k := 0
			must(b, e.SetGlobal("mk", func() *Counter { k++; return objs[k-1] }))
			must(b, e.DoString(prep))
			goBefore := heap()
			must(b, e.DoString(fmt.Sprintf("for i = 1, %d do hold[i] = mk() end; ", n)+measure))
			goAfter := heap()
			var before, after float64
			must(b, e.Global("before", &before))
			must(b, e.Global("after", &after))
			report(b, (after-before)*1024+float64(goAfter-goBefore)+4) // +4: the C count per slot
			must(b, e.Close())
		}
	})
	b.Run("gopherlua", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			L := lua.NewState()
			k := 0
			L.SetGlobal("mk", L.NewFunction(func(L *lua.LState) int {
				ud := L.NewUserData()
				ud.Value = objs[k]
				k++
				L.Push(ud)
				return 1
			}))
			if err := L.DoString(fmt.Sprintf("hold = {}; for i = 1, %d do hold[i] = false end", n)); err != nil {
				b.Fatal(err)
			}
			before := heap()
			if err := L.DoString(fmt.Sprintf("for i = 1, %d do hold[i] = mk() end", n)); err != nil {
				b.Fatal(err)
			}
			report(b, float64(heap()-before))
			L.Close()
		}
	})
	runtime.KeepAlive(objs)
}

func heap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// slotCounts is a stand-in for the C side of the slot table: every slot
// gets one userdata that is collected right away.
type slotCounts struct{ queue []uint32 }

func (c *slotCounts) ReserveSlots(uint32) bool      { return true }
func (c *slotCounts) SlotCount(uint32) uint32       { return 0 }
func (c *slotCounts) FreedSlots(f func(s []uint32)) { f(c.queue); c.queue = c.queue[:0] }
func (c *slotCounts) HasFreedSlots() bool           { return len(c.queue) > 0 }

// BenchmarkObjects_SlotVsCgoHandle compares zlua's slot table with the runtime's
// handle table, the alternative for keeping Go objects reachable by an
// integer: store an object, read it back by index, release it. The
// "native" row is runtime/cgo.Handle (NewHandle, Value, Delete); "zlua"
// is objreg (Add, Get, release through the queue and Drain, in batches of
// 256 as the gate drains).
func BenchmarkObjects_SlotVsCgoHandle(b *testing.B) {
	c := &Counter{}
	b.Run("native", func(b *testing.B) {
		b.ReportAllocs()
		defer startCPU(b).report()
		for i := 0; i < b.N; i++ {
			h := cgo.NewHandle(c)
			if h.Value().(*Counter) != c {
				b.Fatal("wrong value")
			}
			h.Delete()
		}
	})
	b.Run("zlua", func(b *testing.B) {
		counts := &slotCounts{}
		r := objreg.New(counts)
		b.ReportAllocs()
		defer startCPU(b).report()
		for i := 0; i < b.N; i++ {
			slot, gen, err := r.Add(0, false, c, 1)
			if err != nil || r.Val(r.Get(slot, gen)).(*Counter) != c {
				b.Fatal("wrong value")
			}
			counts.queue = append(counts.queue, slot)
			if len(counts.queue) == 256 {
				r.Drain()
				r.Settle()
			}
		}
	})
}

// fieldLoop reads and writes an integer field of a held object n times.
const fieldLoop = "local o = rec; for i = 1, %d do o.N = o.N + 1 end; assert(o.N == %[1]d)"

// BenchmarkObjects_FieldGetSet is one read plus one write of an exported
// int field of a Go object held by reference (obj.N = obj.N + 1): zlua
// enters Go for each (ByObj fields live in Go memory); native is a C
// userdata whose __index/__newindex serve the field; gopher-lua a
// LUserData with Go __index/__newindex functions.
func BenchmarkObjects_FieldGetSet(b *testing.B) {
	b.Run("native", func(b *testing.B) {
		s, err := native.Open()
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		s.OpenFields()
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		must(b, s.DoString(fmt.Sprintf(fieldLoop, b.N)))
	})
	b.Run("zlua", func(b *testing.B) {
		e, err := zlua.New(zlua.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer e.Close()
		must(b, e.SetGlobal("rec", &Counter{}))
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		must(b, e.DoString(fmt.Sprintf(fieldLoop, b.N)))
	})
	b.Run("gopherlua", func(b *testing.B) {
		L := lua.NewState()
		defer L.Close()
		mt := L.NewTypeMetatable("Counter")
		L.SetField(mt, "__index", L.NewFunction(func(L *lua.LState) int {
			c := L.CheckUserData(1).Value.(*Counter)
			if L.CheckString(2) != "N" {
				L.RaiseError("no field")
			}
			L.Push(lua.LNumber(c.N))
			return 1
		}))
		L.SetField(mt, "__newindex", L.NewFunction(func(L *lua.LState) int {
			c := L.CheckUserData(1).Value.(*Counter)
			if L.CheckString(2) != "N" {
				L.RaiseError("no field")
			}
			c.N = L.CheckInt(3)
			return 0
		}))
		ud := L.NewUserData()
		ud.Value = &Counter{}
		L.SetMetatable(ud, mt)
		L.SetGlobal("rec", ud)
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		if err := L.DoString(fmt.Sprintf(fieldLoop, b.N)); err != nil {
			b.Fatal(err)
		}
	})
}
