-- debug.sethook / debug.gethook as scripts see them. zlua replaces both so
-- that a script's hook and the time limit of a limited call coexist; the
-- results must stay the stock library's, inside limited calls too.
-- hooks-lua54.golden and hooks-luajit.golden are what stock lua5.4 and
-- luajit print for `dofile("testdata/hooks.lua") print(result)`. LuaJIT's
-- compiled code runs no hooks, and zlua runs limited calls interpreted, so
-- the JIT is off here (stock LuaJIT behaves so with the JIT off).
if jit then jit.off() jit.flush() end
local out = {}
local function p(...)
	local t = table.pack and table.pack(...) or { n = select("#", ...), ... }
	for i = 1, t.n do
		local v = t[i]
		t[i] = type(v) == "function" and "function" or tostring(v)
	end
	out[#out + 1] = table.concat(t, " | ")
end
local function case(name, f)
	local ok, err = pcall(f)
	debug.sethook()
	if not ok then p(name, "error", err) end
end

case("no hook", function() p("gethook", select("#", debug.gethook()), debug.gethook()) end)

case("values", function()
	local f = function() end
	debug.sethook(f, "l")
	local g, m, c = debug.gethook()
	p("l", g == f, m, c)
	debug.sethook(f, "crl", 5)
	g, m, c = debug.gethook()
	p("crl 5", g == f, m, c)
	debug.sethook(f, "", 7)
	g, m, c = debug.gethook()
	p("count 7", g == f, m, c)
	debug.sethook(f, "rc", -3)
	g, m, c = debug.gethook()
	p("rc -3", g == f, m, c)
	debug.sethook(f, "")
	p("empty", select("#", debug.gethook()), debug.gethook() == f)
	debug.sethook()
	p("off", select("#", debug.gethook()), debug.gethook())
end)

case("arguments", function()
	p(pcall(debug.sethook, function() end))
	p(pcall(debug.sethook, 1, "l"))
	p(pcall(debug.sethook, function() end, "l", "x"))
	p(pcall(debug.sethook, nil, "l"))
	p(select("#", debug.gethook()))
end)

case("lines", function()
	local lines = {}
	local function sample(n)
		local a = n
		for i = 1, 2 do
			a = a + i
		end
		return a
	end
	debug.sethook(function(ev, line) lines[#lines + 1] = ev .. ":" .. line end, "l")
	sample(1)
	debug.sethook()
	p(table.concat(lines, " "))
end)

case("calls", function()
	local events = {}
	local function leaf(n) return n + 1 end
	local function tail(n) return leaf(n) end
	local function rec(n) if n > 0 then return rec(n - 1) + tail(n) end return 0 end
	debug.sethook(function(ev)
		local info = debug.getinfo(2, "S")
		if info.what == "Lua" then events[#events + 1] = ev end
	end, "cr")
	rec(3)
	debug.sethook()
	p(table.concat(events, ","))
end)

local function counted(count, iterations)
	local n = 0
	debug.sethook(function(ev) n = n + 1 end, "", count)
	local x = 0
	for i = 1, iterations do x = x + i % 7 end
	debug.sethook()
	return n
end
case("counts", function()
	p("count 1", counted(1, 100))
	p("count 7", counted(7, 1000))
	p("count 999", counted(999, 10000))
	p("count 1000", counted(1000, 10000))
	p("count 1500", counted(1500, 20000))
	p("count 2500", counted(2500, 30000))
	p("count 100003", counted(100003, 200000))
end)

case("count and lines", function()
	local ev = {}
	local function f() local a = 1 local b = 2 return a + b end
	debug.sethook(function(e, line) ev[e] = (ev[e] or 0) + 1 end, "l", 3)
	for i = 1, 50 do f() end
	debug.sethook()
	p("line", ev.line, "count", ev.count)
end)

case("coroutine hook", function()
	local lines = {}
	local co = coroutine.create(function()
		local x = 1
		coroutine.yield()
		x = x + 1
		return x
	end)
	debug.sethook(co, function(ev, line) lines[#lines + 1] = line end, "l")
	local g, m = debug.gethook(co)
	p("co gethook", type(g), m)
	p("main gethook", select("#", debug.gethook()))
	coroutine.resume(co)
	local y = 1
	coroutine.resume(co)
	debug.sethook(co)
	debug.sethook()
	p("co lines", #lines > 0)
end)

case("inherited", function()
	local n = 0
	debug.sethook(function() n = n + 1 end, "l")
	local co = coroutine.create(function()
		local a = 1
		local b = 2
		return a + b
	end)
	local wrapped = coroutine.wrap(function()
		local a = 1
		return a
	end)
	local before = n
	coroutine.resume(co)
	wrapped()
	local inside = n - before
	local g, m, c = debug.gethook(co)
	debug.sethook()
	p("inherited", inside, type(g), m, c)
end)

case("error in hook", function()
	local raised = false
	debug.sethook(function()
		if not raised then raised = true error("from hook", 0) end
	end, "l")
	local ok, err = pcall(function()
		local x = 1
		return x
	end)
	debug.sethook()
	p("caught", ok, err)
end)

case("hook replaces itself", function()
	local n, m = 0, 0
	local function second() m = m + 1 end
	debug.sethook(function()
		n = n + 1
		if n == 3 then debug.sethook(second, "l") end
	end, "l")
	local a = 1
	a = a + 1
	a = a + 1
	a = a + 1
	a = a + 1
	debug.sethook()
	p("replaced", n, m)
end)

result = table.concat(out, "\n")
