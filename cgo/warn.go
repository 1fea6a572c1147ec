package cgo

// #include "zlua.h"
import "C"

// WarnHandler receives a whole Lua 5.4 warning of the Env goid (see
// State.OpenWarnings). It runs on the owner's thread, inside whatever Lua
// call raised the warning: it must not call into that Env, and it must not
// panic (callbackgate recovers).
type WarnHandler func(goid uintptr, msg string)

var warnHandler WarnHandler = func(uintptr, string) {}

// SetWarnHandler installs the warning handler; callbackgate does it at
// init.
func SetWarnHandler(h WarnHandler) { warnHandler = h }

// OpenWarnings installs zlua's warning function (Lua 5.4; nothing on
// LuaJIT). toGo sends warnings to the WarnHandler, on from the start;
// otherwise they start off (as in lua5.4) and go to stderr.
func (s *State) OpenWarnings(toGo bool) {
	g := C.int(0)
	if toGo {
		g = 1
	}
	C.zlua_open_warnings(s.env.L, s.env, g)
}
