-- What a script's debug hook sees of library calls that zlua serves with
-- Lua functions on LuaJIT (pairs, ipairs, xpcall, the C stack wrappers of
-- print, os.time, table.sort, require, dofile, load, loadstring and
-- coroutine.resume/wrap, gmatch's iterator): the events must be stock's,
-- as if those functions were the library's C functions (outside probe
-- A2-F1, A2-F2). On Lua 5.4 zlua's replacements are C functions already.
-- hookwrappers-lua54.golden and hookwrappers-luajit.golden are what stock
-- lua5.4 and luajit print, from the repository root, for
--   <interpreter> -e 'dofile("testdata/hookwrappers.lua") io.stderr:write(result, "\n")' 2>golden >/dev/null
-- (print's own output goes to stdout).
-- LuaJIT's hooks do not fire in compiled code, and whether a short loop
-- here gets compiled depends on where its bytecode lies (hot counters are
-- shared by address): the JIT is off, so the events do not vary from run
-- to run (in stock as in zlua).
if jit then jit.off() jit.flush() end
local out = {}
local function p(s) out[#out + 1] = s end
local loadstring = loadstring or load
package.preload["hookwrappers_mod"] = function() local x = 1 return x end
package.loaded["hookwrappers_mod"] = nil -- (the test runs the file twice)

-- Every event with the function's source, name and kind (level 2 is the
-- function the event is about).
local ev
local function logger(e, l)
	local i = debug.getinfo(2, "Sn")
	ev[#ev + 1] = e .. ":" .. tostring(l) .. ":" .. i.short_src .. ":" .. tostring(i.name) .. ":" .. i.what
end
local function record(name, mask, f)
	ev = {}
	debug.sethook(logger, mask)
	f()
	debug.sethook()
	p(name .. " " .. mask .. " " .. #ev)
	for _, e in ipairs(ev) do p("  " .. e) end
end

-- A2-F1: pairs, ipairs, xpcall.
record("iterators", "cl", function()
	local t = {10, 20}
	for k, v in pairs(t) do end
	for i, v in ipairs(t) do end
	xpcall(function() end, print)
end)

-- A2-F2: one line of wrapped calls is one line event.
record("one line", "l", function()
	local t = {3, 1, 2}
	print("a") print("b") os.time() table.sort(t) local x = tostring(1)
end)

-- A2-F2: where LuaJIT does report the line again (a Lua function ran
-- last: a tail call, xpcall's function, a metamethod) and where it does
-- not (coroutine.resume), in loops on one line.
local function tailtime() return os.time() end
local function tailpairs(t) return pairs(t) end
local function none() return 1 end
local function bad() os.time({}) end
record("again", "l", function()
	tailtime() local z = 1
	tailpairs({}) local z = 1
	xpcall(none, print) local a = 1
	for i = 1, 2 do xpcall(none, print) end
	for i = 1, 2 do local co = coroutine.create(bad) coroutine.resume(co) end
	for i = 1, 2 do pcall(coroutine.wrap(bad)) end
	for i = 1, 2 do local co = coroutine.wrap(function() end) co() end
	local t = setmetatable({}, {__index = function(t, k) return os.time() end}) local x = t.a local y = t.b
	local u = setmetatable({}, {__index = rawlen or tostring}) local x = u[1] local y = 1
end)

-- Calls through pcall, callbacks, coroutines, loaders, loops on one line,
-- errors, metamethods; under each mask.
local function one() print("one") end
local function cmp(a, b) return a > b end
local function calls()
	local t = {3, 1, 2}
	pcall(print, "y") local s = 1
	pcall(error, "e") local s = 2
	for i = 1, 2 do print(i) end
	for i = 1, 2 do one() end
	table.sort(t, cmp) local z = 1
	table.sort(t, function(a, b) os.time() return a < b end)
	local f = coroutine.wrap(function() os.time() coroutine.yield(1) os.time() end) f() f()
	local co = coroutine.create(function() os.time() end) coroutine.resume(co)
	for w in ("a b"):gmatch("%a") do end
	for k, v in pairs(t) do end for i, v in ipairs(t) do end
	local g = load("return 1") g()
	local g = loadstring("return 1") g()
	local m = require("hookwrappers_mod") local m2 = require("hookwrappers_mod")
	dofile("testdata/hello.lua")
	xpcall(function() error("x") end, function(e) return e end)
	xpcall(print, print, "xp")
	print(
		"multi"
	)
	local ok = pcall(os.time, {}) local q = 1
	setmetatable(t, {__index = function(t, k) return k end}) local r = t.foo
	setmetatable(t, {__index = tostring}) local r = t[5]
end
for _, mask in ipairs({"l", "c", "r", "cl", "lr", "clr"}) do
	record("calls", mask, calls)
end

-- A2-F1: a count hook counts no instruction of a wrapper.
local n = 0
debug.sethook(function() n = n + 1 end, "", 1)
print("x") os.time()
debug.sethook()
p("count 1 | " .. n)
n = 0
local t = {3, 1, 2}
debug.sethook(function() n = n + 1 end, "", 1)
for i = 1, 10 do print("x") os.time() table.sort(t) local a = tostring(i) for k in pairs(t) do end end
debug.sethook()
p("count 1 loop | " .. n)

result = table.concat(out, "\n")
