package bench

import (
	"fmt"
	"testing"

	lua "github.com/yuin/gopher-lua"
	"github.com/zlua-go/zlua"
	"github.com/zlua-go/zlua/bench/native"
)

// The Operators rows: v + w on two 3-vectors, the result a new vector.
// native is stock Lua with no host call at all: the vectors are tables
// whose __add is a Lua function (what a script would write without a
// binding); zlua's are ByVal Vec3 with a Go __add set by zlua.Metamethods
// (one Lua→Go call, a struct copy in, a new struct userdata out);
// gopher-lua's are LUserData with a Go __add.

const opScript = "local v, w, s = v, w; for i = 1, %d do s = v + w end; assert(s.x == 5 and s.z == 9)"

// opLuaVectors defines v and w as Lua tables with a Lua __add.
const opLuaVectors = `
	local mt = {}
	mt.__add = function(a, b) return setmetatable({x = a.x + b.x, y = a.y + b.y, z = a.z + b.z}, mt) end
	v = setmetatable({x = 1, y = 2, z = 3}, mt)
	w = setmetatable({x = 4, y = 5, z = 6}, mt)`

// BenchmarkOperators_Add is v + w: see opScript.
func BenchmarkOperators_Add(b *testing.B) {
	b.Run("native", func(b *testing.B) {
		s, err := native.Open()
		must(b, err)
		defer s.Close()
		must(b, s.DoString(opLuaVectors))
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		must(b, s.DoString(fmt.Sprintf(opScript, b.N)))
	})
	b.Run("zlua", func(b *testing.B) {
		e, err := zlua.New(zlua.Options{})
		must(b, err)
		defer e.Close()
		must(b, zlua.Metamethods[Vec3](e, map[string]any{
			"__add": func(a, b Vec3) Vec3 { return Vec3{a.X + b.X, a.Y + b.Y, a.Z + b.Z} },
		}))
		must(b, e.SetGlobal("v", Vec3{1, 2, 3}))
		must(b, e.SetGlobal("w", Vec3{4, 5, 6}))
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		must(b, e.DoString(fmt.Sprintf(opScript, b.N)))
	})
	b.Run("gopherlua", func(b *testing.B) {
		L := lua.NewState()
		defer L.Close()
		mt := L.NewTypeMetatable("Vec3")
		var wrap func(v *Vec3) *lua.LUserData
		wrap = func(v *Vec3) *lua.LUserData {
			ud := L.NewUserData()
			ud.Value = v
			L.SetMetatable(ud, mt)
			return ud
		}
		L.SetField(mt, "__index", L.NewFunction(func(L *lua.LState) int {
			p := L.CheckUserData(1).Value.(*Vec3)
			switch L.CheckString(2) {
			case "x":
				L.Push(lua.LNumber(p.X))
			case "z":
				L.Push(lua.LNumber(p.Z))
			default:
				L.Push(lua.LNumber(p.Y))
			}
			return 1
		}))
		L.SetField(mt, "__add", L.NewFunction(func(L *lua.LState) int {
			a := L.CheckUserData(1).Value.(*Vec3)
			c := L.CheckUserData(2).Value.(*Vec3)
			L.Push(wrap(&Vec3{a.X + c.X, a.Y + c.Y, a.Z + c.Z}))
			return 1
		}))
		L.SetGlobal("v", wrap(&Vec3{1, 2, 3}))
		L.SetGlobal("w", wrap(&Vec3{4, 5, 6}))
		b.ReportAllocs()
		b.ResetTimer()
		defer startCPU(b).report()
		if err := L.DoString(fmt.Sprintf(opScript, b.N)); err != nil {
			b.Fatal(err)
		}
	})
}
