-- zlualib.lua: the Lua side of zlua, run in every Env before user code.
-- It builds the global `zlua` table; Go adds fields to it afterwards
-- (zlua.backend). Nothing here may depend on a standard library that an
-- Env can be created without.
local zlua = {}

zlua.version = "0.1.0"

-- zlua.resumable(co) reports whether a coroutine can still be resumed:
-- a thin helper so scripts driving Go functions that yield need not
-- compare status strings themselves.
function zlua.resumable(co)
  return coroutine.status(co) == "suspended"
end

_G.zlua = zlua
