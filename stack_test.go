package zlua

import (
	"testing"

	"github.com/zlua-go/zlua/cgo"
)

type stackObj struct{ N int }

func (*stackObj) M() {}

// TestEveryMethodKeepsTheStackBalanced is the stack guard: each Env method,
// on its success and its error paths, at top level and inside a Go
// function called by Lua, leaves the Lua stack as it found it.
func TestEveryMethodKeepsTheStackBalanced(t *testing.T) {
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	guard := func(name string, f func()) {
		t.Helper()
		before := e.stackTop()
		f()
		if after := e.stackTop(); after != before {
			t.Errorf("%s: stack top %d -> %d", name, before, after)
		}
	}
	var sink any
	var n int
	var lf func(int, int) (int, error)
	var lfh *Function
	if err := e.DoString(`function lf(a, b) if b == -1 then error("neg") end return a, "s", {} end`); err != nil {
		t.Fatal(err)
	}
	if err := e.GetFunction("lf", &lfh); err != nil {
		t.Fatal(err)
	}
	calls := func() {
		guard("DoString", func() { _ = e.DoString(`x = 1`) })
		guard("DoString error", func() { _ = e.DoString(`error({})`) })
		guard("DoString syntax", func() { _ = e.DoString(`x = = 1`) })
		guard("DoStringArgs", func() { _ = e.DoStringArgs(`local a = ...`, 1, "two", []int{3}) })
		guard("DoStringArgs push error", func() { _ = e.DoStringArgs(`local a = ...`, complex(1, 1)) })
		guard("DoFile", func() { _ = e.DoFile("testdata/hello.lua") })
		guard("DoFile missing", func() { _ = e.DoFile("testdata/missing.lua") })
		guard("SetGlobal", func() { _ = e.SetGlobal("t", map[string]any{"f": func() {}}) })
		guard("SetGlobal push error", func() { _ = e.SetGlobal("t2", complex(1, 1)) })
		guard("SetGlobal object", func() { _ = e.SetGlobal("obj", &stackObj{}) })
		guard("SetGlobal view", func() { _ = e.SetGlobal("objv", AsView[interface{ M() }](&stackObj{})) })
		guard("Register", func() { _ = e.Register("a.b", &stackObj{}) })
		guard("Register error", func() { _ = e.Register("a.b.c", 1) })
		guard("Global object", func() { var o *stackObj; _ = e.Global("obj", &o) })
		guard("Global object error", func() { var o *stackObj; _ = e.Global("io", &o) })
		guard("Global", func() { _ = e.Global("t", &sink) })
		guard("Global nested", func() { _ = e.Global("x", &n) })
		guard("Global conversion error", func() { _ = e.Global("t", &n) })
		guard("Pump", func() {
			if e.g.Depth() == 0 {
				_ = e.Pump()
			}
		})
		guard("GetFunction", func() { _ = e.GetFunction("lf", &lf) })
		guard("GetFunction error", func() { _ = e.GetFunction("x", &lf) })
		guard("typed call", func() { _, _ = lf(1, 2) })
		guard("typed call error", func() { _, _ = lf(1, -1) })
		guard("Function.Call", func() { _, _ = lfh.Call("a", []int{1}) })
		guard("Function.Call error", func() { _, _ = lfh.Call(-1, -1) })
		guard("Stats", func() { _ = e.Stats() })
		guard("Eval", func() { _ = e.Eval(`1, 2, {}`, &n, &sink) })
		guard("Eval statements", func() { _ = e.Eval(`local a = 1 return a`, &n) })
		guard("Eval error", func() { _ = e.Eval(`error("x")`, &n) })
		guard("Eval conversion error", func() { _ = e.Eval(`"s"`, &n) })
		guard("LoadString", func() { _, _ = e.LoadString("c", `return 1`) })
		guard("LoadString error", func() { _, _ = e.LoadString("c", `x = = 1`) })
		guard("Global path", func() { _ = e.Global("tp.a.b", &sink) })
		guard("Global path error", func() { _ = e.Global("tp.nope.b", &sink) })
		guard("SetGlobal path", func() { _ = e.SetGlobal("tp.a.c", 1) })
		guard("SetGlobal path error", func() { _ = e.SetGlobal("tp.nope.c", 1) })
		guard("GetFunction path", func() { _ = e.GetFunction("tp.f", &lf) })
		guard("Preload", func() { _ = e.Preload("m", map[string]any{"f": func() {}}) })
		var tb *Table
		guard("NewTable", func() { tb, _ = e.NewTable() })
		guard("Globals", func() { _, _ = e.Globals() })
		guard("Table.Set", func() { _ = tb.Set("k", []int{1}) })
		guard("Table.Set error", func() { _ = tb.Set(nil, 1) })
		guard("Table.Get", func() { _ = tb.Get("k", &sink) })
		guard("Table.Get error", func() { _ = tb.Get("k", &n) })
		guard("Table.Len", func() { _, _ = tb.Len() })
		guard("Table.ForEach", func() { _ = tb.ForEach(func(k, v any) error { return nil }) })
		guard("Table.Method error", func() { _ = tb.Method("k", &lf) })
		guard("Table.Method", func() { _ = tb.Set("m", func() {}); _ = tb.Method("m", &lf) })
	}
	if err := e.DoString(`tp = {a = {b = 1}, f = function() end}`); err != nil {
		t.Fatal(err)
	}
	calls()
	if err := e.SetGlobal("nested", func() { calls() }); err != nil {
		t.Fatal(err)
	}
	if err := e.DoString(`nested(); coroutine.wrap(nested)()`); err != nil {
		t.Fatal(err)
	}
	if err := e.DoString(`setmetatable(_G, {__newindex = function() error("locked") end})`); err != nil {
		t.Fatal(err)
	}
	guard("SetGlobal metamethod error", func() {
		if err := e.SetGlobal("fresh", 1); err == nil {
			t.Error("__newindex error not reported")
		}
	})
}

// TestOwnUserdataIsRecognised checks zlua's marker: the sentinel of a Go
// function is recognised as zlua's, a file handle and a plain table are not.
func TestOwnUserdataIsRecognised(t *testing.T) {
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.SetGlobal("gf", func() {}); err != nil {
		t.Fatal(err)
	}
	if err := e.DoString(`sentinel = debug.getupvalue(gf, 1) and select(2, debug.getupvalue(gf, 1)); file = io.stdout; tbl = {}`); err != nil {
		t.Fatal(err)
	}
	kind := func(env *Env, name string) int {
		k := -1
		err := env.protect(func(th cgo.Thread) int {
			env.g.S.ProgReset()
			env.g.S.PutStr(name)
			if err := env.g.S.Commit(); err != nil {
				return cgo.ErrMem
			}
			st, _ := env.g.S.Run(th, cgo.OpGetGlobal, 0, 1, 0)
			if st == cgo.OK {
				k = env.g.S.Own(th, -1)
			}
			return st
		})
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	if k := kind(e, "sentinel"); k != cgo.KindFunc {
		t.Errorf("sentinel kind = %d, want KindFunc", k)
	}
	if k := kind(e, "file"); k != 0 {
		t.Errorf("io.stdout recognised as zlua's (kind %d)", k)
	}
	if k := kind(e, "tbl"); k != 0 {
		t.Errorf("a table recognised as zlua's (kind %d)", k)
	}
	if err := e.DoString(`local ok = pcall(setmetatable, sentinel, {}); assert(not ok)
		assert(getmetatable(sentinel) == "zlua: protected metatable")`); err != nil {
		t.Errorf("sentinel metatable is not protected: %v", err)
	}
}
