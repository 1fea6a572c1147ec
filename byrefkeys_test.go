package zlua_test

import (
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// TestByRefMapsReadNilForKeysTheyCannotHold: a map pushed by reference is
// indexed like a table: a key of another Lua type than the Go key's kind,
// or one that does not convert, reads nil (before: "1" read m[1], and
// 1.5, "x" or true raised "bad key"), so `if m[k] then` works for any k;
// writing such a key is an error naming both types.
func TestByRefMapsReadNilForKeysTheyCannotHold(t *testing.T) {
	e := newEnv(t)
	scores := map[int]int{1: 10}
	names := map[string]int{"1": 5}
	flags := map[bool]string{true: "yes"}
	must(t, e.SetGlobal("scores", zlua.ByRef(scores)))
	must(t, e.SetGlobal("names", zlua.ByRef(names)))
	must(t, e.SetGlobal("flags", zlua.ByRef(flags)))
	run(t, e, `
		assert(scores[1] == 10 and scores[1.0] == 10)
		assert(scores["1"] == nil and scores[1.5] == nil and scores.x == nil and scores[true] == nil and scores[{}] == nil)
		assert(names["1"] == 5 and names[1] == nil and names[false] == nil)
		assert(flags[true] == "yes" and flags[1] == nil and flags["true"] == nil)
		scores[2.0] = 20; names.two = 2; flags[false] = "no"`)
	if scores[2] != 20 || names["two"] != 2 || flags[false] != "no" {
		t.Errorf("writes: %v %v %v", scores, names, flags)
	}
	for chunk, want := range map[string]string{
		`scores["1"] = 5`: "bad key for map[int]int (number expected, got string)",
		`scores[1.5] = 5`: "bad key for map[int]int (number has no integer representation)",
		`names[1] = 5`:    "bad key for map[string]int (string expected, got number)",
		`flags[0] = "z"`:  "bad key for map[bool]string (boolean expected, got number)",
	} {
		if err := e.DoString(chunk); err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("%s: %v, want suffix %q", chunk, err, want)
		}
	}
	if len(scores) != 2 || len(names) != 2 || len(flags) != 2 {
		t.Errorf("a refused write changed a map: %v %v %v", scores, names, flags)
	}
}

// TestByRefAnyMapsHoldKeysAsTablesDo: a map[any] pushed by reference
// takes an integral float as the integer key, as a Lua table does (1.0
// reads and writes key int64(1) on both backends; before, Lua 5.4 missed
// it), and refuses what a later read could never find: NaN (Lua's "table
// index is NaN") and functions or coroutines, which reach Go as a new
// handle each time (before, every write added an entry and a live ref).
func TestByRefAnyMapsHoldKeysAsTablesDo(t *testing.T) {
	e := newEnv(t)
	m := map[any]int{int64(1): 10}
	must(t, e.SetGlobal("m", zlua.ByRef(m)))
	refs := e.Stats().LiveRefs
	run(t, e, `assert(m[1.0] == 10 and m[1] == 10); m[2.0] = 20; assert(m[2] == 20)
		local f, co = print, coroutine.create(print)
		assert(m[0/0] == nil and m[f] == nil and m[co] == nil)`)
	if m[int64(2)] != 20 {
		t.Errorf("m[2.0] = 20 stored %v", m)
	}
	for chunk, want := range map[string]string{
		`m[0/0] = 1`:                     "bad key for map[interface {}]int (table index is NaN)",
		`m[print] = 1`:                   "bad key for map[interface {}]int (a function key cannot be a Go map key)",
		`m[coroutine.create(print)] = 1`: "bad key for map[interface {}]int (a thread key cannot be a Go map key)",
	} {
		for i := 0; i < 3; i++ {
			if err := e.DoString(chunk); err == nil || !strings.HasSuffix(err.Error(), want) {
				t.Errorf("%s: %v, want suffix %q", chunk, err, want)
			}
		}
	}
	if len(m) != 2 {
		t.Errorf("refused writes changed the map: %v", m)
	}
	must(t, e.Pump())
	if got := e.Stats().LiveRefs; got != refs {
		t.Errorf("LiveRefs %d after the refused keys, %d before", got, refs)
	}
}

// TestByRefSlicesIndexOnlyByNumbers: a slice pushed by reference is
// indexed as a table's array part: s["1"] is another key than s[1] (before,
// numeric strings, "0x1" and " 2 " included, read and wrote elements), so
// it reads nil, as does a fraction; writing either is an error.
func TestByRefSlicesIndexOnlyByNumbers(t *testing.T) {
	e := newEnv(t)
	s := []string{"a", "b"}
	must(t, e.SetGlobal("s", zlua.ByRef(s)))
	run(t, e, `
		assert(s[1] == "a" and s[2.0] == "b")
		assert(s["1"] == nil and s["0x1"] == nil and s[" 2 "] == nil and s[1.5] == nil and s.x == nil and s[true] == nil)
		local n = 0 for i, v in ipairs(s) do n = n + 1 end assert(n == 2)`)
	for chunk, want := range map[string]string{
		`s["1"] = "z"`:  "bad index for []string (number expected, got string)",
		`s[true] = "z"`: "bad index for []string (number expected, got boolean)",
		`s[1.5] = "z"`:  "bad index for []string (number has no integer representation)",
	} {
		if err := e.DoString(chunk); err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("%s: %v, want suffix %q", chunk, err, want)
		}
	}
	if s[0] != "a" || s[1] != "b" {
		t.Errorf("a refused write changed the slice: %q", s)
	}
}

// nanKey is a struct map key with a float field.
type nanKey struct {
	F float64
	A any
}

// A NaN inside a struct key is refused as a NaN key is: Go's map would
// add a new entry at every write, which no read or delete finds again
// (probe V F8: 100 writes made 100 entries, and 100 deletes left them).
func TestByRefMapsRefuseKeysHoldingNaN(t *testing.T) {
	e := newEnv(t)
	m := map[nanKey]int{}
	must(t, e.SetGlobal("m", zlua.ByRef(m)))
	for _, key := range []string{`{F = 0/0}`, `{F = 1, A = 0/0}`} {
		err := e.DoString(`m[` + key + `] = 1`)
		if err == nil || !strings.Contains(err.Error(), "table index is NaN") {
			t.Errorf("m[%s] = 1: %v", key, err)
		}
		var v any
		must(t, e.Eval(`m[`+key+`]`, &v))
		if v != nil {
			t.Errorf("m[%s] reads %v", key, v)
		}
	}
	run(t, e, `m[{F = 1.5}] = 2 assert(m[{F = 1.5}] == 2)`)
	if len(m) != 1 {
		t.Errorf("the map holds %d entries, want 1", len(m))
	}
}
