package bench

import (
	"fmt"
	"testing"

	lua "github.com/yuin/gopher-lua"
	"github.com/zlua-go/zlua"
	"github.com/zlua-go/zlua/bench/native"
)

// Vec3 is the blittable struct of the Structs rows (C's NVec3).
type Vec3 struct {
	X float64 `lua:"x"`
	Y float64 `lua:"y"`
	Z float64 `lua:"z"`
}

// Rec is the non-blittable struct of the companion row (C's NRec).
type Rec struct {
	Name string `lua:"name"`
	N    int    `lua:"n"`
}

// vecUD returns gopher-lua's equivalent of a struct userdata: an
// LUserData holding a *Vec3 whose metatable's __index and __newindex are
// Go functions.
func vecUD(L *lua.LState, v *Vec3) *lua.LUserData {
	field := func(L *lua.LState) *float64 {
		p := L.CheckUserData(1).Value.(*Vec3)
		switch L.CheckString(2) {
		case "x":
			return &p.X
		case "y":
			return &p.Y
		case "z":
			return &p.Z
		}
		L.RaiseError("Vec3 has no field %q", L.CheckString(2))
		return nil
	}
	mt := L.NewTypeMetatable("Vec3")
	L.SetField(mt, "__index", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(*field(L)))
		return 1
	}))
	L.SetField(mt, "__newindex", L.NewFunction(func(L *lua.LState) int {
		*field(L) = float64(L.CheckNumber(3))
		return 0
	}))
	ud := L.NewUserData()
	ud.Value = v
	L.SetMetatable(ud, mt)
	return ud
}

// structRow runs script (its %d is the iteration count) against global v
// (a Vec3 {1, 2, 3}) and r (a record named "ann") on the three
// implementations.
func structRow(b *testing.B, script string) {
	b.Run("native", func(b *testing.B) {
		s, err := native.Open()
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		s.OpenStructs()
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		must(b, s.DoString(fmt.Sprintf(script, b.N)))
	})
	b.Run("zlua", func(b *testing.B) {
		e, err := zlua.New(zlua.Options{})
		must(b, err)
		defer e.Close()
		must(b, e.SetGlobal("v", Vec3{1, 2, 3}))
		must(b, e.SetGlobal("r", Rec{Name: "ann"}))
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		must(b, e.DoString(fmt.Sprintf(script, b.N)))
	})
	b.Run("gopherlua", func(b *testing.B) {
		L := lua.NewState()
		defer L.Close()
		L.SetGlobal("v", vecUD(L, &Vec3{1, 2, 3}))
		rec := &Rec{Name: "ann"}
		mt := L.NewTypeMetatable("Rec")
		L.SetField(mt, "__index", L.NewFunction(func(L *lua.LState) int {
			r := L.CheckUserData(1).Value.(*Rec)
			switch L.CheckString(2) {
			case "name":
				L.Push(lua.LString(r.Name))
			case "n":
				L.Push(lua.LNumber(r.N))
			default:
				L.RaiseError("Rec has no such field")
			}
			return 1
		}))
		ud := L.NewUserData()
		ud.Value = rec
		L.SetMetatable(ud, mt)
		L.SetGlobal("r", ud)
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		if err := L.DoString(fmt.Sprintf(script, b.N)); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkStructs_FieldRead is v.x on a struct userdata: for native a C
// __index (luaL_checkudata, the key compared in C), for zlua the C
// __index over the type's field table (no Go call), for gopher-lua a Go
// __index.
func BenchmarkStructs_FieldRead(b *testing.B) {
	structRow(b, "local v, s = v, 0; for i = 1, %d do s = s + v.x end; assert(s == %[1]d)")
}

// BenchmarkStructs_FieldWrite is v.x = i (C __newindex for native and zlua).
func BenchmarkStructs_FieldWrite(b *testing.B) {
	structRow(b, "local v = v; for i = 1, %d do v.x = i end; assert(v.x == %[1]d)")
}

// BenchmarkStructs_CompanionGet is r.name: a string field of a struct
// held by Go (zlua: a companion, read through one Lua→Go call; native: a
// C __index pushing a C string; gopher-lua: a Go __index).
func BenchmarkStructs_CompanionGet(b *testing.B) {
	structRow(b, "local r, s = r; for i = 1, %d do s = r.name end; assert(s == 'ann')")
}

// BenchmarkStructs_Push is one host call that makes global v a new struct
// userdata holding {1, 2, 3}: zlua's SetGlobal of a Vec3 (one ByVal push
// program; the value is boxed once, outside the loop), native's C
// newuserdata + setglobal, gopher-lua's LUserData holding a copy.
func BenchmarkStructs_Push(b *testing.B) {
	b.Run("native", func(b *testing.B) {
		s, err := native.Open()
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		s.OpenStructs()
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		for i := 0; i < b.N; i++ {
			s.SetVec(1, 2, 3)
		}
	})
	b.Run("zlua", func(b *testing.B) {
		e, err := zlua.New(zlua.Options{})
		must(b, err)
		defer e.Close()
		var v any = Vec3{1, 2, 3}
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		for i := 0; i < b.N; i++ {
			if err := e.SetGlobal("v", v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("gopherlua", func(b *testing.B) {
		L := lua.NewState()
		defer L.Close()
		mt := L.NewTypeMetatable("Vec3")
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		for i := 0; i < b.N; i++ {
			ud := L.NewUserData()
			ud.Value = Vec3{1, 2, 3}
			L.SetMetatable(ud, mt)
			L.SetGlobal("v", ud)
		}
	})
}

// BenchmarkStructs_Opaque is the opaque round trip: Go calls a Lua
// function with a pointer to a struct and Lua reads x through a host
// getx(h). Every row does that same work: native passes a light userdata
// to a C getx(h); zlua passes zlua.Opaque(p) through a typed
// func(any) (float64, error) from GetFunction to a Go getx(p *Vec3)
// registered with SetGlobal (a handle given to a *Vec3 parameter arrives
// as p itself); gopher-lua passes an LUserData to a Go getx(h).
//
// cgofloor is native with getx's read done in Go through one bare cgo
// callback: the crossing alone, beside zlua's row.
//
// zluaCopy is a second zlua form of the same operation, kept measured
// beside the row rather than in it: zlua.get_opaquevalue(h).x makes a
// by-value copy of the struct in a new userdata and indexes it, which is
// more work than the other rows do (an allocation in Lua, a metatable, a
// later collection). The ratio tool lists it as a variant with its own
// ratio to native; it is never the zlua/native ratio.
func BenchmarkStructs_Opaque(b *testing.B) {
	b.Run("native", func(b *testing.B) { nativeOpaque(b, false) })
	// The cgo floor of this row: native's, with getx's read done by a Go
	// function through one bare cgo callback. It is the least any binding
	// pays whose getx runs Go code: zlua's row minus this one is what
	// zlua itself adds.
	b.Run("cgofloor", func(b *testing.B) { nativeOpaque(b, true) })
	b.Run("zlua", func(b *testing.B) {
		e, err := zlua.New(zlua.Options{})
		must(b, err)
		defer e.Close()
		must(b, e.SetGlobal("getx", func(p *Vec3) float64 { return p.X }))
		must(b, e.DoString("function f(h) return getx(h) end"))
		var f func(any) (float64, error) // typed: no reflection, no allocation
		must(b, e.GetFunction("f", &f))
		p := &Vec3{X: 1}
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		for i := 0; i < b.N; i++ {
			if x, err := f(zlua.Opaque(p)); err != nil || x != 1 {
				b.Fatal(x, err)
			}
		}
	})
	b.Run("zluaCopy", func(b *testing.B) {
		e, err := zlua.New(zlua.Options{})
		must(b, err)
		defer e.Close()
		must(b, e.DoString("local get = zlua.get_opaquevalue; function f(h) return get(h).x end"))
		var f func(any) (float64, error)
		must(b, e.GetFunction("f", &f))
		p := &Vec3{X: 1}
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		for i := 0; i < b.N; i++ {
			if x, err := f(zlua.Opaque(p)); err != nil || x != 1 {
				b.Fatal(x, err)
			}
		}
	})
	b.Run("gopherlua", func(b *testing.B) {
		L := lua.NewState()
		defer L.Close()
		L.SetGlobal("getx", L.NewFunction(func(L *lua.LState) int {
			L.Push(lua.LNumber(L.CheckUserData(1).Value.(*Vec3).X))
			return 1
		}))
		if err := L.DoString("function f(h) return getx(h) end"); err != nil {
			b.Fatal(err)
		}
		f := L.GetGlobal("f")
		p := &Vec3{X: 1}
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		for i := 0; i < b.N; i++ {
			ud := L.NewUserData()
			ud.Value = p
			if err := L.CallByParam(lua.P{Fn: f, NRet: 1, Protect: true}, ud); err != nil {
				b.Fatal(err)
			}
			L.Pop(1)
		}
	})
}

// nativeOpaque runs the native rows of BenchmarkStructs_Opaque: getx is
// native's C function, or with floor the cgo floor's
// (State.UseOpaqueFloor).
func nativeOpaque(b *testing.B, floor bool) {
	s, err := native.Open()
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	s.OpenStructs()
	if floor {
		s.UseOpaqueFloor()
	}
	must(b, s.DoString("function f(h) return getx(h) end"))
	ref := s.Ref("f")
	p := native.NewVec(1)
	defer p.Free()
	b.ReportAllocs()
	b.ResetTimer()
	defer startCPU(b).report()
	for i := 0; i < b.N; i++ {
		if x, err := s.CallOpaque(ref, p); err != nil || x != 1 {
			b.Fatal(x, err)
		}
	}
}
