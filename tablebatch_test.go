package zlua_test

import (
	"fmt"
	"math"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// Outside probe C2-F3: tables decode in runs read by C in one crossing
// (callbackgate/readseq.go), and Table.Get and Set of scalars are one
// crossing (cgo.State.TableOp). These tests pin the results and errors
// the element-by-element reads gave, on both backends, and the number of
// crossings.

// crossings returns the fewest cgo calls f made in three runs (another
// goroutine's calls only add).
func crossings(f func()) int64 {
	best := int64(math.MaxInt64)
	for range 3 {
		n := runtime.NumCgoCall()
		f()
		best = min(best, runtime.NumCgoCall()-n)
	}
	return best
}

func TestTableDecodesCrossOncePerRun(t *testing.T) {
	e := newEnv(t)
	run(t, e, `S = {} for i = 1, 1000 do S[i] = i end
		M = {} for i = 1, 1000 do M["k" .. i] = i end`)
	var s []int
	var m map[string]int
	var tb *zlua.Table
	must(t, e.Global("S", &tb))
	defer tb.Release()
	var v int
	var x any
	for _, c := range []struct {
		name string
		max  int64 // each element crossed four times or more before
		f    func() error
	}{
		{"Global []int", 20, func() error { return e.Global("S", &s) }},
		{"Global map[string]int", 32, func() error { return e.Global("M", &m) }},
		{"ForEach", 30, func() error { return tb.ForEach(func(k, v any) error { return nil }) }},
		{"Global any", 20, func() error { return e.Global("S", &x) }},
		{"Global any of a map", 32, func() error { return e.Global("M", &x) }},
		{"Get", 1, func() error { return tb.Get(5, &v) }},
		{"Set", 1, func() error { return tb.Set(5, 5) }},
		{"RawGet", 1, func() error { return tb.RawGet(6, &v) }},
		{"RawSet", 1, func() error { return tb.RawSet(6, 6) }},
	} {
		var err error
		if n := crossings(func() { err = c.f() }); n > c.max {
			t.Errorf("%s: %d crossings, want at most %d", c.name, n, c.max)
		}
		must(t, err)
	}
	if len(s) != 1000 || s[999] != 1000 || len(m) != 1000 || m["k1000"] != 1000 || v != 6 {
		t.Fatalf("read %d, %d, %d, %d, %d", len(s), s[999], len(m), m["k1000"], v)
	}
}

// batchSrc has sequences and maps longer than a run (128 values, 64
// pairs) with what a run cannot carry at its edges: numeric strings (read
// with Lua's rules, on the stack), integral floats, tables, functions,
// strings holding NULs.
const batchSrc = `function build()
	big = {} for i = 1, 1000 do big[i] = i end
	big[128] = "128" big[129] = 129.0 big[300] = "0x12C" big[1000] = " 1000 "
	mixed = {} for i = 1, 300 do mixed[i] = i end
	mixed[64] = {1, 2} mixed[129] = print mixed[200] = "a\0b" mixed[201] = true mixed[256] = false
	holes = {} for i = 1, 300 do holes[i] = i end holes[2] = nil holes[150] = nil
	assert(#holes == 300)
	mp = {} for i = 1, 500 do mp["k" .. i] = i end
	mp.s = "42" mp.f = 7.0
	meta = setmetatable({1, 2, 3}, {__index = function(t, k) return 99 end, __len = function() return 10 end})
end build()
`

func TestRunsReadWhatElementsRead(t *testing.T) {
	e := newEnv(t)
	run(t, e, batchSrc)
	var ints []int
	must(t, e.Global("big", &ints))
	var floats []float64
	must(t, e.Global("big", &floats))
	var strs []string
	must(t, e.Global("big", &strs))
	var anys []any
	must(t, e.Global("big", &anys))
	for i := range 1000 {
		if ints[i] != i+1 || floats[i] != float64(i+1) {
			t.Fatalf("[%d]: %d, %v", i+1, ints[i], floats[i])
		}
	}
	f129 := "129.0"
	var any129 any = 129.0
	if isJIT() {
		f129, any129 = "129", int64(129)
	}
	if strs[0] != "1" || strs[127] != "128" || strs[128] != f129 || strs[299] != "0x12C" || strs[999] != " 1000 " ||
		anys[0] != int64(1) || anys[127] != "128" || anys[128] != any129 || anys[999] != " 1000 " {
		t.Fatalf("strings %q, any %#v", []string{strs[0], strs[127], strs[128], strs[299], strs[999]},
			[]any{anys[0], anys[127], anys[128], anys[999]})
	}

	var natural any // a sequence read into any: []any
	must(t, e.Global("big", &natural))
	if !reflect.DeepEqual(natural, anys) {
		t.Fatalf("into any: %#v", natural)
	}
	var mixedAny []any
	must(t, e.Global("mixed", &mixedAny))
	f, ok := mixedAny[128].(*zlua.Function)
	if !ok {
		t.Fatalf("[129]: %T", mixedAny[128])
	}
	f.Release()
	if !reflect.DeepEqual(mixedAny[63], []any{int64(1), int64(2)}) || mixedAny[199] != "a\x00b" ||
		mixedAny[200] != true || mixedAny[255] != false || mixedAny[62] != int64(63) || mixedAny[299] != int64(300) {
		t.Fatalf("mixed: %#v", []any{mixedAny[62], mixedAny[63], mixedAny[199], mixedAny[200], mixedAny[255], mixedAny[299]})
	}
	var mixedBytes []string
	err := e.Global("mixed", &mixedBytes)
	wantErr(t, err, `[64]: string expected, got table`)

	var holeAny []any
	must(t, e.Global("holes", &holeAny))
	if len(holeAny) != 300 || holeAny[0] != int64(1) || holeAny[1] != nil || holeAny[149] != nil || holeAny[299] != int64(300) {
		t.Fatalf("holes: %d, %#v", len(holeAny), holeAny[:3])
	}
	var holePtrs []*int
	must(t, e.Global("holes", &holePtrs))
	if len(holePtrs) != 300 || *holePtrs[0] != 1 || holePtrs[1] != nil || holePtrs[149] != nil || *holePtrs[299] != 300 {
		t.Fatalf("holes: %v", holePtrs[:3])
	}
	wantErr(t, e.Global("holes", &ints), `holes[2]: number expected, got nil`)

	// raw reads: neither __index nor __len
	var metaInts []int
	must(t, e.Global("meta", &metaInts))
	if !reflect.DeepEqual(metaInts, []int{1, 2, 3}) {
		t.Fatalf("meta: %v", metaInts)
	}
	var arr [4]int
	must(t, e.Global("meta", &arr))
	if arr != [4]int{1, 2, 3, 0} {
		t.Fatalf("meta into an array: %v", arr)
	}
}

func TestRunsFailWhereElementsFailed(t *testing.T) {
	e := newEnv(t)
	run(t, e, batchSrc)
	for _, c := range []struct {
		src, global string
		out         any
		want        string
	}{
		{`big[257] = true`, "big", new([]int), `big[257]: number expected, got boolean`},
		{`big[128] = "x"`, "big", new([]int), `big[128]: number expected, got string`},
		{`big[129] = 1.5`, "big", new([]int), `big[129]: number has no integer representation`},
		{`big[1000] = {}`, "big", new([]float64), `big[1000]: number expected, got table`},
		{``, "big", new([]bool), `big[1]: boolean expected, got number`},
		{`big[700] = 300`, "big", new([]uint8), `big[256]: number out of range for uint8`},
		{`mp.bad = true`, "mp", new(map[string]int), `mp["bad"]: number expected, got boolean`},
		{`mp.s = "x"`, "mp", new(map[string]int), `mp["s"]: number expected, got string`},
		{`ik = {} for i = 1, 200 do ik[i] = i end ik[1.5] = 1`, "ik", new(map[int]int), `key [1.5]: number has no integer representation`},
		{`ik[1.5] = nil ik[300] = "x"`, "ik", new(map[int]int), `ik[300]: number expected, got string`},
		{`mp.t = {}`, "mp", new(map[string]string), `mp["t"]: string expected, got table`},
		{`mp[{}] = 1`, "mp", new(map[string]int), `key [table]: string expected, got table`},
		{`mp[1] = 1 mp["1"] = 2`, "mp", new(map[string]int), `"1"`},
	} {
		run(t, e, "build() "+c.src)
		wantErr(t, e.Global(c.global, c.out), c.want)
	}
}

func TestMapRunsReadWhatPairsRead(t *testing.T) {
	e := newEnv(t)
	run(t, e, batchSrc+` mp.t = {1, "x"} mp.fn = print
		fk = {[1] = "i", [1.5] = "f", [2^53] = "big", [-0.25] = "q"}`)
	var ints map[string]int
	run(t, e, `local t = {} for k, v in pairs(mp) do if type(v) == "number" or k == "s" then t[k] = v end end mpn = t`)
	must(t, e.Global("mpn", &ints))
	if len(ints) != 502 || ints["k1"] != 1 || ints["k500"] != 500 || ints["s"] != 42 || ints["f"] != 7 {
		t.Fatalf("map[string]int: %d entries, s %d, f %d", len(ints), ints["s"], ints["f"])
	}
	var strs map[string]string
	run(t, e, `mps = {} for k, v in pairs(mpn) do mps[k] = v end mps.z = "a\0b"`)
	must(t, e.Global("mps", &strs))
	f7 := "7.0"
	if isJIT() {
		f7 = "7"
	}
	if strs["f"] != f7 || strs["z"] != "a\x00b" || strs["k64"] != "64" {
		t.Fatalf("map[string]string: %q %q %q", strs["f"], strs["z"], strs["k64"])
	}
	var anys map[string]any
	must(t, e.Global("mp", &anys))
	fn, ok := anys["fn"].(*zlua.Function)
	if !ok {
		t.Fatalf("fn: %T", anys["fn"])
	}
	fn.Release()
	if len(anys) != 504 || !reflect.DeepEqual(anys["t"], []any{int64(1), "x"}) || anys["s"] != "42" {
		t.Fatalf("map[string]any: %d entries, t %#v", len(anys), anys["t"])
	}
	var natural any // a map read into any: map[string]any, or map[any]any once a key is not a string
	must(t, e.Global("mp", &natural))
	nm, _ := natural.(map[string]any)
	if fn, ok := nm["fn"].(*zlua.Function); ok {
		fn.Release()
	}
	if len(nm) != 504 || !reflect.DeepEqual(nm["t"], []any{int64(1), "x"}) || nm["s"] != "42" || nm["k500"] != int64(500) {
		t.Fatalf("into any: %T, %d entries", natural, len(nm))
	}
	run(t, e, `mp.fn = nil mp[true] = "yes" mp[2.5] = {}`)
	must(t, e.Global("mp", &natural))
	am, _ := natural.(map[any]any)
	if len(am) != 505 || am[true] != "yes" || !reflect.DeepEqual(am[2.5], map[string]any{}) && !reflect.DeepEqual(am[2.5], []any{}) ||
		am["k1"] != int64(1) || am["s"] != "42" {
		t.Fatalf("into any: %T, %d entries, %#v", natural, len(am), am[2.5])
	}
	var fk map[float64]string
	must(t, e.Global("fk", &fk))
	if !reflect.DeepEqual(fk, map[float64]string{1: "i", 1.5: "f", 1 << 53: "big", -0.25: "q"}) {
		t.Fatalf("float keys: %v", fk)
	}
	var ik map[int64]string
	wantErr(t, e.Global("fk", &ik), "number has no integer representation")
}

func TestForEachRunsGiveWhatPairsGave(t *testing.T) {
	e := newEnv(t)
	run(t, e, batchSrc)
	var tb *zlua.Table
	must(t, e.Global("mixed", &tb))
	defer tb.Release()
	got := map[any]any{}
	must(t, tb.ForEach(func(k, v any) error {
		switch h := v.(type) {
		case *zlua.Table:
			var n int
			must(t, h.Get(2, &n))
			h.Release()
			v = fmt.Sprint("table ", n)
		case *zlua.Function:
			h.Release()
			v = "function"
		}
		got[k] = v
		return nil
	}))
	if len(got) != 300 || got[int64(64)] != "table 2" || got[int64(129)] != "function" || got[int64(200)] != "a\x00b" ||
		got[int64(201)] != true || got[int64(256)] != false || got[int64(300)] != int64(300) {
		t.Fatalf("%d pairs: %v", len(got), got)
	}
	run(t, e, `mixed[250] = coroutine.create(print) mixed[251] = nil`)
	n := 0
	must(t, tb.ForEach(func(k, v any) error {
		if th, ok := v.(*zlua.Thread); ok {
			th.Release()
		}
		if h, ok := v.(interface{ Release() }); ok {
			h.Release()
		}
		n++
		return nil
	}))
	if n != 299 {
		t.Fatalf("%d pairs", n)
	}
	var light *zlua.Table
	must(t, e.Global("big", &light))
	defer light.Release()
	run(t, e, `big[999] = nil big[1000] = nil big["end"] = 1.5`)
	var last any
	must(t, light.ForEach(func(k, v any) error {
		if k == "end" {
			last = v
		}
		return nil
	}))
	if last != 1.5 {
		t.Fatalf(`["end"] = %v`, last)
	}
}

func TestTableGetSetKeepMetamethodsAndErrors(t *testing.T) {
	e := newEnv(t)
	run(t, e, batchSrc+`
		log = {}
		obj = setmetatable({}, {__newindex = function(t, k, v) rawset(log, k, v) end,
			__index = function(t, k) if k == "boom" then error("no such " .. k) end return k end})
		bad = setmetatable({}, {__newindex = function() error("read-only") end})`)
	var meta, obj, bad *zlua.Table
	must(t, e.Global("meta", &meta))
	must(t, e.Global("obj", &obj))
	must(t, e.Global("bad", &bad))
	defer meta.Release()
	defer obj.Release()
	defer bad.Release()
	var v int
	must(t, meta.Get(5, &v))
	if v != 99 {
		t.Fatalf("__index gave %d", v)
	}
	var raw any = "unchanged"
	must(t, meta.RawGet(5, &raw))
	if raw != nil {
		t.Fatalf("raw get: %v", raw)
	}
	must(t, obj.Set("x", 5))
	var x any
	must(t, obj.RawGet("x", &x))
	var logged int
	must(t, e.Global("log.x", &logged))
	if x != nil || logged != 5 {
		t.Fatalf("__newindex: raw %v, logged %d", x, logged)
	}
	var s string
	must(t, obj.Get("a\x00b", &s))
	if s != "a\x00b" {
		t.Fatalf("string through __index: %q", s)
	}
	wantErr(t, obj.Get("boom", &s), "no such boom")
	wantErr(t, bad.Set(1, 2), "read-only")
	wantErr(t, bad.Set(nil, 2), "index is nil")
	wantErr(t, bad.RawSet(math.NaN(), 2), "index is NaN")
	must(t, bad.RawSet(1, 2))
	must(t, meta.Get(1, &s)) // a number reads into a string
	if s != "1" {
		t.Fatalf("number into a string: %q", s)
	}
	var str string
	wantErr(t, meta.Get(1, &[]int{}), `table get [1]: table expected, got number`)
	must(t, obj.Get("long string stays on the stack", &str))
	var sub *zlua.Table
	run(t, e, `meta.sub = {7}`)
	must(t, meta.RawGet("sub", &sub))
	must(t, sub.Get(1, &v))
	sub.Release()
	if v != 7 {
		t.Fatalf("sub[1] = %d", v)
	}
	// the stack is balanced after every path above
	var top int
	must(t, e.Global("big", &[]int{}))
	run(t, e, `n = select("#", 1)`)
	must(t, e.Global("n", &top))
	if d := stackDepth(t, e); d != 0 {
		t.Fatalf("stack holds %d values", d)
	}
}

// stackDepth is the Env's stack top between calls.
func stackDepth(t *testing.T, e *zlua.Env) int { t.Helper(); return zlua.StackTop(e) }

// isJIT reports the LuaJIT backend, whose numbers are all floats.
func isJIT() bool { return strings.HasPrefix(zlua.Backend, "LuaJIT") }

// TestRunsStayWithinTheMemoryLimit: a string repeated in a table is
// copied per element: runs count each copy against the limit as elements
// did.
func TestRunsStayWithinTheMemoryLimit(t *testing.T) {
	e, err := zlua.New(zlua.Options{MemoryLimit: 8 << 20})
	must(t, err)
	defer e.Close()
	run(t, e, `local s = string.rep("x", 4096)
		rep, mrep = {}, {} for i = 1, 4000 do rep[i] = s mrep["k" .. i] = s end`)
	wantErr(t, e.Global("rep", new([]string)), "takes more than the memory limit")
	wantErr(t, e.Global("mrep", new(map[string]string)), "takes more than the memory limit")
	wantErr(t, e.Global("rep", new([]any)), "takes more than the memory limit")
	wantErr(t, e.Global("mrep", new(any)), "takes more than the memory limit")
	var tb *zlua.Table
	must(t, e.Global("rep", &tb))
	defer tb.Release()
	wantErr(t, tb.ForEach(func(k, v any) error { return nil }), "takes more than the memory limit")
}

// TestLongRunsStopAtTheDeadline: a decode of scalars only, read in runs,
// still checks the context every 1024 values.
func TestLongRunsStopAtTheDeadline(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("take", func(v [][]int) {}))
	must(t, e.SetGlobal("takeMaps", func(v []map[string]int) {}))
	stopInTime(t, e, []string{
		`local s = {} for i = 1, 4096 do s[i] = i end local t = {} for i = 1, 4096 do t[i] = s end take(t)`,
		`local s = {} for i = 1, 4096 do s["k" .. i] = i end local t = {} for i = 1, 4096 do t[i] = s end takeMaps(t)`,
	}, "")
}
