-- string.rep and the table functions as scripts see them. On Lua 5.4 zlua
-- replaces rep, move, insert, remove and concat (cgo/guards.c) so that a
-- limited call can stop their loops (sort is the stock one: the hurried
-- hook's call events stop a C comparator, cgo/hook.c); results,
-- errors and the order of metamethod calls must stay the stock functions'.
-- guards-lua54.golden and guards-luajit.golden are what stock lua5.4 and
-- luajit print for `dofile("testdata/guards.lua") print(result)`. (The
-- loops stock Lua cannot leave, string.rep("", 1e15) and table.move({},
-- 1, 1e15, 1), are in TestGuardedLoopsStopAtTheDeadline instead.)
local out = {}
local function clean(s)
	s = s:gsub("[^\n\t ]*guards%.lua:%d+: ", ""):gsub("[^\n\t ]*%(dostring%):%d+: ", "")
	return s
end
local function show(v)
	if type(v) == "table" then
		local keys = {}
		for k in pairs(v) do keys[#keys + 1] = k end
		table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
		local parts = {}
		for _, k in ipairs(keys) do parts[#parts + 1] = tostring(k) .. "=" .. tostring(v[k]) end
		return "{" .. table.concat(parts, ",") .. "}"
	end
	return clean(tostring(v))
end
local function p(...)
	local t = { n = select("#", ...), ... }
	for i = 1, t.n do t[i] = show(t[i]) end
	out[#out + 1] = table.concat(t, " | ")
end

-- string.rep
p(pcall(string.rep, "ab", 3))
p(pcall(string.rep, "ab", 3, ","))
p(pcall(string.rep, "", 5))
p(pcall(string.rep, "", 5, ""))
p(pcall(string.rep, "", 3, "-"))
p(pcall(string.rep, "x", 0))
p(pcall(string.rep, "x", -5))
p(pcall(string.rep, 12, 2))
p(pcall(string.rep, "x", 2, 3))
p(pcall(string.rep, "x", "2"))
p(pcall(string.rep, "x", 1.5))
p(pcall(string.rep, "x"))
p(pcall(string.rep))
p(pcall(string.rep, {}, 1))
p(pcall(string.rep, "", 2, {}))
p(pcall(string.rep, "x", math.maxinteger))
p(pcall(string.rep, "xy", 2^62, "z"))
p(pcall(function() return ("x"):rep(nil) end))
p(pcall(function() return ("-"):rep(4, "+") end))
p(select("#", string.rep("", 10)))

-- table.move
local log = {}
local function logged(name)
	return setmetatable({}, {
		__index = function(_, k) log[#log + 1] = name .. "[" .. k .. "]" return k * 10 end,
		__newindex = function(t, k, v) log[#log + 1] = name .. "[" .. k .. "]=" .. tostring(v) rawset(t, k, v) end,
	})
end
p(pcall(table.move, {1, 2, 3}, 1, 3, 2))
p(pcall(table.move, {1, 2, 3}, 2, 3, 1))
p(pcall(table.move, {1, 2, 3, 4, 5}, 1, 3, 3))
p(pcall(table.move, {1, 2, 3}, 1, 3, 1, {}))
p(pcall(table.move, {1, 2, 3}, 3, 1, 1, {}))
p(pcall(table.move, {1, 2, 3}, 1, 0, 5))
p(pcall(table.move, {}, 1, 3, 1))
p(pcall(table.move, {1, 2}, -1, 2, 1, {}))
if _VERSION == "Lua 5.4" then -- LuaJIT moves 2^63 elements (for ever)
	p(pcall(table.move, {}, math.mininteger, -1, 1))
	p(pcall(table.move, {}, 0, math.maxinteger, 1))
end
p(pcall(table.move, {}, 1, 10, math.maxinteger))
p(pcall(table.move, {}, 1, 1, math.maxinteger))
p(pcall(table.move, 1, 1, 2, 1))
p(pcall(table.move, {}, 1, 2, 1, "x"))
p(pcall(table.move, {}, "a", 2, 1))
p(pcall(table.move, {}, 1, nil, 1))
p(pcall(table.move, {}, 1, 2))
p(pcall(table.move, {}, 1.5, 2, 1))
p(pcall(table.move))
p(pcall(table.move, setmetatable({}, {}), 1, 2, 1))
p(pcall(table.move, {}, 1, 2, 1, setmetatable({}, {__index = {}})))
local src = logged("s")
log = {}
p(pcall(table.move, src, 1, 3, 2))
p(table.concat(log, " "))
log = {}
local dst = logged("d")
p(pcall(table.move, src, 1, 3, 2, dst))
p(table.concat(log, " "))
log = {}
local both = logged("b")
p(pcall(table.move, both, 2, 4, 1))
p(table.concat(log, " "))
local same = {1, 2, 3}
p(table.move(same, 1, 3, 1) == same, table.move(same, 1, 3, 1, {}) ~= same)
local eqlog = {}
local mt = {__eq = function() eqlog[#eqlog + 1] = "eq" return true end}
local e1, e2 = setmetatable({1, 2, 3}, mt), setmetatable({}, mt)
p(pcall(table.move, e1, 1, 3, 2, e2))
p(#eqlog, e2[2], e2[3], e2[4])

-- table.insert and table.remove
local function ins(t, ...) local ok, err = pcall(table.insert, t, ...) return ok, ok and t or err end
p(ins({1, 2, 3}, 9))
p(ins({1, 2, 3}, 1, 9))
p(ins({1, 2, 3}, 4, 9))
p(ins({1, 2, 3}, 2, 9))
p(ins({1, 2, 3}, 5, 9))
p(ins({1, 2, 3}, 0, 9))
p(ins({1, 2, 3}, -1, 9))
p(ins({1, 2, 3}, 1.5, 9))
p(ins({1, 2, 3}, "2", 9))
p(ins({1, 2, 3}, "x", 9))
p(ins({1, 2, 3}, 1, 2, 3))
p(ins({1, 2, 3}))
p(ins({}, nil))
p(pcall(table.insert))
p(pcall(table.insert, 5, 1))
p(pcall(table.insert, setmetatable({}, {__index = {}}), 1))
p(pcall(table.insert, setmetatable({}, {__len = function() return "x" end}), 1))
p(pcall(table.insert, setmetatable({}, {__len = function() return 2.5 end}), 1))
p(pcall(table.insert, setmetatable({}, {__len = function() return "3" end}), 1))
local function pack(...) return { n = select("#", ...), ... } end
local function rem(t, ...) local r = pack(pcall(table.remove, t, ...)) return r[1], r[2], r.n, t end
p(rem({1, 2, 3}))
p(rem({1, 2, 3}, 1))
p(rem({1, 2, 3}, 3))
p(rem({1, 2, 3}, 4))
p(rem({1, 2, 3}, 5))
p(rem({1, 2, 3}, 0))
p(rem({}, 0))
p(rem({}))
p(rem({}, -1))
p(rem({[0] = "z"}, 0))
p(rem({1, 2, 3}, "1"))
p(rem({1, 2, 3}, 1.5))
p(pcall(table.remove))
p(pcall(table.remove, "x"))
log = {}
local lt = setmetatable({}, {
	__len = function() log[#log + 1] = "len" return 3 end,
	__index = function(_, k) log[#log + 1] = "get" .. k return k end,
	__newindex = function(t, k, v) log[#log + 1] = "set" .. k .. "=" .. tostring(v) end,
})
p(pcall(table.insert, lt, 2, "v"))
p(table.concat(log, " "))
log = {}
p(pcall(table.remove, lt, 2))
p(table.concat(log, " "))
log = {}
p(pcall(table.insert, lt, "w"))
p(table.concat(log, " "))
log = {}
p(pcall(table.remove, lt))
p(table.concat(log, " "))
-- table.concat
p(pcall(table.concat, {1, 2, 3}))
p(pcall(table.concat, {1, 2, 3}, ", "))
p(pcall(table.concat, {1, 2, 3}, ", ", 2))
p(pcall(table.concat, {1, 2, 3}, ", ", 2, 3))
p(pcall(table.concat, {1, 2, 3}, ", ", 3, 2))
p(pcall(table.concat, {1, 2, 3}, ", ", 3, 3))
p(pcall(table.concat, {1, 2.5, "x", 2^63}))
p(pcall(table.concat, {}))
p(pcall(table.concat, {}, "-"))
p(pcall(table.concat, {1, {}, 3}))
p(pcall(table.concat, {1, nil, 3}, "", 1, 3))
p(pcall(table.concat, {1, 2}, {}))
p(pcall(table.concat, {1, 2}, 7))
p(pcall(table.concat, {1, 2}, "", "x"))
p(pcall(table.concat, {1, 2}, "", 1.5))
p(pcall(table.concat, {1, 2}, "", 1, "2"))
p(pcall(table.concat, {1, 2}, nil, nil, 1))
p(pcall(table.concat))
p(pcall(table.concat, "abc"))
p(pcall(table.concat, setmetatable({}, {__index = {}})))
if math.maxinteger then -- Lua 5.4: the loop's bounds at the integer limits
	p(pcall(table.concat, {}, "", math.maxinteger - 1, math.maxinteger))
	p(pcall(table.concat, {[math.maxinteger] = "a", [math.maxinteger - 1] = "b"}, "-", math.maxinteger - 1, math.maxinteger))
	p(pcall(table.concat, {[math.mininteger] = "m"}, "", math.mininteger, math.mininteger))
end
p(pcall(function() return ("x"):rep(3, table.concat({1, 2}, "")) end))
log = {}
local ct = setmetatable({}, {
	__len = function() log[#log + 1] = "len" return 3 end,
	__index = function(_, k) log[#log + 1] = "get" .. k return "v" .. k end,
})
p(pcall(table.concat, ct, "+"))
p(table.concat(log, " "))
log = {}
p(pcall(table.concat, ct, {}))
p(table.concat(log, " "))
log = {}
p(pcall(table.concat, ct, "", 2, 5))
p(table.concat(log, " "))
p(pcall(table.concat, setmetatable({}, {__len = function() return 2.5 end})))
p(pcall(table.concat, setmetatable({}, {__len = function() return "2" end, __index = function(_, k) return k end})))

-- table.sort (stock on both backends; a C comparator is stopped by the hook's call events)
local function sorted(t, ...) local ok, err = pcall(table.sort, t, ...) return ok, ok and table.concat(t, ",") or err end
p(sorted({3, 1, 2}))
p(sorted({3, 1, 2}, function(a, b) return a > b end))
p(sorted({"b", "a", "c"}))
p(sorted({3, 1, 2}, math.max))
p(sorted({3, 1, 2}, rawequal))
p(sorted({{}, {}}, math.max))
p(sorted({3, 1, 2}, 5))
p(sorted({3, 1, 2}, nil))
p(sorted(5))
p(sorted({1, "x"}))
p(sorted({1, "x"}, math.max))
p(pcall(table.sort))
if math.ult then -- Lua 5.4: a C function that is an order
	p(sorted({5, 3, 9, 1, 7}, math.ult))
	p(sorted({1.5, 2}, math.ult))
	p(sorted({1, "x"}, math.ult))
	local perm = {}
	for i = 1, 300 do perm[i] = (i * 7919) % 300 end
	local okp = pcall(table.sort, perm, math.ult)
	local inorder = true
	for i = 2, #perm do inorder = inorder and perm[i - 1] <= perm[i] end
	p(okp, inorder, #perm, perm[1], perm[300])
end
-- no frame between the sort and a C comparator: error levels are the
-- stock ones (the wrapper zlua once put around a C comparator added one)
local function srt(t, c) table.sort(t, c) return true end
p("level 1 positioned:", (select(2, pcall(srt, {1, "m"}, error))):find(":%d+: m$") ~= nil)
p("level 2 positioned:", (select(2, pcall(srt, {2, "m"}, error))):find(":%d+: m$") ~= nil)
p("level 3 positioned:", (select(2, pcall(srt, {3, "m"}, error))):find(":%d+: m$") ~= nil)
local args = {}
p(pcall(table.sort, {2, 1}, function(...) args[#args + 1] = select("#", ...) return (...) < select(2, ...) end))
p(#args > 0, args[1])
result = table.concat(out, "\n")
