-- game.items: a submodule that requires its package.
local game = require("game")
local items = {}

function items.price(name)
  if name == "sword" then return 10 end
  error("no price for " .. name)
end

items.greeting = game.greet("items")
return items
