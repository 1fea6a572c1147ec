-- A sample of pattern calls whose printed results testdata/patterns_sample*.golden
-- record from the stock interpreters:
--   lua5.4 -e 'dofile("testdata/patterns_sample.lua") io.write(sample_output)' > testdata/patterns_sample.golden
--   luajit -e 'dofile("testdata/patterns_sample.lua") io.write(sample_output)' > testdata/patterns_sample_luajit.golden
-- TestPatternSampleMatchesTheStockInterpreters runs it through zlua.
local out = {}
local function p(...) local t = { n = select("#", ...), ... } for i = 1, t.n do t[i] = type(t[i]) == "string" and string.format("%q", t[i]) or tostring(t[i]) end out[#out+1] = table.concat(t, " ") end
local function try(f, ...) p(pcall(f, ...)) end
try(string.find, "hello world", "o w")
try(string.find, "hello world", "(o)%s(w)")
try(string.find, "hello", "l+", -2)
try(string.find, "hello", "", 10)
try(string.find, "abc", "b", 1e10)
try(string.match, "key = value", "^(%w+)%s*=%s*(%w+)$")
try(string.match, "  trim  ", "^%s*(.-)%s*$")
try(string.match, "THE (quick) fox", "%((%a+)%)")
try(string.match, "f(a(b)c)d", "%b()")
try(string.match, "THE quick", "%f[%a]%a+", 4)
try(string.match, "aaa", "()a()")
try(string.match, "abab", "(ab)%1")
try(string.match, "a\0b", "%z")
try(string.match, "x", "[%")
try(string.match, "x", "(x")
try(string.match, "x", "%b")
try(string.match, ("a"):rep(201), ("a?"):rep(200))
try(string.gsub, "hello world", "o", "0")
try(string.gsub, "hello world", "(%w+)", "<%1>")
try(string.gsub, "hello world", "%w+", "%0 %0", 1)
try(string.gsub, "abc", "", "-")
try(string.gsub, "abc", "%w*", "x")
try(string.gsub, "abc", "b", "%")
try(string.gsub, "abc", "b", "%2")
try(string.gsub, "abc", "%w", {a = 1, b = true})
try(string.gsub, "abc", "%w", function(c) return c:upper() .. "." end)
local g = {} for a, b in ("k1=v1, k2=v2"):gmatch("(%w+)=(%w+)") do g[#g+1] = a .. ":" .. b end p(table.concat(g, ","))
local h = {} for w in ("abc"):gmatch("%a*") do h[#h+1] = "[" .. w .. "]" end p(table.concat(h))
local k = {} for w in ("one two three"):gmatch("%a+", 5) do k[#k+1] = w end p(table.concat(k, ","))
try(string.gmatch)
try(string.find, "abc", "b", {})
sample_output = table.concat(out, "\n") .. "\n"
