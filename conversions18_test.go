package zlua_test

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// Value conversions fixed in the eighteenth round (outside probes H and G).

// A table reaching any is a sequence ([]any) only when its keys are
// exactly 1..n: a pair count equal to #t is not enough, as holes and
// other keys can balance ({1, nil, 3, x = 1} has three pairs and #t 3 on
// Lua 5.4; table.pack's {..., n = N} with a nil inside is the common
// shape). Such tables become maps, every key kept.
func TestTablesWithHolesAndOtherKeysReachAnyAsMaps(t *testing.T) {
	e := newEnv(t)
	var got any
	must(t, e.SetGlobal("keep", func(v any) { got = v }))
	for _, c := range []struct {
		src  string
		want any
	}{
		{`{1, nil, 3, x = "lost"}`, map[any]any{int64(1): int64(1), int64(3): int64(3), "x": "lost"}},
		{`{1, 2, nil, 4, n = 5}`, map[any]any{int64(1): int64(1), int64(2): int64(2), int64(4): int64(4), "n": int64(5)}},
		{`(function(...) return {n = select("#", ...), ...} end)(1, nil, 3)`, map[any]any{int64(1): int64(1), int64(3): int64(3), "n": int64(3)}},
		{`{10, nil, 30, name = "bob"}`, map[any]any{int64(1): int64(10), int64(3): int64(30), "name": "bob"}},
		{`{1, nil, 3}`, map[any]any{int64(1): int64(1), int64(3): int64(3)}},
		{`{[2] = "b", [3] = "c", [4] = "d"}`, map[any]any{int64(2): "b", int64(3): "c", int64(4): "d"}},
		{`{[0] = "z", "a", "b"}`, map[any]any{int64(0): "z", int64(1): "a", int64(2): "b"}},
		{`{[1.5] = "h", "a"}`, map[any]any{1.5: "h", int64(1): "a"}},
		{`{"a", "b", "c"}`, []any{"a", "b", "c"}},
		{`{[3] = "c", [1] = "a", [2] = "b"}`, []any{"a", "b", "c"}},
		{`{{1, nil, 3, x = 1}}`, []any{map[any]any{int64(1): int64(1), int64(3): int64(3), "x": int64(1)}}},
		{`{}`, map[string]any{}},
	} {
		// A Go parameter, Global, Eval, a Function's results.
		run(t, e, "v = "+c.src+"; keep(v)")
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s as a parameter: %#v, want %#v", c.src, got, c.want)
		}
		if g := global[any](t, e, "v"); !reflect.DeepEqual(g, c.want) {
			t.Errorf("%s by Global: %#v, want %#v", c.src, g, c.want)
		}
		var ev any
		must(t, e.Eval(c.src, &ev))
		if !reflect.DeepEqual(ev, c.want) {
			t.Errorf("%s by Eval: %#v, want %#v", c.src, ev, c.want)
		}
		f, err := e.LoadString("v", "return v")
		must(t, err)
		res, err := f.Call()
		must(t, err)
		if !reflect.DeepEqual(res, []any{c.want}) {
			t.Errorf("%s by Function.Call: %#v, want %#v", c.src, res, c.want)
		}
		f.Release()
	}
}

// Distinct Lua keys that convert to one Go map key are an error naming
// two of them, the same text whatever the traversal order (before, one
// entry was kept, chosen by Lua's traversal order, which varies between
// states on Lua 5.4).
func TestMapKeysThatCollideInGoAreAnError(t *testing.T) {
	type vec struct{ X, Y float64 }
	check := func(t *testing.T, e *zlua.Env, src string, out any, want string) {
		t.Helper()
		before := reflect.ValueOf(out).Elem().Interface()
		err := e.Eval(src, out)
		if err == nil || err.Error() != "zlua: eval: result #1: "+want {
			t.Errorf("%s into %T: %v, want %q", src, out, err, want)
		}
		if after := reflect.ValueOf(out).Elem().Interface(); !reflect.DeepEqual(before, after) {
			t.Errorf("%s into %T changed the out: %v", src, out, after)
		}
	}
	const one = `key ["1"]: converts to the same Go key as [1]`
	for i := 0; i < 8; i++ { // fresh states: new hash seeds, other orders
		e := newEnv(t)
		check(t, e, `{["1"] = "string key", [1] = "integer key"}`, new(map[int]string), one)
		check(t, e, `{[1] = "integer key", ["1"] = "string key"}`, new(map[string]string), one)
		check(t, e, `{[" 1 "] = "spaced", ["0x1"] = "hex", ["1.0"] = "float"}`, new(map[int]string),
			`key [" 1 "]: converts to the same Go key as ["0x1"]`)
		check(t, e, `{[1.5] = "x", ["1.5"] = "y"}`, new(map[float64]string),
			`key ["1.5"]: converts to the same Go key as [1.5]`)
		check(t, e, `{a = {[1] = 1, ["1"] = 2}}`, new(map[string]map[int]int),
			`element ["a"]: key ["1"]: converts to the same Go key as [1]`)
		must(t, e.SetGlobal("v1", vec{1, 2}))
		must(t, e.SetGlobal("v2", vec{1, 2}))
		check(t, e, `{[v1] = 1, [v2] = 2}`, new(map[any]any), `key [vec]: converts to the same Go key as [vec]`)
		check(t, e, `{[{x = 1, y = 2}] = 1, [{y = 2, x = 1}] = 2}`, new(map[vec]int),
			`key [table]: converts to the same Go key as [table]`)
		must(t, e.SetGlobal("f", func(m map[int]string) {}))
		if err := e.DoString(`f({[1] = "a", ["1"] = "b"})`); err == nil ||
			!strings.HasSuffix(err.Error(), `bad argument #1 to 'f' (`+one+`)`) {
			t.Errorf("parameter: %v", err)
		}
	}
	// Keys that stay apart still convert.
	e := newEnv(t)
	var m map[int]string
	must(t, e.Eval(`{[1] = "a", ["2"] = "b", [3.0] = "c"}`, &m))
	if !reflect.DeepEqual(m, map[int]string{1: "a", 2: "b", 3: "c"}) {
		t.Errorf("distinct keys: %v", m)
	}
}

type foldW struct {
	Name   string
	Damage int `lua:"damage"`
}

type foldDeep struct { // not flat: decoded by the walk, not decodeFlat
	Name string
	Tags []string
}

// Two keys matching one struct field case-insensitively, with no key
// naming it exactly, are an error naming both (before, the field got the
// value traversal order met last). An exact name still wins silently.
func TestStructKeysMatchingOneFieldTwiceAreAnError(t *testing.T) {
	const want = `key ["NAME"]: matches field Name case-insensitively, as ["name"] does`
	// 70 fields: the field bits span two words.
	var wide []reflect.StructField
	for i := 0; i < 70; i++ {
		wide = append(wide, reflect.StructField{Name: "Ab" + strconv.Itoa(i), Type: reflect.TypeFor[int]()})
	}
	wideType := reflect.StructOf(wide)
	for i := 0; i < 8; i++ { // fresh states: other traversal orders
		e := newEnv(t)
		for _, out := range []any{new(foldW), new(foldDeep), new(*foldW)} {
			before := reflect.ValueOf(out).Elem().Interface()
			err := e.Eval(`{name = "lower", NAME = "upper"}`, out)
			if err == nil || err.Error() != "zlua: eval: result #1: "+want {
				t.Errorf("%T: %v, want %q", out, err, want)
			}
			if after := reflect.ValueOf(out).Elem().Interface(); !reflect.DeepEqual(before, after) {
				t.Errorf("%T changed: %v", out, after)
			}
		}
		var w foldW
		must(t, e.Eval(`{Name = "exact", name = "lower", NAME = "upper", damage = 1, DAMAGE = 3, Damage = 2}`, &w))
		if w != (foldW{"exact", 1}) {
			t.Errorf("exact names: %+v", w)
		}
		var d foldDeep
		must(t, e.Eval(`{name = "lower", NAME = "upper", Name = "exact", tags = {"a"}}`, &d))
		if d.Name != "exact" {
			t.Errorf("exact name (walk): %+v", d)
		}
		var nested struct{ Boss foldW }
		if err := e.Eval(`{boss = {name = "a", nAmE = "b"}}`, &nested); err == nil ||
			err.Error() != `zlua: eval: result #1: boss: key ["nAmE"]: matches field Name case-insensitively, as ["name"] does` {
			t.Errorf("nested: %v", err)
		}
		must(t, e.SetGlobal("place", func(w foldW) string { return w.Name }))
		if err := e.DoString(`place({name = "lower", NAME = "upper", damage = 1})`); err == nil ||
			!strings.HasSuffix(err.Error(), "bad argument #1 to 'place' ("+want+")") {
			t.Errorf("parameter: %v", err)
		}
		wv := reflect.New(wideType)
		if err := e.Eval(`{ab69 = 1, AB69 = 2, ab3 = 3}`, wv.Interface()); err == nil ||
			err.Error() != `zlua: eval: result #1: key ["AB69"]: matches field Ab69 case-insensitively, as ["ab69"] does` {
			t.Errorf("70 fields: %v", err)
		}
		must(t, e.Eval(`{ab69 = 1, AB69 = 2, Ab69 = 7}`, wv.Interface()))
		if got := wv.Elem().Field(69).Int(); got != 7 {
			t.Errorf("70 fields, exact: %d", got)
		}
	}
}

// wideInt is non-blittable (the string): its integer fields are set by the
// Go field setter; Sample's are served in C.
type wideInt struct {
	I64  int64
	I    int
	I32  int32
	Name string
}

// On LuaJIT every int64 from 2^63 − 512 up (MaxInt64, MaxInt: common "no
// limit" sentinels) is pushed as the float 2^63, which reads back as
// MaxInt64 into int and int64 on every path, as 2^64 reads as MaxUint64;
// the narrower kinds call it out of range. Before, it never came back
// ("number has no integer representation"). Lua 5.4 pushes those as
// integers and keeps refusing a float 2^63, as luaL_checkinteger does.
func TestMaxInt64ComesBack(t *testing.T) {
	e := newEnv(t)
	jit := !strings.HasPrefix(zlua.Backend, "Lua 5.4")
	for _, v := range []int64{math.MaxInt64, math.MaxInt64 - 511} {
		must(t, e.SetGlobal("x", v))
		if got := global[int64](t, e, "x"); got != math.MaxInt64 && !(got == v && !jit) {
			t.Errorf("Global after SetGlobal(%d) = %d", v, got)
		}
		if got := global[int](t, e, "x"); got != math.MaxInt && !(int64(got) == v && !jit) {
			t.Errorf("Global into int after SetGlobal(%d) = %d", v, got)
		}
	}
	must(t, e.SetGlobal("limit", math.MaxInt))
	must(t, e.SetGlobal("setLimit", func(n int) int { return n }))                 // a fast plan
	must(t, e.SetGlobal("setLimit64", func(n int64, s string) int64 { return n })) // reflective
	must(t, e.SetGlobal("narrow", func(n int32) {}))
	must(t, e.SetGlobal("w", &wideInt{Name: "w"}))
	must(t, e.SetGlobal("s", &Sample{}))
	run(t, e, `assert(setLimit(limit) == limit and setLimit64(limit, "") == limit)
		w.I64 = limit; w.I = limit; s.I64 = limit; s.I = limit
		assert(w.I64 == limit and s.I == limit)
		local ok, err = pcall(narrow, limit)
		assert(not ok, "int32 took MaxInt64")
		ok, err = pcall(function() w.I32 = limit end)
		assert(not ok, "int32 field took MaxInt64")
		ok, err = pcall(function() s.I32 = limit end)
		assert(not ok, "int32 field (C) took MaxInt64")`)
	var back struct{ I64 int64 }
	must(t, e.Eval(`{i64 = limit}`, &back))
	run(t, e, `function id(x) return x end`)
	var id func(int64) (int64, error)
	must(t, e.GetFunction("id", &id))
	r, err := id(math.MaxInt64)
	must(t, err)
	if back.I64 != math.MaxInt64 || r != math.MaxInt64 {
		t.Errorf("decoded field %d, typed-func result %d", back.I64, r)
	}

	// A float 2^63 from a script: MaxInt64 on LuaJIT, refused on 5.4.
	var i64 int64
	err = e.Eval(`2^63`, &i64)
	if jit && (err != nil || i64 != math.MaxInt64) {
		t.Errorf("LuaJIT 2^63 into int64: %d, %v", i64, err)
	}
	if !jit && (err == nil || !strings.HasSuffix(err.Error(), "number has no integer representation")) {
		t.Errorf("Lua 5.4 2^63 into int64: %d, %v", i64, err)
	}
	for _, c := range []struct{ chunk, want string }{
		{`narrow(2^63)`, "number out of range for int32"},
		{`w.I32 = 2^63`, "bad value for field 'I32' of wideInt (number out of range for int32)"},
		{`s.I32 = 2^63`, "bad value for field 'I32' of Sample (number out of range for int32)"},
		{`setLimit(2^64)`, "number has no integer representation"},
		{`setLimit(-2^63 * 2)`, "number has no integer representation"},
	} {
		if !jit && c.chunk != `setLimit(2^64)` && c.chunk != `setLimit(-2^63 * 2)` {
			c.want = "number has no integer representation"
		}
		if err := e.DoString(c.chunk); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.chunk, err, c.want)
		}
	}
}

// −0.0 reaching any stays a float64 with its sign on both backends. On
// LuaJIT, whose integral numbers below 2^53 become int64, it used to
// become int64(0): 1/anyv(-0.0) was inf, not -inf.
func TestNegativeZeroThroughAnyKeepsItsSign(t *testing.T) {
	e := newEnv(t)
	negZero := func(x any) bool {
		f, ok := x.(float64)
		return ok && f == 0 && math.Signbit(f)
	}
	must(t, e.SetGlobal("anyv", func(v any) any { return v }))
	var got any
	must(t, e.SetGlobal("keep", func(v any) { got = v }))
	run(t, e, `assert(1/anyv(-0.0) == -1/0, "sign lost in a Go any parameter and result")
		z = -0.0; keep(z)`)
	if !negZero(got) {
		t.Errorf("parameter: %T %v", got, got)
	}
	if g := global[any](t, e, "z"); !negZero(g) {
		t.Errorf("Global: %T %v", g, g)
	}
	var ev, seq any
	must(t, e.Eval(`-0.0, {-0.0}`, &ev, &seq))
	if s, ok := seq.([]any); !negZero(ev) || !ok || len(s) != 1 || !negZero(s[0]) {
		t.Errorf("Eval: %T %v, %#v", ev, ev, seq)
	}
	run(t, e, `function id(...) return ... end`)
	var id *zlua.Function
	must(t, e.GetFunction("id", &id))
	res, err := id.Call(math.Copysign(0, -1))
	if err != nil || !negZero(res[0]) {
		t.Errorf("Function.Call: %#v, %v", res, err)
	}
	var idA func(any) any
	must(t, e.GetFunction("id", &idA))
	if r := idA(math.Copysign(0, -1)); !negZero(r) {
		t.Errorf("typed func: %T %v", r, r)
	}
	// +0.0 keeps its documented natural form: int64 on LuaJIT.
	var pz any
	must(t, e.Eval(`0.0`, &pz))
	if _, isInt := pz.(int64); isInt != !strings.HasPrefix(zlua.Backend, "Lua 5.4") {
		t.Errorf("+0.0: %T", pz)
	}
}

// A NaN reaching a string (or []byte) parameter is spelled as this
// backend's tostring spells it: Lua 5.4 prints the sign bit ("-nan" for
// 0/0 on x86-64, "nan" for -(0/0)), LuaJIT says "nan" for both. Before,
// 5.4 gave "nan" for both.
func TestNaNToStringFollowsTostring(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("str", func(s string) string { return s }))
	must(t, e.SetGlobal("bytes", func(b []byte) string { return string(b) }))
	run(t, e, `for _, x in ipairs{0/0, -(0/0), math.huge - math.huge} do
			assert(str(x) == tostring(x), str(x) .. " vs " .. tostring(x))
			assert(bytes(x) == tostring(x), bytes(x) .. " vs " .. tostring(x))
		end`)
	var signed, plain string
	must(t, e.Eval(`0/0, -(0/0)`, &signed, &plain))
	var want1, want2 string
	must(t, e.Eval(`tostring(0/0), tostring(-(0/0))`, &want1, &want2))
	if signed != want1 || plain != want2 {
		t.Errorf("Eval: %q %q, tostring %q %q", signed, plain, want1, want2)
	}
}

type ptrFields struct {
	C  *string
	PI *int
	PS *[]int
	PM *map[string]int
}

type selfPtr *selfPtr

type pcount int

func (c *pcount) Inc() { *c++ }

type pnames []string

type ptrObj struct{ N int }

// Pointers to non-struct types are decoded as the package doc promises:
// nil is a nil pointer, anything else a new element read with the same
// rules, whose refusals name what the element takes. A ByObj userdata of
// the exact pointer type is still that pointer. Before, every such value
// was refused with a text that contradicted itself ("int expected, got
// number": the star was dropped). A []byte given an object expects a
// string, as for any other non-string.
func TestPointersToNonStructsAreDecoded(t *testing.T) {
	e := newEnv(t)
	var s ptrFields
	must(t, e.Eval(`{c = "x", pi = 3, ps = {1, 2}, pm = {a = 1}}`, &s))
	if s.C == nil || *s.C != "x" || s.PI == nil || *s.PI != 3 || s.PS == nil || !reflect.DeepEqual(*s.PS, []int{1, 2}) ||
		s.PM == nil || (*s.PM)["a"] != 1 {
		t.Errorf("fields: %+v", s)
	}
	must(t, e.Eval(`{pi = 3}`, &s))
	if s.C != nil || s.PS != nil || *s.PI != 3 {
		t.Errorf("fields without a key stay nil: %+v", s)
	}
	var pi *int
	must(t, e.Eval(`7`, &pi))
	if pi == nil || *pi != 7 {
		t.Errorf("Eval into *int: %v", pi)
	}
	prev := pi
	if err := e.Eval(`"x"`, &pi); err == nil || err.Error() != "zlua: eval: result #1: number expected, got string" || pi != prev {
		t.Errorf("Eval of a string into *int: %v (out %v, was %v)", err, pi, prev)
	}
	must(t, e.Eval(`nil`, &pi))
	if pi != nil {
		t.Errorf("nil into *int: %v", pi)
	}
	var ppi **int
	var pa *any
	must(t, e.Eval(`5, {1, "a"}`, &ppi, &pa))
	if ppi == nil || *ppi == nil || **ppi != 5 || pa == nil || !reflect.DeepEqual(*pa, []any{int64(1), "a"}) {
		t.Errorf("**int, *any: %v %v", ppi, pa)
	}
	var m map[string]*int
	must(t, e.Eval(`{a = 1}`, &m))
	if m["a"] == nil || *m["a"] != 1 {
		t.Errorf("map element: %v", m)
	}
	var mk map[*int]int
	must(t, e.Eval(`{[1] = 2}`, &mk))
	for k, v := range mk {
		if *k != 1 || v != 2 || len(mk) != 1 {
			t.Errorf("map key: %v", mk)
		}
	}
	var deep selfPtr
	if err := e.Eval(`1`, &deep); err == nil || !strings.Contains(err.Error(), "value nesting too deep") {
		t.Errorf("recursive pointer type: %v", err)
	}
	x := new(int)
	must(t, e.SetGlobal("px", x))
	must(t, e.SetGlobal("obj", &ptrObj{}))
	must(t, e.SetGlobal("same", func(p *int) bool { return p == x }))
	must(t, e.SetGlobal("deref", func(p *int) int {
		if p == nil {
			return -1
		}
		return *p
	}))
	must(t, e.SetGlobal("nested", func(p *[][]int) int { return len(*p) + len((*p)[1]) }))
	must(t, e.SetGlobal("bytes", func(b []byte) {}))
	run(t, e, `assert(deref(5) == 5 and deref("6") == 6 and deref(nil) == -1 and deref() == -1)
		assert(same(px) and not same(5))
		assert(nested({{1}, {2, 3}}) == 4)`)
	for _, c := range []struct{ chunk, want string }{
		{`deref("x")`, "bad argument #1 to 'deref' (number expected, got string)"},
		{`deref(1.5)`, "bad argument #1 to 'deref' (number has no integer representation)"},
		{`deref({})`, "bad argument #1 to 'deref' (number expected, got table)"},
		{`deref(obj)`, "bad argument #1 to 'deref' (*int expected, got ptrObj)"},
		{`nested(5)`, "bad argument #1 to 'nested' (table expected, got number)"},
		{`nested({{1}, {"a"}})`, "bad argument #1 to 'nested' (element [2][1]: number expected, got string)"},
		{`bytes(obj)`, "bad argument #1 to 'bytes' (string expected, got ptrObj)"},
	} {
		if err := e.DoString(c.chunk); err == nil || !strings.HasSuffix(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.chunk, err, c.want)
		}
	}
	if err := e.Eval(`{c = {}}`, &s); err == nil || err.Error() != "zlua: eval: result #1: c: string expected, got table" {
		t.Errorf("field: %v", err)
	}
	// Objects keep their names: a pointer to a named type reads as it.
	var c pcount
	ns := pnames{"a"}
	must(t, e.SetGlobal("c", &c))
	must(t, e.SetGlobal("ns", zlua.ByRef(&ns)))
	run(t, e, `c:Inc(); assert(tostring(c):find("^pcount"), tostring(c))
		assert(not pcall(c.Inc))
		local ok, err = pcall(function() ns[3] = "x" end)
		assert(err:find("out of range for pnames of length 1", 1, true), err)`)
	if err := e.DoString(`c.Inc()`); err == nil || !strings.Contains(err.Error(), "'pcount:Inc'") {
		t.Errorf("method name: %v", err)
	}
}

type sliceHolder struct{ S []int }

// A ByRef map keyed by any, indexed from Lua with a key whose Go value
// cannot be a map key (a table becomes a Go map or slice; a struct copy
// holding a slice), raises a Lua error as decoding such a table does when
// it is written, and reads nil (as a table lacking the key).
// Before, MapIndex or SetMapIndex panicked inside the Go function
// ("hash of unhashable type"), counted in Stats.Panics.
func TestByRefMapRefusesUnhashableKeys(t *testing.T) {
	e := newEnv(t)
	m := map[any]any{"k": int64(1)}
	must(t, e.SetGlobal("m", zlua.ByRef(m)))
	must(t, e.SetGlobal("hs", sliceHolder{S: []int{1}}))
	const prefix = "bad key for map[interface {}]interface {} ("
	for _, c := range []struct{ chunk, want string }{
		{`m[{}] = 1`, "a table key cannot be a Go map key)"},
		{`m[{1, 2}] = 1`, "a table key cannot be a Go map key)"},
		{`m[{}] = nil`, "a table key cannot be a Go map key)"},
		{`m[hs] = 1`, "a sliceHolder key cannot be a Go map key)"},
	} {
		err := e.DoString(c.chunk)
		if err == nil || !strings.HasSuffix(err.Error(), prefix+c.want) {
			t.Errorf("%s: %v, want suffix %q", c.chunk, err, prefix+c.want)
		}
	}
	run(t, e, `m.t = {1}; m[2] = "two"; assert(m.k == 1 and m[2] == "two")
		assert(m[{}] == nil and m[hs] == nil) -- read: a key the map cannot hold`)
	if len(m) != 3 {
		t.Errorf("map: %v", m)
	}
	if p := e.Stats().Panics; p != 0 {
		t.Errorf("Stats.Panics = %d", p)
	}
}
