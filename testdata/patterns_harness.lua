-- Differential harness for zlua's pattern functions. STOCK holds the
-- backend's original string.find/match/gmatch/gsub (export_test.go puts
-- it there), and the string table holds zlua's. both(label, f, ...) runs
-- f twice, once with the stock functions installed in the string table and
-- once with zlua's, so every call site (string.find(...), s:find(...),
-- a captured local, pcall(string.find, ...)) is the same source line with
-- the same function names, and compares results, error messages and the
-- calls f made to gsub replacement functions. Differences go to
-- `mismatches`; `ncases` counts comparisons.
local names = { "find", "match", "gmatch", "gsub" }
local ZLUA = {}
for _, n in ipairs(names) do ZLUA[n] = string[n] end
local fmt, concat, select, type, tostring = string.format, table.concat, select, type, tostring
local mtype = math.type

mismatches, ncases = {}, 0
log = {} -- replacement functions append what they receive here

local function install(t)
  for _, n in ipairs(names) do string[n] = t[n] end
end

local function show(v)
  local t = type(v)
  if t == "string" then return fmt("%q", v) end
  if t == "number" and mtype then return mtype(v) .. ":" .. tostring(v) end
  if t == "table" or t == "function" then return t end
  return t .. ":" .. tostring(v)
end

local function pack(...)
  local n = select("#", ...)
  local out = { tostring(n) }
  for i = 1, n do out[#out + 1] = show((select(i, ...))) end
  return concat(out, " ")
end

local function run(impl, f, ...)
  install(impl)
  log = {}
  local r = pack(pcall(f, ...))
  local l = concat(log, "|")
  install(ZLUA)
  return r, l
end

function both(label, f, ...)
  ncases = ncases + 1
  local r1, l1 = run(STOCK, f, ...)
  local r2, l2 = run(ZLUA, f, ...)
  if r1 ~= r2 or l1 ~= l2 then
    local args = {}
    for i = 1, select("#", ...) do args[#args + 1] = show((select(i, ...))) end
    mismatches[#mismatches + 1] = fmt("%s(%s):\n  stock: %s %s\n  zlua:  %s %s",
      label, concat(args, ", "), r1, l1, r2, l2)
  end
end

-- The operations, written as scripts write them. Each one's body is on
-- its own line, the same for both runs.
ops = {}
function ops.find(s, p, i, plain) return string.find(s, p, i, plain) end
function ops.findm(s, p, i, plain) return s:find(p, i, plain) end
function ops.match(s, p, i) return string.match(s, p, i) end
function ops.matchm(s, p, i) return s:match(p, i) end
function ops.pfind(...) return pcall(string.find, ...) end
function ops.pgsub(...) return pcall(string.gsub, ...) end
function ops.local_find(s, p) local find = string.find return find(s, p) end
function ops.gmatch(s, p, i)
  local out, n = {}, 0
  for a, b, c in string.gmatch(s, p, i) do
    n = n + 1
    out[n] = pack(a, b, c)
    if n == 100 then break end
  end
  return n, concat(out, ";")
end
function ops.gmatchm(s, p)
  local out, n = {}, 0
  for a in s:gmatch(p) do
    n = n + 1
    out[n] = show(a)
    if n == 100 then break end
  end
  return n, concat(out, ";")
end
function ops.gsub(s, p, r, n) return string.gsub(s, p, r, n) end
function ops.gsubm(s, p, r) return s:gsub(p, r) end

-- Replacement functions for gsub: each logs its arguments.
repl = {}
local function logargs(...) log[#log + 1] = pack(...) end
repl.upper = function(a, ...) logargs(a, ...) return type(a) == "string" and a:upper() or a end
repl.none = function(...) logargs(...) end
repl.fals = function(...) logargs(...) return false end
repl.num = function(...) logargs(...) return 42.5 end
repl.tab = function(...) logargs(...) return {} end
repl.err = function(...) logargs(...) error("boom") end
repl.errt = function(...) logargs(...) error({}) end
