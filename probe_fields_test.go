package zlua_test

import "testing"

// fieldsA and fieldsB have C-served fields in different orders: a field's
// index in one directory names another field in the other.
type fieldsA struct {
	Count int
	Ratio float64
}

type fieldsB struct {
	Scale float64
	Count int
}

// A type's __index called (through debug.getmetatable) on another type's
// object never serves a field of that object found by the first type's
// directory index: Lua 5.4 read b.Scale for a.Count's index. The call is
// the Go getter's, which refuses the receiver, on both backends.
func TestFieldIndexOfAnotherTypesMetatableIsBadSelf(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("a", &fieldsA{Count: 7, Ratio: 0.5}))
	must(t, e.SetGlobal("b", &fieldsB{Scale: 2.5, Count: 9}))
	run(t, e, `
		for i = 1, 3 do assert(a.Count == 7 and b.Scale == 2.5 and b.Count == 9 and a.Ratio == 0.5) end
		local aindex, bindex = debug.getmetatable(a).__index, debug.getmetatable(b).__index
		for i = 1, 3 do
			assert(aindex(a, "Count") == 7 and bindex(b, "Scale") == 2.5)
			local ok, err = pcall(aindex, b, "Count")
			assert(not ok and err:find("bad self (fieldsA expected, got fieldsB)", 1, true), tostring(err))
			ok, err = pcall(bindex, a, "Scale")
			assert(not ok and err:find("bad self (fieldsB expected, got fieldsA)", 1, true), tostring(err))
			ok, err = pcall(bindex, a, "Count")
			assert(not ok and err:find("bad self (fieldsB expected, got fieldsA)", 1, true), tostring(err))
		end`)
}
