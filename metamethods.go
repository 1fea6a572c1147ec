package zlua

import (
	"fmt"
	"reflect"

	"github.com/zlua-go/zlua/callbackgate"
	"github.com/zlua-go/zlua/cgo"
)

// Metamethods gives Lua operators to the userdata of the Go type T in env:
// T is a struct type for the copies pushed by value (ByVal) or a pointer
// type for the objects pushed by reference (ByObj, through every view).
// mm maps metamethod names to Go functions, converted as Register
// converts them:
//
//	zlua.Metamethods[Vec2](env, map[string]any{
//		"__add":      func(a, b Vec2) Vec2 { return Vec2{a.X + b.X, a.Y + b.Y} },
//		"__mul":      func(a Vec2, k float64) Vec2 { return Vec2{a.X * k, a.Y * k} },
//		"__eq":       func(a, b Vec2) bool { return a == b },
//		"__tostring": func(a Vec2) string { return fmt.Sprintf("(%g, %g)", a.X, a.Y) },
//	})
//
// The names are __add, __sub, __mul, __div, __mod, __pow, __unm, __eq,
// __lt, __le, __len, __concat, __call and __tostring; any other name
// (__index, __gc, __idiv, ...) or a value that is not a function is an
// error, and nothing is set (entries are checked in name order). A name
// set again is replaced; the others stay.
//
// Operands reach the function in Lua's order: v * 2 calls __mul(v, 2) and
// 2 * v calls __mul(2, v), so a function taking both orders declares
// (any, any) or the Go types of both. A Go error or a bad operand is a Lua
// error at the operator's position: "main.lua:3: bad argument #2 to
// 'Vec2.__add' (Vec2 expected, got string)".
//
// __eq is called only when both operands are values of T (for other
// operands == is false without calling Go); a value compared with itself
// is equal without calling it. Without a user __eq, two objects are equal
// when they are the same Go object, decided in C, and two copies are
// never equal.
//
// The metamethods belong to env's state and to T: values of T pushed
// before the call get them too (every value of T shares one metatable),
// and a Reset clears them, like globals. The operators differ between the
// backends where Lua 5.1 and 5.4 do: LuaJIT compares (<, <=) two values
// only when both have the same handler, and falls back to not (b < a) when
// __le is missing; Lua 5.4 calls __lt and __le with a number on either
// side.
func Metamethods[T any](env *Env, mm map[string]any) error {
	typ := reflect.TypeFor[T]()
	if env == nil {
		return fmt.Errorf("zlua: metamethods of %v: nil Env", typ)
	}
	if env.g == nil {
		return opErrorf(errUnmade, "metamethods of %v", typ)
	}
	var merr error
	err := env.protect(func(t cgo.Thread) int {
		merr = callbackgate.SetMetamethodsOf[T](env.g, t, mm)
		return cgo.OK
	})
	if err == nil {
		err = merr
	}
	if err != nil {
		return opErrorf(err, "metamethods of %v", typ)
	}
	return nil
}
