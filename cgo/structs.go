package cgo

/*
#include "zlua.h"

static size_t zlua_svfreed_take(zlua_env *env, uint32_t *dst, size_t max)
{
	size_t n = env->svfreed_len < max ? env->svfreed_len : max;
	memcpy(dst, env->svfreed + (env->svfreed_len - n), n * sizeof *dst);
	env->svfreed_len -= n;
	return n;
}
#cgo nocallback zlua_svfreed_take
#cgo nocallback zlua_svstate_reserve
#cgo nocallback zlua_store_charge
#cgo noescape zlua_store_charge
*/
import "C"

import (
	"encoding/binary"
	"math"
	"unsafe"
)

// OpStructInit sets zlua.get_opaquevalue and zlua.set_opaquevalue to the
// two functions the committed program pushes.
const OpStructInit = int(C.ZLUA_DO_SVINIT)

// Field kinds of a ByVal field table (zlua_svkind).
const (
	SvI8   = int(C.ZLUA_SV_I8)
	SvI16  = int(C.ZLUA_SV_I16)
	SvI32  = int(C.ZLUA_SV_I32)
	SvI64  = int(C.ZLUA_SV_I64)
	SvU8   = int(C.ZLUA_SV_U8)
	SvU16  = int(C.ZLUA_SV_U16)
	SvU32  = int(C.ZLUA_SV_U32)
	SvU64  = int(C.ZLUA_SV_U64)
	SvF32  = int(C.ZLUA_SV_F32)
	SvF64  = int(C.ZLUA_SV_F64)
	SvBool = int(C.ZLUA_SV_BOOL)
	// SvInt, SvUint and SvUintptr are SvI64, SvU64 and SvU64 named as Go
	// names them in range errors.
	SvInt     = int(C.ZLUA_SV_INT)
	SvUint    = int(C.ZLUA_SV_UINT)
	SvUintptr = int(C.ZLUA_SV_UINTPTR)
)

// ValHeader is what Go reads of a ByVal userdata made by this state.
type ValHeader struct {
	TypeID    uint32
	Size      uint32
	Companion uint32 // 0: the value is the payload
	Gen       uint32
	Released  bool
	// NoAddr marks a copy of a Go value with no address (an element of a
	// map pushed by reference, PutNoAddr): its fields refuse writes.
	NoAddr bool
	// Payload is the copy inside the userdata (C memory, valid while the
	// userdata is on the stack).
	Payload unsafe.Pointer
}

func readValHeader(h *C.zlua_udheader) ValHeader {
	u := (*C.ZLuaByValHeader)(unsafe.Pointer(h))
	return ValHeader{TypeID: uint32(h.type_id), Size: uint32(u.size), Companion: uint32(u.companion),
		Gen: uint32(u.gen), Released: h.flags&C.ZLUA_F_RELEASED != 0, NoAddr: h.flags&C.ZLUA_F_NOADDR != 0,
		Payload: unsafe.Add(unsafe.Pointer(u), C.sizeof_ZLuaByValHeader)}
}

// OwnVal reports, for an argument the trampoline read, the ByVal header of
// a userdata made by this state; checked is false when the argument was
// read without that check (then use State.ValAt).
func (a *Arg) OwnVal() (h ValHeader, ours, checked bool) {
	if a.Type != int32(C.LUA_TUSERDATA) || a.isint == 0 {
		return ValHeader{}, false, false
	}
	p := *(**C.zlua_udheader)(unsafe.Pointer(&a.v))
	if p == nil || int(p.kind) != KindByVal {
		return ValHeader{}, false, true
	}
	return readValHeader(p), true, true
}

// ValAt returns the ByVal header of the userdata at idx if this state made
// it. Needs 2 free stack slots.
func (s *State) ValAt(t Thread, idx int) (ValHeader, bool) {
	h := C.zlua_toown(s.env, t.p, C.int(idx))
	if h == nil || int(h.kind) != KindByVal {
		return ValHeader{}, false
	}
	return readValHeader(h), true
}

// Light returns the value of a light userdata argument.
func (a *Arg) Light() uint64 { return a.v }

// PutByVal appends a push of a new ByVal userdata of type typeID with
// metatable mtref: size bytes copied from payload (memory without Go
// pointers), or none and companion slot (companion, gen) with no charge
// (PutCompanion charges one).
func (s *State) PutByVal(typeID uint32, mtref int32, payload unsafe.Pointer, size int, companion, gen uint32) {
	s.progAlloc = true
	if n := 21 + size; s.need(n) {
		p := s.prog[s.n : s.n+n]
		h := (*[21]byte)(p) // one bounds check for the fixed part
		h[0] = C.ZLUA_OP_BYVAL
		binary.LittleEndian.PutUint32(h[1:5], typeID)
		binary.LittleEndian.PutUint32(h[5:9], uint32(mtref))
		binary.LittleEndian.PutUint32(h[9:13], uint32(size))
		binary.LittleEndian.PutUint32(h[13:17], companion)
		binary.LittleEndian.PutUint32(h[17:21], gen)
		if size > 0 {
			copy(p[21:], unsafe.Slice((*byte)(payload), size))
		}
		s.n += n
	}
}

// PutCompanion appends a push of a new ByVal userdata of type typeID
// with metatable mtref naming companion slot (companion, gen), charged
// charge bytes: C adds them to what the memory limit counts (making room
// first with a full collection, else raising Lua's memory error) until the
// userdata's __gc, and lets the collector step for them. A charge past
// 2^32-1 counts as that (more than any limit the heap could keep).
func (s *State) PutCompanion(typeID uint32, mtref int32, companion, gen uint32, charge uint64) {
	s.progAlloc = true
	if s.need(21) {
		h := (*[21]byte)(s.prog[s.n : s.n+21])
		h[0] = C.ZLUA_OP_BYVAL
		binary.LittleEndian.PutUint32(h[1:5], typeID)
		binary.LittleEndian.PutUint32(h[5:9], uint32(mtref))
		binary.LittleEndian.PutUint32(h[9:13], uint32(min(charge, math.MaxUint32)))
		binary.LittleEndian.PutUint32(h[13:17], companion)
		binary.LittleEndian.PutUint32(h[17:21], gen)
		s.n += 21
	}
}

// PutNoAddr appends a mark of the ByVal userdata the program pushed last
// as a copy of a Go value with no address (an element of a map pushed
// by reference): writes to its fields reach the Go setter, which refuses
// them (ValHeader.NoAddr). It pushes nothing; a value that is not a ByVal
// userdata of this state is left alone.
func (s *State) PutNoAddr() { s.op(C.ZLUA_OP_SVNOADDR) }

// PutCompanionCharge appends a change of delta bytes to the charge of
// companion slot companion (a field write that changed what its copy
// reaches); it pushes nothing. Growth makes room first as PutCompanion's
// charge does. A slot whose userdata was collected meanwhile is left
// alone.
func (s *State) PutCompanionCharge(companion uint32, delta int64) {
	s.progAlloc = true // it may collect and raise
	if s.need(13) {
		h := (*[13]byte)(s.prog[s.n : s.n+13])
		h[0] = C.ZLUA_OP_SVCHARGE
		binary.LittleEndian.PutUint32(h[1:5], companion)
		binary.LittleEndian.PutUint64(h[5:13], uint64(delta))
		s.n += 13
	}
}

// PutGlobalByVal starts a new program "name, ByVal value" (what
// SetGlobal(name, v) of a blittable struct runs, see PutByVal) and writes
// it with one capacity check.
func (s *State) PutGlobalByVal(name string, typeID uint32, mtref int32, payload unsafe.Pointer, size int) {
	s.ProgReset()
	s.progAlloc = true
	n := 5 + len(name) + 21 + size
	if uint64(len(name)) > math.MaxUint32 || !s.need(n) {
		s.progErr = true
		return
	}
	p := s.prog[:n]
	p[0] = C.ZLUA_OP_STR
	binary.LittleEndian.PutUint32(p[1:5], uint32(len(name)))
	copy(p[5:], name)
	h := (*[21]byte)(p[5+len(name):])
	h[0] = C.ZLUA_OP_BYVAL
	binary.LittleEndian.PutUint32(h[1:5], typeID)
	binary.LittleEndian.PutUint32(h[5:9], uint32(mtref))
	binary.LittleEndian.PutUint32(h[9:13], uint32(size))
	binary.LittleEndian.PutUint32(h[13:17], 0)
	binary.LittleEndian.PutUint32(h[17:21], 0)
	if size > 0 {
		copy(p[5+len(name)+21:], unsafe.Slice((*byte)(payload), size))
	}
	s.n = n
}

// PutNewValMetatable replaces the name last pushed with a new ByVal
// metatable; gc adds the companion __gc.
func (s *State) PutNewValMetatable(gc bool) {
	s.progAlloc = true
	if s.need(2) {
		s.prog[s.n] = C.ZLUA_OP_SVMT
		s.prog[s.n+1] = 0
		if gc {
			s.prog[s.n+1] = 1
		}
		s.n += 2
	}
}

// PutValIndexer pops fields, methods, getter, setter, type id, struct
// size (0 for a companion type, whose scalar fields C then caches) and
// name, and sets __index and __newindex of the metatable below them.
func (s *State) PutValIndexer() {
	s.progAlloc = true
	s.op(C.ZLUA_OP_SVINDEX)
}

// PutLight appends a push of the light userdata h.
func (s *State) PutLight(h uint64) { s.u64(C.ZLUA_OP_LIGHTUD, h) }

// ReserveCompanions makes companion slot n addressable on the C side;
// false when it cannot grow.
func (s *State) ReserveCompanions(n uint32) bool {
	return C.zlua_svstate_reserve(s.env, C.size_t(n)) != 0
}

// CompanionState returns 0 while no userdata of companion slot i exists,
// 1 while it lives, 2 after its __gc.
func (s *State) CompanionState(i uint32) byte {
	return *(*byte)(unsafe.Add(unsafe.Pointer(s.env.svstate), i))
}

// ArmCompanion marks companion slot i as held by Go with no userdata yet.
func (s *State) ArmCompanion(i uint32) {
	*(*byte)(unsafe.Add(unsafe.Pointer(s.env.svstate), i)) = 0
}

// FreedCompanions calls f with companion slots whose userdata was
// collected, in batches, and empties the queue. f must not call into Lua.
func (s *State) FreedCompanions(f func(slots []uint32)) {
	for s.env.svfreed_len > 0 {
		n := C.zlua_svfreed_take(s.env, &s.freed[0], C.size_t(len(s.freed)))
		f(unsafe.Slice((*uint32)(unsafe.Pointer(&s.freed[0])), int(n)))
	}
}

// HasFreedCompanions reports whether collected companion slots wait.
func (s *State) HasFreedCompanions() bool { return s.env != nil && s.env.svfreed_len > 0 }

// StoreCharge charges d bytes of Go memory a script's store made (a table
// or string written into a Go field) with the Lua heap against the memory
// limit, or gives back -d. A charge that does not fit is not made: false.
// No Lua code runs.
func (s *State) StoreCharge(d int64) bool { return C.zlua_store_charge(s.env, C.int64_t(d)) != 0 }

// CollectNow runs a full collection of the state on t under protection
// (finalizers may call Go); it reports whether it completed.
func (s *State) CollectNow(t Thread) bool { return C.zlua_collect_now(s.env, t.p) == 0 }

// PutNoMem appends an op that raises Lua's memory error ("not enough
// memory", LUA_ERRMEM), as an allocation the limit refuses does.
func (s *State) PutNoMem() {
	s.progAlloc = true
	if s.need(1) {
		s.prog[s.n] = C.ZLUA_OP_NOMEM
		s.n++
	}
}
