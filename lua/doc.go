// Package lua embeds zlua's Lua-side prelude (zlualib.lua), which every Env
// runs at creation to build the global zlua table.
package lua
