-- xpcall as scripts see it. zlua replaces it so that a message handler
-- cannot outlive a limited call's context; results, messages, tracebacks
-- and yields must stay the stock function's, inside limited calls too.
-- xpcall-lua54.golden and xpcall-luajit.golden are what stock lua5.4 and
-- luajit print for `dofile("testdata/xpcall.lua") print(result)`.
local out = {}
local function clean(s)
	-- chunk names and what runs the chunk differ between dofile and zlua
	s = s:gsub("[^\n\t ]*xpcall%.lua", "chunk"):gsub("[^\n\t ]*%[string [^\n]-%]", "chunk"):gsub("[^\n\t ]*%(dostring%)", "chunk")
	return (s:gsub("(in main chunk).*", "%1"))
end
local function p(...)
	local t = { n = select("#", ...), ... }
	for i = 1, t.n do t[i] = clean(tostring(t[i])) end
	out[#out + 1] = table.concat(t, " | ")
end
local function id(e) return e end

p(xpcall(function(...) return select("#", ...), ... end, id, 1, nil, 3))
p(xpcall(function() error("plain") end, id))
p(xpcall(function() error({ code = 1 }) end, function(e) return type(e) .. e.code end))
p(xpcall(function() error("msg", 0) end, function(e) return "handled: " .. e end))
p(xpcall(function() local t = nil return t.x end, id))
p(xpcall(error, id, "direct"))
p(xpcall(function() error("x") end, function() return 1, 2, 3 end))
p(pcall(xpcall))
p(pcall(xpcall, print))
p(pcall(xpcall, print, 42))
p(pcall(function() return xpcall(print) end))
p(select("#", xpcall(function() end, id)))
p(xpcall(function() error("tb") end, debug.traceback))
p(xpcall(function() error("tb2") end, function(e) return debug.traceback(e, 1) end))
p(xpcall(function() error("tb3") end, function(e) local tb = debug.traceback(e) return tb end))
-- an error in the handler
p(xpcall(function() error("first") end, function(e) error("second") end))
-- nested xpcall inside a handler
p(xpcall(function() error("outer") end, function(e)
	local ok, inner = xpcall(function() error("inner", 0) end, id)
	return e .. " / " .. tostring(ok) .. " " .. inner
end))
-- the handler runs once per error
local calls = 0
xpcall(function() error("once") end, function(e) calls = calls + 1 return e end)
p("handler calls", calls)
-- yields across xpcall
local co = coroutine.wrap(function(a)
	local ok, b = xpcall(function(x) return coroutine.yield(x + 1) * 2 end, id, a)
	local ok2, err = xpcall(function() coroutine.yield("again") error("after yield", 0) end, function(e) return "h:" .. e end)
	return ok, b, ok2, err
end)
p(co(1))
p(co(10))
p(co())
p(type(xpcall))
-- debug.traceback as the handler of a nil error: Lua 5.4 makes a
-- traceback of it, LuaJIT returns the nil (zlua's limited-call guard once
-- followed 5.4's rule on LuaJIT too)
p(select("#", xpcall(error, debug.traceback)), type(select(2, xpcall(error, debug.traceback))))
p(type(select(2, xpcall(function() error(nil) end, debug.traceback))))
p(type(select(2, xpcall(function() error({}) end, debug.traceback))))

result = table.concat(out, "\n")
