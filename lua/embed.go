package lua

import _ "embed"

// Prelude is the source of zlualib.lua, run by every Env before user code.
//
//go:embed zlualib.lua
var Prelude string
