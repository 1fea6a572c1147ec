package zlua_test

import (
	"testing"

	"github.com/zlua-go/zlua"
)

// The Lua 5.4 crossing, fourth pass (docs/PERFORMANCE-HISTORY.md): C functions find
// their env in the running thread's extra space, which only the main
// thread gets written (zlua_newstate) and every other thread copies when
// it is made. A thread that did not have it would hand the trampoline a
// wrong env: every kind of thread a script or Go can make is checked.

// envProbe registers where(tag), which records what the thread running it
// holds for zlua_envof, and returns the records.
func envProbe(t *testing.T, e *zlua.Env) map[string][3]uintptr {
	seen := map[string][3]uintptr{}
	must(t, e.SetGlobal("where", func(tag string) int {
		x, u, w := zlua.ThreadEnv(e)
		seen[tag] = [3]uintptr{x, u, w}
		return 7
	}))
	return seen
}

func TestEveryThreadFindsItsEnvInItsExtraSpace(t *testing.T) {
	e := newEnv(t)
	seen := envProbe(t, e)
	run(t, e, `
		assert(where("main") == 7)
		local co = coroutine.create(function()
			assert(where("coroutine") == 7)
			local inner = coroutine.wrap(function() assert(where("nested") == 7) end)
			inner()
			coroutine.yield()
			assert(where("resumed") == 7)
		end)
		assert(coroutine.resume(co))
		assert(coroutine.resume(co))
		assert(coroutine.status(co) == "dead")
		-- a thread made before collecting, run after: the copy is made once
		made = coroutine.create(function() return where("made earlier") end)
		collectgarbage()
		assert(select(2, coroutine.resume(made)) == 7)
		body = function() return where("go thread") end`)
	// A thread created from Go (lua_newthread in zlua's C) and resumed
	// from Go.
	var body *zlua.Function
	must(t, e.Global("body", &body))
	defer body.Release()
	th, err := e.NewThread(body)
	must(t, err)
	res, err := th.Resume()
	must(t, err)
	if len(res) != 1 || res[0] != int64(7) {
		t.Fatalf("the Go thread's call returned %v", res)
	}
	// A Go thread made from inside a Go function Lua called.
	must(t, e.SetGlobal("spawn", func(f *zlua.Function) int {
		th, err := e.NewThread(f)
		if err != nil {
			t.Error(err)
			return 0
		}
		r, err := th.Resume()
		if err != nil || len(r) != 1 {
			t.Error(r, err)
			return 0
		}
		return 1
	}))
	run(t, e, `assert(spawn(function() return where("go thread from lua") end) == 1)`)

	for _, tag := range []string{"main", "coroutine", "nested", "resumed", "made earlier",
		"go thread", "go thread from lua"} {
		got, ok := seen[tag]
		if !ok {
			t.Errorf("%s: where() did not run", tag)
			continue
		}
		extra, ud, want := got[0], got[1], got[2]
		if want == 0 || ud != want {
			t.Errorf("%s: allocator ud %#x, env %#x", tag, ud, want)
		}
		if onLuaJIT {
			if extra != 0 {
				t.Errorf("%s: LuaJIT reported extra space %#x", tag, extra)
			}
		} else if extra != want {
			t.Errorf("%s: extra space holds %#x, want the env %#x", tag, extra, want)
		}
	}
}

// Two Envs: each one's threads name their own env, never the other's.
func TestThreadsOfTwoEnvsFindTheirOwnEnv(t *testing.T) {
	a, b := newEnv(t), newEnv(t)
	sa, sb := envProbe(t, a), envProbe(t, b)
	for _, e := range []*zlua.Env{a, b} {
		run(t, e, `
			where("main")
			coroutine.wrap(function() where("coroutine") end)()`)
	}
	for _, tag := range []string{"main", "coroutine"} {
		if sa[tag][2] == sb[tag][2] {
			t.Fatalf("two Envs share the env %#x", sa[tag][2])
		}
		if !onLuaJIT && (sa[tag][0] != sa[tag][2] || sb[tag][0] != sb[tag][2]) {
			t.Errorf("%s: extra spaces %#x, %#x for envs %#x, %#x", tag,
				sa[tag][0], sb[tag][0], sa[tag][2], sb[tag][2])
		}
	}
}

// A panic in a Go function called inside a coroutine, on the dispatcher's
// common path (the thread already recorded, nothing queued), restores the
// caller's thread and the call depth from the frame: the next top-level
// Env call runs on the main thread, not on the dead coroutine, and a
// thousand caught panics leave the depth where it was.
func TestPanicInACoroutineRestoresTheCallersThreadAndDepth(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("boom", func(n int) int { panic("kaboom") }))
	must(t, e.SetGlobal("depth", func() int { return 1 }))
	for i := 0; i < 3; i++ {
		// boom is the last Go call: nothing resets the thread after it
		run(t, e, `
			assert(depth() == 1) -- the thread recorded: boom takes the common path
			local co = coroutine.create(function() return boom(1) end)
			local ok, err = coroutine.resume(co)
			assert(not ok and tostring(err):find("kaboom", 1, true), tostring(err))`)
		run(t, e, `
			local co, ismain = coroutine.running()
			assert(co == nil or ismain, "a top-level call runs on a coroutine after a panic in it")`)
	}
	run(t, e, `
		for i = 1, 1000 do
			local co = coroutine.create(function() return boom(i) end)
			local ok, err = coroutine.resume(co)
			assert(not ok and tostring(err):find("kaboom", 1, true), tostring(err))
		end
		-- the depth came back each time: nesting up to the bound still works
		local function nest(k) if k == 0 then return 0 end return depth() + nest(k - 1) end
		assert(nest(100) == 100)`)
}

// What __gc functions queue for Go while a chunk runs (a collected Go
// function closure, object userdata, struct companion) is taken at the
// next Lua→Go call of that chunk: the dispatcher's common path tests one
// word that every queue push sets (zlua_env.queued), and a push that did
// not set it would leave the release for the chunk's end.
func TestReleasesQueuedByCollectionAreTakenAtTheNextGoCall(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("newfunc", func() func() int { return func() int { return 1 } }))
	must(t, e.SetGlobal("newobj", func() *Player { return &Player{Name: "p"} }))
	must(t, e.SetGlobal("newrec", func() Record { return Record{Name: "r", Tags: []string{"a"}} }))
	must(t, e.SetGlobal("live", func() (int, int, int) {
		st := e.Stats()
		return st.LiveFuncs, st.LiveObjects, st.LiveStructs
	}))
	// the types bound once, then one of each kept across chunks
	run(t, e, `newfunc(); newobj(); newrec(); collectgarbage(); collectgarbage()`)
	run(t, e, `kf, ko, ks = newfunc(), newobj(), newrec()`)
	before := e.Stats()
	// one kind at a time: a drain takes all three queues
	run(t, e, `
		live() -- the chunk's first Go call records the thread (dispatchSlow)
		kf = nil; collectgarbage(); collectgarbage()
		f = {live()} -- the common path, unless something is queued
		ko = nil; collectgarbage(); collectgarbage()
		o = {live()}
		ks = nil; collectgarbage(); collectgarbage()
		s = {live()}`)
	var f, o, s []int
	must(t, e.Global("f", &f))
	must(t, e.Global("o", &o))
	must(t, e.Global("s", &s))
	b := []int{before.LiveFuncs, before.LiveObjects, before.LiveStructs}
	want := [][]int{{b[0] - 1, b[1], b[2]}, {b[0] - 1, b[1] - 1, b[2]}, {b[0] - 1, b[1] - 1, b[2] - 1}}
	for i, got := range [][]int{f, o, s} {
		if len(got) != 3 || got[0] != want[i][0] || got[1] != want[i][1] || got[2] != want[i][2] {
			t.Errorf("%s collected: live funcs, objects, structs at the next Go call %v, want %v",
				[]string{"a Go function", "an object", "a struct copy"}[i], got, want[i])
		}
	}
}
