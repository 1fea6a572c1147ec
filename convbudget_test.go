package zlua_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// The eighteenth round's outside probe F: conversions of Lua values into
// Go build outside the Lua heap and outside Lua's instructions, so zlua
// bounds them itself (callbackgate/convbudget.go).

// sparseBorder makes t, whose length (#t) is 2^40 on Lua 5.4 (41 keys in
// a preallocated hash part) and 2^29 on LuaJIT (30 keys, table.new).
const sparseBorder = `
	local t
	if table.new == nil and not pcall(require, "table.new") then
		local keys = {}
		for i = 1, 64 do keys[#keys + 1] = "k" .. i .. " = nil" end
		t = load("return {" .. table.concat(keys, ",") .. "}")()
		t[1] = 1
		for i = 1, 40 do t[2 ^ i] = 1 end
	else
		t = require("table.new")(0, 64)
		t[1] = 1
		for i = 1, 29 do t[2 ^ i] = 1 end
	end
	assert(#t >= 2 ^ 29, #t)`

// TestSparseBorderIsNotASequence: a table whose border is far beyond what
// the Lua heap could hold is refused as a slice instead of making Go
// allocate its length (before: a fatal "out of memory" of the process).
func TestSparseBorderIsNotASequence(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("ints", func(xs []int) int { return len(xs) }))
	must(t, e.SetGlobal("big", func(xs [][16]int64) int { return len(xs) }))
	run(t, e, sparseBorder+`
		for _, f in ipairs({ints, big}) do
			local ok, err = pcall(f, t)
			assert(not ok and err:find("is not a sequence (the Lua heap", 1, true), err)
		end
		sparse = t`)
	var xs []int
	if err := e.Global("sparse", &xs); err == nil || !strings.Contains(err.Error(), "is not a sequence") {
		t.Errorf("Global of the sparse table: %v", err)
	}
	run(t, e, `local s = {} for i = 1, 1000 do s[i] = i end assert(ints(s) == 1000)`)
}

// dag nests n tables each holding the one below twice: n small tables in
// Lua, 2^n values in Go.
func dag(n int) string {
	return `local d = {1} for i = 1, ` + itoa(n) + ` do d = {d, d} end`
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestConversionsStayWithinTheMemoryLimit: with a MemoryLimit, one
// conversion may not build more Go bytes than the limit: shared subtables
// expanded 2^20 times, or one string referenced a hundred times.
func TestConversionsStayWithinTheMemoryLimit(t *testing.T) {
	e, err := zlua.New(zlua.Options{MemoryLimit: 8 << 20})
	must(t, err)
	defer e.Close()
	must(t, e.SetGlobal("take", func(v any) {}))
	must(t, e.SetGlobal("strs", func(v []string) int { return len(v) }))
	run(t, e, dag(20)+`
		local ok, err = pcall(take, d)
		assert(not ok and err:find("takes more than the memory limit (8388608 bytes)", 1, true), err)
		local s = string.rep("x", 2 ^ 20)
		local many = {}
		for i = 1, 100 do many[i] = s end
		ok, err = pcall(strs, many)
		assert(not ok and err:find("takes more than the memory limit", 1, true), err)
		for i = 1, 100 do many[i] = "x" .. i end
		assert(strs(many) == 100)`)
}

// TestLongConversionsStopAtTheDeadline: a conversion runs no Lua
// instruction, so the hook cannot stop it: it checks the context itself.
func TestLongConversionsStopAtTheDeadline(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("take", func(v any) {}))
	must(t, e.SetGlobal("takeMaps", func(v []map[string]any) {}))
	stopInTime(t, e, []string{
		dag(24) + ` take(d)`,
		dag(24) + ` takeMaps({d})`,
	}, "")
}

// TestErrorPathsCutLongKeys: a conversion error names the path of keys
// to the failing value, a long key by its start and length: 20 levels of
// a 1 MiB key made a 20 MiB message.
func TestErrorPathsCutLongKeys(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("take", func(v map[string]any) {}))
	run(t, e, `
		local k = string.rep("-", 2 ^ 20)
		local t = {}
		local cur = t
		for i = 1, 20 do local n = {} cur[k] = n cur = n end
		cur[k] = io.stdout
		local ok, err = pcall(take, t)
		assert(not ok and #err < 20000, #err)
		assert(err:find('["' .. string.rep("-", 64) .. '"...1048576 bytes]', 1, true), err:sub(1, 300))`)
}

type budgetRec struct{ Name string }

// TestOneOperationSharesItsBudget: the values of one operation (a Go
// function's arguments, a call's results, Eval's outs) share one budget,
// and strings stored by the flat struct path count: before, each value
// had the whole limit (20 results of 48 MiB built 960 MiB under 64 MiB),
// and the flat path copied strings uncounted.
func TestOneOperationSharesItsBudget(t *testing.T) {
	e, err := zlua.New(zlua.Options{MemoryLimit: 8 << 20})
	must(t, err)
	defer e.Close()
	must(t, e.SetGlobal("sink", func(vs ...any) int { return len(vs) }))
	run(t, e, `
		local s = string.rep("x", 2 ^ 20)
		big = {s, s, s}
		function many() return big, big, big, big end
		local ok, err = pcall(sink, big, big, big, big)
		assert(not ok and err:find("takes more than the memory limit", 1, true), err)
		assert(sink(big, big) == 2)
		local a, b = string.rep("a", 2 ^ 20), string.rep("b", 2 ^ 20)
		recs = {}
		for i = 1, 20 do recs[i] = {Name = i % 2 == 0 and a or b} end`)
	var many *zlua.Function
	must(t, e.Global("many", &many))
	defer many.Release()
	if _, err := many.Call(); err == nil || !strings.Contains(err.Error(), "takes more than the memory limit") {
		t.Errorf("Call returning 4 x 3 MiB under 8 MiB: %v", err)
	}
	var x1, x2, x3, x4 []string
	if err := e.Eval("big, big, big, big", &x1, &x2, &x3, &x4); err == nil || !strings.Contains(err.Error(), "takes more than the memory limit") {
		t.Errorf("Eval of 4 x 3 MiB under 8 MiB: %v", err)
	}
	var recs []budgetRec
	if err := e.Global("recs", &recs); err == nil || !strings.Contains(err.Error(), "takes more than the memory limit") {
		t.Errorf("20 records alternating two 1 MiB strings under 8 MiB: %v", err)
	}
}

// TestFewBigStringsStopAtTheDeadline: the context is checked every MiB
// converted too, not only every 1024 values (200 references to a 4 MiB
// string went on for seconds).
func TestFewBigStringsStopAtTheDeadline(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("take", func(v []string) {}))
	stopInTime(t, e, []string{`local s = string.rep("x", 4 * 2 ^ 20) local t = {}
		for i = 1, 200 do t[i] = s end take(t)`}, "")
}

// TestArraysUnderTheLimitConvert: a sequence that fits the Lua heap under
// the limit converts, into []any and []int64 (the estimate counts each
// slot once).
func TestArraysUnderTheLimitConvert(t *testing.T) {
	e, err := zlua.New(zlua.Options{MemoryLimit: 40 << 20})
	must(t, err)
	defer e.Close()
	run(t, e, `a = {} for i = 1, 1500000 do a[i] = i end`)
	var ai []any
	var ii []int64
	must(t, e.Global("a", &ai))
	must(t, e.Global("a", &ii))
	if len(ai) != 1500000 || len(ii) != 1500000 || ii[1499999] != 1500000 {
		t.Errorf("read %d and %d elements", len(ai), len(ii))
	}
}

// TestLoadOfALoopingReaderStillEndsTheCall: LuaJIT runs load's reader in a
// C protected call, and the interruption raised in it left the state's
// hooks off for good: the loop after that load ran forever. zlua's load
// turns them back on (cgo/cstack.c).
func TestLoadOfALoopingReaderStillEndsTheCall(t *testing.T) {
	e := newEnv(t)
	stopInTime(t, e, []string{
		`load(function() while true do end end) while true do end`,
		`local f, err = load(function() while true do end end) local n = 0 while true do n = n + 1 end`,
	}, "")
	run(t, e, `local f, err = load(function() error("reader broke") end)
		assert(f == nil and err:find("reader broke"), err)
		local parts, i = {"return ", "7"}, 0
		assert(load(function() i = i + 1 return parts[i] end)() == 7)`)
}

// TestConversionsCountAnInterfacesValueOnce: a string reaching a Go
// interface inside a struct or a slice counts once (it counted twice:
// read counted it, then natural did; probe R F5): three copies of a
// 1.5 MiB string fit an 8 MiB limit's budget (counted twice, 9 MiB did
// not), and a store of one is charged its length.
func TestConversionsCountAnInterfacesValueOnce(t *testing.T) {
	e, err := zlua.New(zlua.Options{MemoryLimit: 8 << 20})
	must(t, err)
	defer e.Close()
	type note struct {
		A    any
		Note string
	}
	must(t, e.SetGlobal("inStruct", func(n note) int { return len(n.A.(string)) }))
	must(t, e.SetGlobal("inSlice", func(v []any) int { return len(v[0].(string)) }))
	must(t, e.SetGlobal("holder", &struct{ N note }{}))
	run(t, e, `local s = string.rep("i", 3 * 2 ^ 19)
		assert(inStruct({A = s}) == #s)
		assert(inSlice({s, s, s}) == #s)
		holder.N = {A = string.rep("h", 300000)}`)
	if got := e.Stats().CopyBytes; got < 300000 || got >= 400000 {
		t.Errorf("a 300000-byte string stored through an interface: CopyBytes %d", got)
	}
}
