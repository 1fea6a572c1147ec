package cgo

// #include "zlua.h"
import "C"

// zluaGateCall is the Go side of zlua_trampoline: the only C→Go entry of
// a Lua→Go call. It returns a zlua_status; results are left in the push
// program. It never panics (the handler recovers) and never lets a Lua
// error cross it (the handler calls nothing that raises).
//
//export zluaGateCall
func zluaGateCall(fr *C.zlua_frame) C.int {
	return C.int(gateHandler(Frame{fr}))
}

// zluaWarn is the Go side of Lua 5.4 warnings when the Env has a sink
// (zlua_open_warnings): one whole message. The handler recovers panics.
//
//export zluaWarn
func zluaWarn(goid C.uintptr_t, msg *C.char, n C.size_t) {
	warnHandler(uintptr(goid), C.GoStringN(msg, C.int(n)))
}
