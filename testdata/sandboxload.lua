-- The sandbox's load and collectgarbage (LibsSafe) as scripts see them:
-- text chunks only and no option that stops or retunes the collector, and
-- otherwise the stock functions' checks, words and results.
-- sandboxload-lua54.golden and sandboxload-luajit.golden are what stock
-- lua5.4 and luajit print for `dofile("testdata/sandboxload.lua") print(result)`.
local out = {}
local function p(...)
	local t = { n = select("#", ...), ... }
	for i = 1, t.n do
		t[i] = tostring(t[i]):gsub("0x%x+", "ADDR"):gsub("^function: %x+$", "function: ADDR")
	end
	out[#out + 1] = table.concat(t, " | ")
end
p(pcall(load, 123))
p(pcall(load))
p(pcall(load, {}))
p(load("return 1", nil, "b"))
p(load("return 1", nil, "x"))
p(pcall(load, "return 1", 5))
p(pcall(load, "return 1", {}))
p(pcall(load, "return 1", "c", {}))
p(load("return 1", "c", 7))
p(load("return 1", "c", "t")())
p(load("return 1", "c", "bt")())
p(load(function() return nil end, "c", "b"))
local parts, i = { "return ", "2" }, 0
p(load(function() i = i + 1 return parts[i] end, "=r", "t")())
p(load("syntax error here", "=named"))
p(pcall(load, {}, {}, {}))
p(pcall(load, {}, {}))
local nums, j = { "return ", 4, 2 }, 0
p(load(function() j = j + 1 return nums[j] end)())
p(load("return ...", "=c")(1, 2))
p(pcall(collectgarbage, "bogus"))
p(pcall(collectgarbage, "step", 1.5))
p(pcall(collectgarbage, "step", {}))
p(type(collectgarbage("count")), type(collectgarbage("step")), collectgarbage())
result = table.concat(out, "\n")
