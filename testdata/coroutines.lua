-- The coroutine library's observable behaviour. zlua replaces resume, wrap
-- and close on Lua 5.4 (time limits); coroutines.golden is what stock lua5.4
-- prints for `dofile("testdata/coroutines.lua") print(result)`.
local out = {}
local function p(...) local t = table.pack(...) for i = 1, t.n do t[i] = tostring(t[i]) end out[#out+1] = table.concat(t, " | ") end
local co = coroutine.create(function(a, b) local c = coroutine.yield(a + b) local d, e = coroutine.yield(c * 2) return d + e end)
p(coroutine.resume(co, 1, 2)) p(coroutine.resume(co, 10)) p(coroutine.resume(co, 3, 4)) p(coroutine.resume(co)) p(coroutine.status(co))
p(pcall(coroutine.resume, 1))
p(pcall(coroutine.resume))
local self; self = coroutine.create(function() return coroutine.resume(self) end) p(coroutine.resume(self))
local outer = coroutine.create(function() local inner = coroutine.create(function() return coroutine.resume(outer) end) return coroutine.resume(inner) end) p(coroutine.resume(outer))
local e = coroutine.create(function() error("boom") end) p(coroutine.resume(e)) p(coroutine.status(e)) p(coroutine.resume(e))
local et = coroutine.create(function() error({}) end) local ok, v = coroutine.resume(et) p(ok, type(v))
local w = coroutine.wrap(function(x) local y = coroutine.yield(x) return y * 3 end) p(w(5)) p(w(7)) p(pcall(w))
local we = coroutine.wrap(function() error("werr") end) p(pcall(we))
local we2 = coroutine.wrap(function() error("werr2", 0) end) p(pcall(we2))
local wt = coroutine.wrap(function() error({}) end) local ok2, v2 = pcall(wt) p(ok2, type(v2))
p(pcall(coroutine.wrap, 1))
local c2 = coroutine.create(function() coroutine.yield() end) coroutine.resume(c2) p(coroutine.close(c2)) p(coroutine.status(c2))
p(pcall(coroutine.close, coroutine.running()))
p(pcall(coroutine.close, 5))
local many = coroutine.wrap(function(...) return select("#", ...), ... end) p(many(1, nil, 3, nil))
p(select("#", coroutine.resume(coroutine.create(function() end))))
-- close's own errors carry the position of the script's call, as stock's
-- (zlua's close once ran the stock one through lua_call, and lost it)
local function pos(s) return (tostring(s):gsub("^[^:]*coroutines%.lua:", "FILE:"):gsub("^%[string[^]]*%]:", "FILE:")) end
local ok, err = pcall(load("coroutine.close(coroutine.running())", "=(c)")) p(ok, err)
local ncl = coroutine.create(function() local me = coroutine.running() local w = coroutine.wrap(function() coroutine.close(me) end) w() end)
local okn, errn = coroutine.resume(ncl) p(okn, pos(errn))
local cle = coroutine.create(function() local x <close> = setmetatable({}, {__close = function() error("in close") end}) coroutine.yield() end)
coroutine.resume(cle) local okc, errc = coroutine.close(cle) p(okc, pos(errc))
p(coroutine.close(coroutine.create(print)))
result = table.concat(out, "\n")
