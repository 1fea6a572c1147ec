-- Where load puts the error of a reader returning a non-string: at the
-- position of load's caller, as the stock load of each backend does (a
-- tail call and a call through pcall included). readerpos-lua54.golden
-- and readerpos-luajit.golden are what stock lua5.4 and luajit print for
-- `dofile("testdata/readerpos.lua") print(result)`; the stock standalone
-- interpreters append a traceback to the message, which is cut.
local out = {}
local function p(f, err)
	out[#out + 1] = tostring(f) .. " | " .. tostring(err):match("^[^\n]*")
end
p(load(function() return {} end))
local function tail() return load(function() return {} end) end
p(tail())
p(select(2, pcall(load, function() return {} end)))
p(load(function() return true end, "=named"))
local ok, f, err = pcall(load, function() error("reader failed") end)
p(f, err)
result = table.concat(out, "\n")
