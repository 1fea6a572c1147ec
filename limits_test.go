package zlua_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

const mib = 1 << 20

func newLimitedEnv(t testing.TB, limit int64) *zlua.Env {
	t.Helper()
	e, err := zlua.New(zlua.Options{MemoryLimit: limit})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { must(t, e.Close()) })
	return e
}

func TestMemoryLimitStopsAMemoryBomb(t *testing.T) {
	e := newLimitedEnv(t, 8*mib)
	for _, chunk := range []string{
		`local t = {} for i = 1, 1e9 do t[i] = ("x"):rep(64) .. i end`,
		`local s = ("x"):rep(1e9)`,
		`local s = "x" while true do s = s .. s end`,
		`local t = {} while true do t = {t, t} end`,
	} {
		err := e.DoString(chunk)
		if !errors.Is(err, zlua.ErrMemory) {
			t.Fatalf("%s: err = %v, want ErrMemory", chunk, err)
		}
		var le *zlua.LuaError
		if !errors.As(err, &le) || le.Message != "not enough memory" {
			t.Errorf("%s: err = %#v, want a LuaError \"not enough memory\"", chunk, err)
		}
		s := e.Stats()
		if s.LuaPeakBytes > 8*mib || s.LuaBytes > s.LuaPeakBytes {
			t.Errorf("%s: stats %+v break the limit", chunk, s)
		}
		run(t, e, `collectgarbage() ok = 40 + 2`)
		if global[int](t, e, "ok") != 42 {
			t.Fatal("Env unusable after a memory error")
		}
	}
}

func TestMemoryErrorsAreCatchableAndRethrown(t *testing.T) {
	e := newLimitedEnv(t, 4*mib)
	run(t, e, `
		local ok, err = pcall(string.rep, "x", 1e8)
		assert(not ok and err == "not enough memory", tostring(err))
		local ok2, err2 = pcall(function() local t = {} for i = 1, 1e8 do t[i] = i end end)
		assert(not ok2 and err2:find("not enough memory"), tostring(err2))`)
	for _, chunk := range []string{
		`local ok, err = pcall(string.rep, "x", 1e8) error(err, 0)`,
		`local ok, err = pcall(string.rep, "x", 1e8) error(err)`,
	} {
		if err := e.DoString(chunk); !errors.Is(err, zlua.ErrMemory) {
			t.Errorf("%s: err = %v, want ErrMemory", chunk, err)
		}
	}
	// Raised through a Go function that ran the failing chunk.
	must(t, e.SetGlobal("nested", func() error { return e.DoString(`local s = ("x"):rep(1e8)`) }))
	if err := e.DoString(`nested()`); !errors.Is(err, zlua.ErrMemory) {
		t.Errorf("through a Go frame: err = %v, want ErrMemory", err)
	}
	run(t, e, `local ok, err = pcall(nested) assert(not ok and err:find("not enough memory"), err)`)
}

func TestMemoryLimitCoversGoPushes(t *testing.T) {
	e := newLimitedEnv(t, 4*mib)
	err := e.SetGlobal("big", strings.Repeat("x", 8*mib))
	if !errors.Is(err, zlua.ErrMemory) {
		t.Errorf("SetGlobal of 8 MiB under a 4 MiB limit = %v", err)
	}
	must(t, e.SetGlobal("small", strings.Repeat("x", mib)))
	err = e.DoStringArgs(`big = ...`, make([]int, 600_000))
	if !errors.Is(err, zlua.ErrMemory) {
		t.Errorf("DoStringArgs of a 600k-element table = %v", err)
	}
	must(t, e.SetGlobal("ret", func(n int) string { return strings.Repeat("y", n) }))
	run(t, e, `assert(#ret(1000) == 1000)
		local ok, err = pcall(ret, 8 * 1024 * 1024)
		assert(not ok and err:find("not enough memory"), tostring(err))`)
}

func TestStatsReportLuaHeap(t *testing.T) {
	e := newEnv(t)
	run(t, e, `collectgarbage() collectgarbage() kb = collectgarbage("count")`)
	s := e.Stats()
	lua := global[float64](t, e, "kb") * 1024
	if s.LuaBytes == 0 || float64(s.LuaBytes) < lua-16*1024 || float64(s.LuaBytes) > lua+16*1024 {
		t.Errorf("LuaBytes = %d, Lua counts %.0f", s.LuaBytes, lua)
	}
	run(t, e, `hold = ("x"):rep(4 * 1024 * 1024)`)
	if s2 := e.Stats(); s2.LuaBytes < s.LuaBytes+4*mib || s2.LuaPeakBytes < s2.LuaBytes {
		t.Errorf("after a 4 MiB string: %+v (before %+v)", s2, s)
	}
	// LuaJIT halves its string buffer at each collection.
	run(t, e, `hold = nil for i = 1, 5 do collectgarbage() end`)
	if s3 := e.Stats(); s3.LuaBytes > s.LuaBytes+256*1024 || s3.LuaPeakBytes < s.LuaBytes+4*mib {
		t.Errorf("after freeing it: %+v", s3)
	}
}

func TestMemoryLimitTooSmallForNew(t *testing.T) {
	_, err := zlua.New(zlua.Options{MemoryLimit: 4096})
	if !errors.Is(err, zlua.ErrMemory) {
		t.Errorf("New with a 4 KiB limit = %v, want ErrMemory", err)
	}
	if _, err := zlua.New(zlua.Options{MemoryLimit: -1}); err == nil || !strings.Contains(err.Error(), "negative memory limit") {
		t.Errorf("negative limit: %v", err)
	}
	if _, err := zlua.New(zlua.Options{Libs: 7}); err == nil || !strings.Contains(err.Error(), "Libs(7)") {
		t.Errorf("unknown Libs: %v", err)
	}
}

func TestGarbageChurnUnderALimit(t *testing.T) {
	// A script that makes much more garbage than the limit but keeps
	// little alive runs to the end on both backends.
	e := newLimitedEnv(t, 4*mib)
	run(t, e, `local keep = {} for i = 1, 2e5 do local s = ("x"):rep(200) .. i keep[i % 100] = s end`)
}

// TestFailingEachAllocation makes allocations fail from the k-th on, for
// every k until a small scenario runs untouched: each run ends with success
// or ErrMemory and the Env stays usable. (The sweep over every scenario of
// the bridge is a later step of the reliability work.)
func TestFailingEachAllocation(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("echo", func(s string, n int) (string, int) { return s, n }))
	scenario := func() error {
		if err := e.SetGlobal("cfg", map[string]any{"name": "orc", "hp": 10, "tags": []string{"a", "b"}}); err != nil {
			return err
		}
		return e.DoString(`local s, n = echo(cfg.name .. "!", cfg.hp) t = {s, n, pcall(error, {})}`)
	}
	for k := uint64(1); k < 10000; k++ {
		zlua.FailAllocAt(e, k)
		err := scenario()
		zlua.FailAllocAt(e, 0)
		if err == nil {
			t.Logf("untouched from k = %d", k)
			if k < 10 {
				t.Errorf("the scenario should need more than %d allocations", k)
			}
			return
		}
		if !errors.Is(err, zlua.ErrMemory) {
			t.Fatalf("k=%d: err = %v, want ErrMemory", k, err)
		}
		if err := scenario(); err != nil {
			t.Fatalf("k=%d: Env broken afterwards: %v", k, err)
		}
	}
	t.Fatal("scenario never ran untouched")
}

// TestEnvCollectsBackAfterEveryMemoryBomb: after any memory error, once the
// script's values are unreachable, the Env serves calls and collects back
// to its baseline. On LuaJIT the two bombs of issue 11 (string-keyed
// table, then nested tables) left every later call, collectgarbage()
// included, failing with "not enough memory" and LuaBytes stuck at the
// limit: the collector could not finish the sweep that shrinks its string
// table (see zlua_collect_after_refusal).
func TestEnvCollectsBackAfterEveryMemoryBomb(t *testing.T) {
	const (
		keys    = `local t = {} local i = 0 while true do i = i + 1 t["k" .. i] = i end`
		nested  = `local t = {} while true do t = {t, t, t} end`
		strs    = `local t = {} for i = 1, 1e9 do t[i] = ("x"):rep(40) .. i end`
		doubles = `local s = "x" while true do s = s .. s end`
		funcs   = `local t = {} for i = 1, 1e9 do t[i] = function() return i end end`
		threads = `local t = {} for i = 1, 1e9 do t[i] = coroutine.create(print) end`
		boxed   = `local t = {} local i = 0 while true do i = i + 1 t["k" .. i] = {i} end`
	)
	// Bombs back to back, each sequence as one script would run them: the
	// first is the probe.
	sequences := [][]string{
		{keys, nested}, {strs, nested}, {boxed, nested}, {keys, doubles, nested},
		{nested, keys}, {funcs, threads, keys}, {keys}, {nested},
	}
	for _, libs := range []zlua.Libs{zlua.LibsSafe, zlua.LibsAll} {
		e, err := zlua.New(zlua.Options{Libs: libs, MemoryLimit: 8 * mib})
		must(t, err)
		run(t, e, `collectgarbage() collectgarbage()`)
		base := e.Stats().LuaBytes
		for i, seq := range sequences {
			for _, bomb := range seq {
				if err := e.DoString(bomb); !errors.Is(err, zlua.ErrMemory) {
					t.Fatalf("sequence %d, %s: err = %v, want ErrMemory", i, bomb, err)
				}
			}
			// the first calls after the errors must work, the collector too
			run(t, e, `collectgarbage() x = 40 + 2`)
			if global[int](t, e, "x") != 42 {
				t.Fatalf("sequence %d: Env unusable", i)
			}
			// and the heap comes back (LuaJIT halves its string table at
			// each cycle, so it may take a few)
			var now uint64
			for range 10 {
				run(t, e, `collectgarbage()`)
				if now = e.Stats().LuaBytes; now <= base+64*1024 {
					break
				}
			}
			if now > base+64*1024 {
				t.Errorf("sequence %d: LuaBytes %d after collecting, baseline %d", i, now, base)
			}
		}
		must(t, e.Close())
	}
}

// A protected operation allocates nothing before its protection starts:
// with every allocation failing, one whose arguments lie in memory LuaJIT
// has never seen (as the C stack of a thread the goroutine just moved to)
// still runs. Before, zlua_op pushed its arguments' address as a light
// userdata, and LuaJIT interning that address's segment failed outside
// protection: "unprotected error in call to Lua API (not enough memory)"
// and the process died (a flake of the allocation sweep under load).
func TestProtectedOpAllocatesNothingBeforeItsProtection(t *testing.T) {
	e := newEnv(t)
	zlua.FailAllocAt(e, 1)
	st := zlua.OpWithFarArgs(e)
	zlua.FailAllocAt(e, 0)
	if st == -1 {
		t.Skip("no mapping in another light userdata segment")
	}
	if st != 0 {
		t.Errorf("status %d, want 0 (LUA_OK)", st)
	}
	run(t, e, `assert(1 + 1 == 2)`)
}
