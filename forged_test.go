package zlua_test

import (
	"context"
	"testing"
	"time"
)

// Every C function zlua installs that a LibsAll script can reach (with
// debug.getupvalue/setupvalue, debug.getregistry, debug.getmetatable,
// debug.setmetatable, debug.getlocal) must treat what the script can
// replace as untrusted: a forged call is a Lua error or a no-op, never a
// crash. Each chunk below crashed the process (or corrupted memory) when
// zlua trusted a pointer or a type it found there.

// forgeryLib is Lua shared by the tests: every light userdata a script can
// get hold of, and zlua's marker key.
const forgeryLib = `
	local a, b = 1, 2
	local function f() return a + b end
	lights = { debug.upvalueid(f, 1), debug.upvalueid(f, 2) }
	function marker(ud)
		for k, v in pairs(debug.getmetatable(ud)) do
			if type(k) == "userdata" and type(v) == "userdata" then return k, v end
		end
	end
	function try(f, ...) return pcall(f, ...) end
`

func TestCoroutineFunctionsIgnoreForgedUpvalues(t *testing.T) {
	e := newEnv(t)
	run(t, e, forgeryLib+`
		for _, name in ipairs({"resume", "wrap", "create", "close", "status", "running"}) do
			local fn = coroutine[name]
			-- (LuaJIT's resume and wrap are zlua's Lua closures, cstack.c:
			-- forging theirs is TestForgedCStackWrapperUpvaluesRaiseLuaErrors)
			if jit and (name == "resume" or name == "wrap") then fn = nil end
			if fn then for i = 1, 3 do pcall(debug.setupvalue, fn, i, lights[1]) end end
		end
		local co = coroutine.create(function(a) return a + 1 end)
		local ok, v = coroutine.resume(co, 1)
		assert(ok and v == 2, "resume after setupvalue: " .. tostring(v))
		if not jit then -- (LuaJIT keeps its own wrap, which trusts its upvalue: see RELIABILITY.md)
			local w = coroutine.wrap(function() return 5 end)
			debug.setupvalue(w, 1, "not a thread")
			local ok2, err = pcall(w)
			assert(not ok2, "a wrap without its coroutine ran")
		end
		local w2 = coroutine.wrap(function() return 6 end)
		assert(w2() == 6)
	`)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	must(t, e.DoStringContext(ctx, `assert(select(2, coroutine.resume(coroutine.create(function() return 3 end))) == 3)`))
}

// On LuaJIT coroutine.resume and coroutine.wrap are Lua closures (the C
// stack bound, cstack.c) whose upvalues debug.setupvalue can replace, as
// any Lua function's: a forged upvalue then gives a Lua error, never a
// crash, and the Env stays usable.
func TestForgedCStackWrapperUpvaluesRaiseLuaErrors(t *testing.T) {
	e := newEnv(t)
	run(t, e, forgeryLib+`
		for _, name in ipairs({"resume", "wrap"}) do
			for i = 1, 5 do pcall(debug.setupvalue, coroutine[name], i, lights[1]) end
		end
		local co = coroutine.create(function(a) return a + 1 end)
		R1 = {pcall(coroutine.resume, co, 1)}
		R2 = {pcall(function() return coroutine.wrap(function() return 6 end)() end)}
		assert(#R1 >= 2 and #R2 >= 2)
		if not jit then assert(R1[1] and R1[2] and R1[3] == 2 and R2[1] and R2[2] == 6) end
	`)
	run(t, e, `x = 1`)
}

func TestDispatcherRefusesCallsFromLua(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("inner", func() error { return e.DoString(`probe()`) }))
	run(t, e, forgeryLib+`
		local fns = {}
		for k, v in pairs(debug.getregistry()) do
			if type(v) == "function" then fns[#fns + 1] = v end
		end
		local refused = 0
		local function attack(args)
			for _, fn in ipairs(fns) do
				for _, a in ipairs(args) do
					for op = 0, 40 do
						local ok, err = pcall(fn, a, op)
						if not ok and tostring(err):find("not callable from Lua") then refused = refused + 1 end
						pcall(fn, op, a)
					end
				end
			end
		end
		attack(lights)
		-- the light userdata of a running operation, read from its frame
		function probe()
			local found = {}
			for level = 1, 30 do
				for i = 1, 10 do
					local ok, name, v = pcall(debug.getlocal, level, i)
					if ok and name and type(v) == "userdata" and getmetatable(v) == nil then
						found[#found + 1] = v
					end
				end
			end
			attack(found)
		end
		inner()
		assert(refused > 0, "the dispatcher did not refuse any forged call")
	`)
	must(t, e.SetGlobal("after", 1))
	if global[int](t, e, "after") != 1 {
		t.Fatal("Env unusable after forged dispatcher calls")
	}
}

func TestFinalizersIgnoreForgedMetatables(t *testing.T) {
	e := newEnv(t)
	thing := &sharedThing{}
	must(t, e.SetGlobal("thing", thing))
	must(t, e.SetGlobal("gf", func() int { return 7 }))
	must(t, e.SetGlobal("rec", Record{Name: "r", Tags: []string{"a"}}))
	run(t, e, forgeryLib+`
		local sentinel = select(2, debug.getupvalue(gf, 1))
		for _, ud in ipairs({thing, sentinel, rec}) do
			local real = debug.getmetatable(ud)
			local key = marker(ud)
			for _, fake in ipairs(lights) do
				local forged = {[key] = fake, __gc = real.__gc, __name = "forged"}
				debug.setmetatable(ud, forged)
				pcall(real.__gc, ud)
				debug.setmetatable(ud, real)
			end
		end
		assert(gf() == 7, "Go function released through a forged metatable")
		assert(thing:Bump() == 1, "object released through a forged metatable")
		assert(rec.Name == "r", "companion released through a forged metatable")
	`)
}

func TestStructMetamethodsIgnoreForgedUpvalues(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("v", Sample{I32: 5, F64: 2.5}))
	must(t, e.SetGlobal("w", Vec3{1, 2, 3}))
	must(t, e.SetGlobal("p", &Player{Name: "ann", HP: 3}))
	run(t, e, forgeryLib+`
		local mt = debug.getmetatable(v)
		local values = {42, "s", {}, io.stdout, w, p, lights[1], {I32 = 0x7fffff03, Zz = -1}}
		for _, fn in ipairs({mt.__index, mt.__newindex}) do
			for i = 1, 5 do
				local name, saved = debug.getupvalue(fn, i)
				if name then
					for _, x in ipairs(values) do
						debug.setupvalue(fn, i, x)
						try(function() return v.I32, v.F64, v.Zz, v.score end)
						try(function() v.I32 = 7 v.F64 = "x" v.Zz = 1 end)
					end
					debug.setupvalue(fn, i, saved)
				end
			end
		end
		assert(v.I32 == 7 or v.I32 == 5, "field value lost: " .. tostring(v.I32))
		local pmt = debug.getmetatable(p)
		for i = 1, 3 do
			local name, saved = debug.getupvalue(pmt.__index, i)
			if name then
				for _, x in ipairs(values) do
					debug.setupvalue(pmt.__index, i, x)
					try(function() return p.Name, p:Health() end)
				end
				debug.setupvalue(pmt.__index, i, saved)
			end
		end
		assert(p.Name == "ann" and w.Y == 2)
	`)
}

func TestRegistryTamperingIsNotACrash(t *testing.T) {
	// zlua's tables first (its dispatcher and message handler still
	// work, so the operations reach the code using the tables), then its
	// functions and userdata.
	for _, kinds := range []string{`{table = true}`, `{["function"] = true, userdata = true}`} {
		e := newEnv(t)
		must(t, e.SetGlobal("thing", &sharedThing{}))
		run(t, e, `
			local kinds = `+kinds+`
			local reg = debug.getregistry()
			for k, v in pairs(reg) do
				if type(k) == "number" and k > 2 and kinds[type(v)] then reg[k] = 42 end
			end`)
		// Every operation below may fail (zlua's own entries are gone),
		// none may crash; the Env still closes.
		_ = e.SetGlobal("thing2", &sharedThing{})
		_ = e.SetGlobal("gf", func() int { return 1 })
		_ = e.SetGlobal("vec", Vec3{1, 2, 3})
		_ = e.SetGlobal("rec", Record{Name: "x"})
		_ = e.DoString(`error({})`)
		_ = e.DoString(`error("plain")`)
		_ = e.DoString(`local t = thing; thing = nil; collectgarbage() collectgarbage()`)
		var s string
		_ = e.Global("thing2", &s)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_ = e.DoStringContext(ctx, `xpcall(error, tostring) debug.sethook(function() end, "l") debug.sethook()`)
		cancel()
	}
}
