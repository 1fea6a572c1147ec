package zlua_test

import (
	"errors"
	"testing"

	"github.com/zlua-go/zlua"
)

type pushInv struct {
	Items []any
	Meta  map[string]any
	Tags  map[int]any `lua:"tags"`
}

// A value that cannot be pushed, deep inside a bigger one, is named by its
// path as decoding names a bad element (probe Z1-F11): a host pushing a
// big state snapshot need not bisect it.
func TestPushErrorsNameThePathInsideTheValue(t *testing.T) {
	e, other := newEnv(t), newEnv(t)
	var foreign *zlua.Table
	must(t, other.Eval(`{}`, &foreign))
	must(t, e.SetGlobal("ret", func() pushInv { return pushInv{Meta: map[string]any{"bad": complex(1, 1)}} }))
	must(t, e.SetGlobal("retSeq", func() []any { return []any{1, map[string]any{"my key": []any{complex(1, 0)}}} }))
	for _, c := range []struct {
		name  string
		value any
		want  string
	}{
		{"nested", map[string]any{"x": []any{1, complex(1, 2)}}, `zlua: set global "g": x[2]: cannot push Go value of type complex128`},
		{"foreign", map[string]any{"t": foreign}, `zlua: set global "g": t: table handle of another Env`},
		{"AsTable", zlua.AsTable(pushInv{Items: []any{1, 2, complex(1, 1)}}), `zlua: set global "g": Items[3]: cannot push Go value of type complex128`},
		{"AsTable int key", zlua.AsTable(pushInv{Tags: map[int]any{7: complex(1, 1)}}), `zlua: set global "g": tags[7]: cannot push Go value of type complex128`},
		{"deep", []any{[]any{[]any{map[string]any{"k": complex(0, 1)}}}}, `zlua: set global "g": element [1][1][1].k: cannot push Go value of type complex128`},
		{"quoted key", map[string][]complex64{"a b": {1}}, `zlua: set global "g": element ["a b"][1]: cannot push Go value of type complex64`},
		{"typed slice", [][]any{{}, {true, complex(0, 0)}}, `zlua: set global "g": element [2][2]: cannot push Go value of type complex128`},
		{"bool key", map[bool]any{true: complex(0, 0)}, `zlua: set global "g": element [true]: cannot push Go value of type complex128`},
	} {
		err := e.SetGlobal("g", c.value)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.name, err, c.want)
		}
		if c.name == "nested" && !errors.Is(err, zlua.ErrCannotPush) {
			t.Errorf("%s: errors.Is(ErrCannotPush) lost", c.name)
		}
	}
	for chunk, want := range map[string]string{
		`local v = ret(); local m = v.Meta`: `(dostring):1: field 'Meta' of pushInv: bad: cannot push Go value of type complex128`,
		`retSeq()`:                          `(dostring):1: result #1 of 'retSeq': element [2]["my key"][1]: cannot push Go value of type complex128`,
	} {
		if err := e.DoString(chunk); err == nil || err.Error() != want {
			t.Errorf("%s:\n got %v\nwant %s", chunk, err, want)
		}
	}
	// the whole value's errors carry no path: nesting too deep
	deep := []any{}
	for range 300 {
		deep = []any{deep}
	}
	if err := e.SetGlobal("g", deep); err == nil || err.Error() != `zlua: set global "g": value nesting too deep (more than 64 levels: a cycle, or data nested that deep)` {
		t.Errorf("too deep: %v", err)
	}
}
