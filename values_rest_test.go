package zlua_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// A typed func's last Values result takes every result from its position
// on, for GetFunction, context funcs, Table.Method, BindResume and Eval
// (probe Z1-F6: Values bound but every call failed).
func TestValuesResultTakesTheRest(t *testing.T) {
	e := newEnv(t)
	run(t, e, `
		function loot() return "sword", 3, nil, true end
		function none() end
		shop = {}
		function shop:items(n) return self == shop, n, n + 1 end
		function gen() coroutine.yield(1, "a", 2.5); return nil, nil end`)
	want := zlua.Values{"sword", int64(3), nil, true}
	check := func(what string, got zlua.Values, err error, want zlua.Values) {
		t.Helper()
		if err != nil || !reflect.DeepEqual(got, want) || (want == nil) != (got == nil) {
			t.Errorf("%s: %#v, %v; want %#v", what, got, err, want)
		}
	}
	var loot func() (zlua.Values, error)
	must(t, e.GetFunction("loot", &loot))
	v, err := loot()
	check("GetFunction", v, err, want)

	var lootCtx func(context.Context) (zlua.Values, error)
	must(t, e.GetFunction("loot", &lootCtx))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	v, err = lootCtx(ctx)
	check("context func", v, err, want)

	var first func() (string, zlua.Values, error)
	must(t, e.GetFunction("loot", &first))
	s, v, err := first()
	if s != "sword" {
		t.Errorf("typed first result: %q", s)
	}
	check("typed then rest", v, err, want[1:])

	var none func() (zlua.Values, error)
	must(t, e.GetFunction("none", &none))
	v, err = none()
	check("no results", v, err, nil)

	var noErr func() zlua.Values
	must(t, e.GetFunction("loot", &noErr))
	check("without error result", noErr(), nil, want)

	var shop *zlua.Table
	must(t, e.Global("shop", &shop))
	var items func(int) (zlua.Values, error)
	must(t, shop.Method("items", &items))
	v, err = items(4)
	check("Table.Method", v, err, zlua.Values{true, int64(4), int64(5)})

	var gen *zlua.Function
	must(t, e.GetFunction("gen", &gen))
	th, err := e.NewThread(gen)
	must(t, err)
	var step func() (zlua.Values, error)
	must(t, th.BindResume(&step))
	v, err = step()
	check("BindResume yield", v, err, zlua.Values{int64(1), "a", 2.5})
	v, err = step()
	check("BindResume return", v, err, zlua.Values{nil, nil})

	var out zlua.Values
	must(t, e.Eval(`loot()`, &out))
	check("Eval", out, nil, want)
	var head string
	must(t, e.Eval(`loot()`, &head, &out))
	check("Eval typed then rest", out, nil, want[1:])
	out = zlua.Values{"stale"}
	must(t, e.Eval(`none()`, &out))
	check("Eval no results", out, nil, nil)

	// a Values that is not last is one result, an ordinary []any
	var mid func() (zlua.Values, string, error)
	must(t, e.GetFunction("loot", &mid))
	if _, _, err := mid(); err == nil || !strings.Contains(err.Error(), `result #1: table expected, got string`) {
		t.Errorf("Values not last: %v", err)
	}
}

// The rest's handles belong to the caller, and a result that has no Go
// form fails naming its position, releasing the handles made before it.
func TestValuesResultHandlesAndErrors(t *testing.T) {
	e := newEnv(t)
	run(t, e, `
		function handles() return {1}, print, coroutine.create(print) end
		local function f() return f end
		light = debug.upvalueid(f, 1)
		function bad() return print, coroutine.create(print), light end`)
	var handles, bad func() (zlua.Values, error)
	must(t, e.GetFunction("handles", &handles))
	must(t, e.GetFunction("bad", &bad))
	base := e.Stats().LiveRefs
	v, err := handles()
	must(t, err)
	if _, ok := v[0].([]any); !ok {
		t.Errorf("sequence: %T, want []any", v[0])
	}
	fn, ok1 := v[1].(*zlua.Function)
	th, ok2 := v[2].(*zlua.Thread)
	if !ok1 || !ok2 {
		t.Fatalf("handles: %T %T", v[1], v[2])
	}
	if got := e.Stats().LiveRefs - base; got != 2 {
		t.Errorf("refs held by the rest: %d, want 2", got)
	}
	fn.Release()
	th.Release()
	must(t, e.Pump())
	v, err = bad()
	if v != nil || err == nil || err.Error() != `zlua: call "bad": result #3: cannot convert a light userdata to a Go value` {
		t.Errorf("light userdata in the rest: %#v, %v", v, err)
	}
	must(t, e.Pump())
	if got := e.Stats().LiveRefs - base; got != 0 {
		t.Errorf("refs left by a failed rest: %d, want 0", got)
	}
	var out zlua.Values
	if err := e.Eval(`1, light`, &out); err == nil || err.Error() != `zlua: eval: result #2: cannot convert a light userdata to a Go value` {
		t.Errorf("Eval: %v", err)
	}
}
