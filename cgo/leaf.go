package cgo

// #include "zlua.h"
import "C"

import "encoding/binary"

// StatusLeafRefused is what a leaf handler returns when it did not run the
// method: C then hands the call to the method's C closure.
const StatusLeafRefused = int32(C.ZLUA_LEAF_REFUSED)

// LeafClosures reports whether this backend replaces leaf methods by
// closures that call Go through the FFI (LuaJIT); on Lua 5.4 leaf methods
// keep the trampoline.
const LeafClosures = !HasIntegers

// MaxLeafParams is the most parameters a leaf method may take.
const MaxLeafParams = 4

// LeafHandler serves a leaf call: goid names the Env, fnid the method
// (the frame carries both too, as the trampoline's does).
type LeafHandler func(goid uintptr, fnid uint32, fr Frame) int32

var leafHandler LeafHandler = func(uintptr, uint32, Frame) int32 { return StatusLeafRefused }

// SetLeafHandler installs the Go side of leaf calls (zlua_jit_call);
// callbackgate does it at init.
func SetLeafHandler(h LeafHandler) { leafHandler = h }

// zluaLeafCall is the Go side of zlua_jit_call: the frame is the one the
// trampoline would have built (receiver checked, numbers and booleans
// read). It returns a zlua_status, or StatusLeafRefused when the method
// did not run. Like zluaGateCall, it never panics and raises nothing; it
// runs inside an FFI call, where no Lua API may be used at all.
//
//export zluaLeafCall
func zluaLeafCall(goid C.uintptr_t, fnid C.uint32_t, fr *C.zlua_frame) C.int {
	return C.int(leafHandler(uintptr(goid), uint32(fnid), Frame{fr}))
}

// PutLeaf replaces the Go function last pushed (method fnid of binding
// typeID) by its leaf closure on LuaJIT: nparams parameters, boolean
// where bit i of boolParams is set; nres results, boolean where bit i of
// boolRes is set. On Lua 5.4, or without the FFI, the function stays.
func (s *State) PutLeaf(typeID, fnid uint32, nparams int, boolParams uint8, nres int, boolRes uint8) {
	s.progAlloc = true
	if s.need(13) {
		s.prog[s.n] = C.ZLUA_OP_LEAF
		binary.LittleEndian.PutUint32(s.prog[s.n+1:], typeID)
		binary.LittleEndian.PutUint32(s.prog[s.n+5:], fnid)
		s.prog[s.n+9] = byte(nparams)
		s.prog[s.n+10] = boolParams
		s.prog[s.n+11] = byte(nres)
		s.prog[s.n+12] = boolRes
		s.n += 13
	}
}

// LeafEmptyProbe is a test hook: a leaf call whose receiver is an empty
// userdata payload at the end of a readable page (zlua_jit_leaf_emptyprobe).
// 0: refused without reading the payload; -1: no probe possible (Lua 5.4,
// or no leaf closures yet). A read past the payload kills the process.
func (s *State) LeafEmptyProbe() int { return int(C.zlua_jit_leaf_emptyprobe(s.env)) }

// FieldsEmptyProbe is a test hook: the FFI field functions of the __index
// and __newindex closures (and __eq's) called with an empty userdata
// payload at the end of a readable page (zlua_jit_fields_emptyprobe). 0:
// every one refused it without reading the payload; 1: one accepted it;
// -1: no probe possible (Lua 5.4, no FFI field closures). A read past the
// payload kills the process.
func (s *State) FieldsEmptyProbe() int { return int(C.zlua_jit_fields_emptyprobe(s.env)) }
