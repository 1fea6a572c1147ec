-- zlualib.lua: the Lua side of zlua, run in every Env before user code.
-- It builds the global `zlua` table; Go adds fields to it afterwards
-- (zlua.backend). Nothing here may depend on a standard library that an
-- Env can be created without.
local zlua = {}

zlua.version = "0.1.0"

-- zlua.resumable(co) reports whether a coroutine can still be resumed:
-- a thin helper so scripts driving Go functions that yield need not
-- compare status strings themselves.
function zlua.resumable(...)
  local co = ...
  if type(co) ~= "thread" then
    error(("bad argument #1 to 'resumable' (thread expected, got %s)")
      :format(select("#", ...) == 0 and "no value" or type(co)), 2)
  end
  return coroutine.status(co) == "suspended"
end

-- zlua.to_delegate(f) marks f for use as a Go callback (spec 004 §5.1).
-- Lua functions already become Go funcs when they reach a func-typed
-- parameter, so this only checks that f can be called and returns it;
-- scripts written against the spec keep working. A value whose metatable
-- has a non-nil __call counts, as for Go's func parameters and as for a
-- Lua call (which calls whatever __call holds).
function zlua.to_delegate(f)
  local mt = type(f) ~= "function" and getmetatable(f)
  if type(f) ~= "function" and not (type(mt) == "table" and rawget(mt, "__call") ~= nil) then
    error(("bad argument #1 to 'to_delegate' (function expected, got %s)")
      :format(type(f)), 2)
  end
  return f
end

_G.zlua = zlua
