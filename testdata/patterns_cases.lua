-- The table of cases the differential test runs through both() (see
-- patterns_harness.lua): every pattern on every subject with find, match,
-- gmatch and gsub, plus argument variants, malformed patterns and limits.
local subjects = {
  "", "a", "abc", "aaa", "hello world", "abcabc", "  trim me  ",
  "x=1, y=22, z=333", "THE (quick) [brown] {fox}", "a\0b\0c", "\0", "%a%",
  "f(a(b)c)d", "caf\195\169 \255\128\1", "a.b-c+d*e?f^g$h", "^$", "[]]",
  "1234567890", "key = value", "line1\nline2\r\n\tend", ("ab"):rep(10),
  "aaaaab", "((()))", "THE END", "0x1F 0Xab -12.5e3",
}

local patterns = {
  -- literals and plain text
  "", "a", "abc", "b", "world", "x", "\0", "a\0", "a\0b", "\0c", "lo w",
  -- classes
  ".", "%a", "%A", "%c", "%C", "%d", "%D", "%g", "%G", "%l", "%L", "%p",
  "%P", "%s", "%S", "%u", "%U", "%w", "%W", "%x", "%X", "%z", "%Z", "%.",
  "%%", "%]", "%-", "%q", "%\0", "%@",
  -- sets
  "[abc]", "[^abc]", "[a-z]", "[A-Z]+", "[%a_][%w_]*", "[]]", "[^]]", "[a-]",
  "[-a]", "[%]]", "[z-a]", "[%d-z]", "[%a-]", "[^%s]+", "[\0]", "[%z]",
  "[^%z]+", "[a%-z]+", "[]-a]", "[%%]", "[^^]", "[.]",
  -- quantifiers
  "a*", "a+", "a-", "a?", ".*", ".+", ".-", ".?", "a*b", "a-b", "a+b",
  "a?b", "%a*", "%a+", "%a-", "%d+", "%s*", "[ab]*", "[^a]*", "a.-c",
  "a.*c", "(a*)(b*)", "b*$", ".-$", "%s*(.-)%s*$", "[%w_]+", "x*", "x-",
  -- anchors
  "^a", "^", "^$", "$", "a$", "^abc$", "$a", "a$b", "^^", "^a*", "^%s*",
  "^(%w+)", "c$", "^.-$",
  -- captures
  "(a)", "a(b)c", "()a()", "()", "(())", "((a)(b))", "(a*(.)%w(%s*))",
  "(%w+)=(%w+)", "(h)(e)(l)(l)(o)", "(.)", "(.-)", "()$", "^()",
  "(a)%1", "(.)%1", "(a)(b)%2%1", "((a)%2)", "(%a+) (%a+)",
  -- balance and frontier
  "%b()", "%b[]", "%bab", "%b((", "%b{}", "f%b()", "%f[%w]%w+",
  "%f[%W]", "%f[^%z]", "%f[%a]", "%f[%z]", "%f[^\0]", "%f[.]",
  -- malformed patterns (errors only when reached)
  "%", "a%", "[a", "[^", "[", "[]", "[^]", "[%", "[a%", "(", ")", "a)",
  "((", "(()", "%b", "%ba", "%f", "%fa", "%f[a", "%1", "(%1)", "%0",
  "(a)%0", "(a)%2", "(a%1)", "()%1", "x%", "a(", "(a", "%b()%",
}

local inits = { false, 1, 2, 0, -1, -3, -100, 3, 4, 5, 100, 2^31, -2^31 }
local repls = { "%0", "%1", "%2", "<%0>", "%%", "%", "x%y", "%9", "%1%1",
  "", "[%0|%1]", 7, 1.5, { a = "A", abc = false, b = 1, hello = {}, [""] = "E" } }
local fnames = { "upper", "none", "fals", "num", "tab", "err" }

for _, s in ipairs(subjects) do
  for _, p in ipairs(patterns) do
    both("find", ops.find, s, p)
    both("find plain", ops.find, s, p, 1, true)
    both("match", ops.match, s, p)
    both("gmatch", ops.gmatch, s, p)
    both("gsub", ops.gsub, s, p, "<%0>")
    both("gsub fn", ops.gsub, s, p, repl.upper)
    for i = 1, #inits, 3 do
      local init = inits[i] or nil
      both("find init", ops.find, s, p, init)
      both("match init", ops.match, s, p, init)
      both("gmatch init", ops.gmatch, s, p, init)
    end
  end
end

-- start positions around the edges, on a few subjects
for _, s in ipairs({ "", "abc", "hello world", "a\0b\0c" }) do
  for _, p in ipairs({ "", "b", "%w*", "()", "^a", "$", "(.)$", "%f[%a]", "l+" }) do
    for _, init in ipairs(inits) do
      init = init or nil
      both("find init", ops.find, s, p, init)
      both("find init plain", ops.find, s, p, init, true)
      both("match init", ops.match, s, p, init)
      both("gmatch init", ops.gmatch, s, p, init)
    end
    for _, init in ipairs({ 1.5, "2", " 3 ", "0x2", "x", {}, math.huge, -math.huge, 0/0, 2^53, 2^63, 1e300 }) do
      both("find odd init", ops.find, s, p, init)
      both("match odd init", ops.match, s, p, init)
      both("gmatch odd init", ops.gmatch, s, p, init)
    end
  end
end

-- gsub: replacement strings, numbers, tables, functions; counts
for _, s in ipairs({ "", "abc", "hello world", "a\0b", "abc abc", "x=1, y=2" }) do
  for _, p in ipairs({ "", "a", "%w+", "(%w+)", "(%w)(%w)", "()", "(a)()", "%w*", "^%w*",
    "x*", "(", "%", "b$", "(%w+)=(%w+)", "^", "$", "." }) do
    for _, r in ipairs(repls) do
      both("gsub repl", ops.gsub, s, p, r)
    end
    for _, f in ipairs(fnames) do
      both("gsub fn " .. f, ops.gsub, s, p, repl[f])
    end
    for _, n in ipairs({ 0, 1, 2, -1, 100, 1.5, "2", "x", 2^31, 2^32 + 1, 1e10, math.huge, 0/0, {} }) do
      both("gsub n", ops.gsub, s, p, "<%0>", n)
    end
  end
end

-- argument errors, call forms and names in messages
local odd = { nil, true, 12, 1.5, {}, type, "s" }
for i = 1, 7 do
  for j = 1, 7 do
    both("find args", ops.find, odd[i], odd[j])
    both("findm args", ops.findm, "abc", odd[j])
    both("match args", ops.match, odd[i], odd[j])
    both("matchm args", ops.matchm, "abc", odd[j])
    both("gmatch args", ops.gmatch, odd[i], odd[j])
    both("gsub args", ops.gsub, "abc", "b", odd[i], odd[j])
    both("gsub args 2", ops.gsub, odd[i], odd[j], "x")
    both("pfind", ops.pfind, odd[i], odd[j])
    both("pgsub", ops.pgsub, "abc", odd[i], odd[j])
  end
end
both("find no args", ops.find)
both("pfind none", ops.pfind)
both("pgsub none", ops.pgsub)
both("local find", ops.local_find, "abc", "b")
both("local find err", ops.local_find, "abc", {})
both("gmatchm", ops.gmatchm, "one two three", "%a+")
both("gmatchm anchor", ops.gmatchm, "^a^a", "^a")
both("gsubm", ops.gsubm, "hello", "l", "L")
both("gsubm table", ops.gsubm, "hello", "%w+", { hello = "bye" })
both("find number subject", ops.find, 12345, 3)
both("gsub number subject", ops.gsub, 12345, 3, 9)
both("gsub table error", ops.gsub, "abc", "%w", { a = true })
both("gsub table __index", ops.gsub, "abc", "%w", setmetatable({}, { __index = function(_, k) return k .. k end }))
both("gsub fn errt", ops.gsub, "abc", "b", repl.errt)

-- limits: captures, nesting, too complex
local a201 = ("a"):rep(201)
for _, n in ipairs({ 31, 32, 33 }) do
  both("captures", ops.match, "a", ("()"):rep(n))
  both("captures nested", ops.match, "a", ("("):rep(n) .. "a" .. (")"):rep(n))
  both("captures find", ops.find, "a", ("()"):rep(n))
end
for _, n in ipairs({ 197, 198, 199, 200, 201 }) do
  both("depth ?", ops.match, a201, ("a?"):rep(n))
  both("depth *", ops.match, "", ("a*"):rep(n))
  both("depth -", ops.match, "b", ("a-"):rep(n))
  both("depth +", ops.find, ("ab"):rep(n + 1), ("a+b"):rep(n))
  both("depth ()", ops.find, a201, ("(a)"):rep(n))
  both("depth gsub", ops.gsub, a201, ("a?"):rep(n), "x")
end
both("deep captures", ops.match, a201, ("a(a)"):rep(40))
both("long set", ops.find, ("b"):rep(100) .. "a", "[" .. ("b"):rep(1000) .. "a]+$")
both("long literal", ops.find, ("a"):rep(300) .. "b", ("a"):rep(200) .. "b$")
both("plain long", ops.find, ("a"):rep(3000), ("a"):rep(300) .. "b", 1, true)
both("plain long hit", ops.find, ("a"):rep(3000) .. "b", ("a"):rep(300) .. "b", 1, true)
