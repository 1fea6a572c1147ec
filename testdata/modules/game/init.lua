-- game: the package's init module, found as game/init.lua.
local game = {loads = (package.loaded.loads or 0) + 1}
package.loaded.loads = game.loads

function game.greet(name)
  return "hello, " .. name
end

return game
