package zlua_test

import (
	"testing"

	"github.com/zlua-go/zlua"
)

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

// assignHolder has fields the Go setter serves: composites and strings.
type assignHolder struct {
	Name string
	On   bool
	Tags []string
	Pos  probeVec
	Arr  [2]int
	M    map[string]int
}

// A refused assignment leaves the field as it was, on objects and struct
// values, as a failed Go setter call would: the setter decoded in place,
// so `o.Tags = {1, {}}` left Tags = ["1", ""], `o.Pos = {X = 5, Y = {}}` a
// zeroed Pos, `o.Name = {}` an empty Name (and a struct value's cached
// Lua copy then disagreed with Go's). The same for a slice element by
// reference.
func TestRefusedAssignmentLeavesTheFieldAsItWas(t *testing.T) {
	e := newEnv(t)
	h := &assignHolder{Name: "a", On: true, Tags: []string{"x", "y"}, Pos: probeVec{1, 2}, Arr: [2]int{7, 8},
		M: map[string]int{"k": 1}}
	must(t, e.SetGlobal("h", h))
	must(t, e.SetGlobal("c", *h))
	tags := []string{"p", "q"}
	must(t, e.SetGlobal("s", zlua.ByRef(tags)))
	must(t, e.SetGlobal("ps", zlua.ByRef([]probeVec{{1, 2}})))
	run(t, e, `
		for _, o in ipairs({h, c}) do
			for _, bad in ipairs({
				{"Name", {}}, {"On", 1}, {"Tags", {1, {}}}, {"Pos", {X = 5, Y = {}}},
				{"Arr", {9, {}}}, {"M", {a = 1, b = {}}},
			}) do
				local ok = pcall(function() o[bad[1]] = bad[2] end)
				assert(not ok, bad[1] .. " accepted a bad value")
			end
			assert(o.Name == "a" and o.On == true, "scalars changed")
			assert(o.Tags[1] == "x" and #o.Tags == 2 and o.Pos.X == 1 and o.Pos.Y == 2, "composites changed")
			assert(o.Arr[1] == 7 and o.Arr[2] == 8 and o.M.k == 1 and o.M.a == nil, "arrays or maps changed")
		end
		assert(not pcall(function() s[1] = {} end) and s[1] == "p")
		assert(not pcall(function() ps[1] = {X = 9, Y = {}} end) and ps[1].X == 1)
		c.Name = "b"; h.Tags = {"z"}; ps[1] = {X = 3, Y = 4}
		assert(c.Name == "b" and h.Tags[1] == "z" and #h.Tags == 1 and ps[1].X == 3)`)
	if h.Name != "a" || !h.On || len(h.Tags) != 1 || h.Tags[0] != "z" || h.Pos != (probeVec{1, 2}) || h.Arr != [2]int{7, 8} {
		t.Errorf("Go sees %+v", *h)
	}
	var c assignHolder
	must(t, e.Global("c", &c))
	if c.Name != "b" || !c.On || len(c.Tags) != 2 || c.Pos != (probeVec{1, 2}) || c.Arr != [2]int{7, 8} {
		t.Errorf("Go sees the copy as %+v", c)
	}
	if tags[0] != "p" {
		t.Errorf("slice by reference: %v", tags)
	}
}
