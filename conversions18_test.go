package zlua_test

import (
	"reflect"
	"testing"
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
