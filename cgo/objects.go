package cgo

/*
#include "zlua.h"

static size_t zlua_objfreed_take(zlua_env *env, uint32_t *dst, size_t max)
{
	size_t n = env->objfreed_len < max ? env->objfreed_len : max;
	memcpy(dst, env->objfreed + (env->objfreed_len - n), n * sizeof *dst);
	env->objfreed_len -= n;
	return n;
}
#cgo nocallback zlua_objfreed_take
#cgo nocallback zlua_objcnt_reserve
*/
import "C"

import (
	"encoding/binary"
	"unsafe"
)

// OpInit creates the ObjectRegistry's weak cache table (run once at init).
const OpInit = int(C.ZLUA_DO_INIT)

// OpProgRef runs the committed program and returns a registry ref to the
// last value it pushed.
const OpProgRef = int(C.ZLUA_DO_PROGREF)

// ObjHeader is what Go reads of a ByObj userdata made by this state.
type ObjHeader struct {
	Kind     int
	Released bool
	TypeID   uint32
	Slot     uint32
	Gen      uint32
}

func readHeader(h *C.zlua_udheader) ObjHeader {
	o := ObjHeader{Kind: int(h.kind), Released: h.flags&C.ZLUA_F_RELEASED != 0, TypeID: uint32(h.type_id)}
	if o.Kind == KindByObj {
		u := (*C.ZLuaObjectUserData)(unsafe.Pointer(h))
		o.Slot, o.Gen = uint32(u.slot), uint32(u.gen)
	}
	return o
}

// Own reports, for an argument the trampoline read, the zlua header of a
// userdata made by this state. checked is false when the argument was read
// without that check (then use State.ObjAt).
func (a *Arg) Own() (h ObjHeader, ours, checked bool) {
	if a.Type != int32(C.LUA_TUSERDATA) || a.isint == 0 {
		return ObjHeader{}, false, false
	}
	p := *(**C.zlua_udheader)(unsafe.Pointer(&a.v))
	if p == nil {
		return ObjHeader{}, false, true
	}
	return readHeader(p), true, true
}

// ObjAt returns the zlua header of the userdata at idx if this state made
// it. Needs 2 free stack slots.
func (s *State) ObjAt(t Thread, idx int) (ObjHeader, bool) {
	h := C.zlua_toown(s.env, t.p, C.int(idx))
	if h == nil {
		return ObjHeader{}, false
	}
	return readHeader(h), true
}

// PutObj appends a push of slot's ByObj userdata: the cached one when
// cached and still alive, else a new one of binding typeID with metatable
// mtref.
func (s *State) PutObj(slot, gen, typeID uint32, mtref int32, cached bool) {
	mode := byte(C.ZLUA_OBJ_UNCACHED)
	if cached {
		mode = C.ZLUA_OBJ_CACHED
	}
	s.putObj(slot, gen, typeID, mtref, mode)
}

// PutNewObj appends a push of the first userdata of a keyed slot just
// added: C enters it in the weak cache without looking the cache up.
func (s *State) PutNewObj(slot, gen, typeID uint32, mtref int32) {
	s.putObj(slot, gen, typeID, mtref, C.ZLUA_OBJ_NEWKEY)
}

// PutObjPtr appends the store of p, the address of the pinned object of
// slot, into the ByObj userdata of slot just pushed (unless it has one),
// so that C serves its fields without asking Go first. The caller keeps
// the object pinned for as long as the slot lives. It pushes nothing.
func (s *State) PutObjPtr(slot uint32, p unsafe.Pointer) {
	if s.need(13) {
		b := (*[13]byte)(s.prog[s.n:])
		b[0] = C.ZLUA_OP_OBJPTR
		binary.LittleEndian.PutUint32(b[1:5], slot)
		binary.LittleEndian.PutUint64(b[5:13], uint64(uintptr(p)))
		s.n += 13
	}
}

// PutObjCharge appends a charge of n bytes to object slot (pushed just
// before): inside a script call's results, a slot whose userdata lives
// and holds no charge yet is charged until its last userdata goes, after
// making room as PutCompanion's charge does. It pushes nothing.
func (s *State) PutObjCharge(slot uint32, n uint64) {
	s.progAlloc = true // it may collect and raise
	if s.need(13) {
		p := (*[13]byte)(s.prog[s.n:])
		p[0] = C.ZLUA_OP_OBJCHARGE
		binary.LittleEndian.PutUint32(p[1:5], slot)
		binary.LittleEndian.PutUint64(p[5:13], n)
		s.n += 13
	}
}

func (s *State) putObj(slot, gen, typeID uint32, mtref int32, mode byte) {
	if s.need(18) {
		p := (*[18]byte)(s.prog[s.n:])
		p[0] = C.ZLUA_OP_OBJ
		binary.LittleEndian.PutUint32(p[1:5], slot)
		binary.LittleEndian.PutUint32(p[5:9], gen)
		binary.LittleEndian.PutUint32(p[9:13], typeID)
		binary.LittleEndian.PutUint32(p[13:17], uint32(mtref))
		p[17] = mode
		s.n += 18
	}
}

// ReturnNewObj is Frame.ReturnObj for the first userdata of a keyed slot
// just added (see PutNewObj).
func (f Frame) ReturnNewObj(slot, gen, typeID uint32, mtref int32) {
	f.ReturnObj(slot, gen, typeID, mtref, true)
	(*Arg)(unsafe.Pointer(&f.p.ret)).isint = C.ZLUA_OBJ_NEWKEY
}

// PutNewMetatable replaces the name last pushed with a new ByObj metatable.
func (s *State) PutNewMetatable() { s.op(C.ZLUA_OP_NEWMT) }

// PutIndexer pops a methods table and a getter function and sets the
// metatable below them's __index to zlua's indexer over both.
func (s *State) PutIndexer() { s.op(C.ZLUA_OP_INDEXER) }

// PutObjFields pops a methods table, the Go getter and setter, a field
// table (Lua name → code, see SvI8), the binding id, the struct size and
// the type name, and sets __index and __newindex of the metatable below
// them to C functions that serve those fields of pinned objects (methods
// first; anything else goes to Go).
func (s *State) PutObjFields() {
	s.progAlloc = true
	s.op(C.ZLUA_OP_OBJFIELDS)
}

// PutPlainIndex pops a methods table and the type name and makes the
// methods table the __index of the metatable below them: a missing key
// raises "T has no field or method 'k'" without a Go call.
func (s *State) PutPlainIndex() {
	s.progAlloc = true
	s.op(C.ZLUA_OP_PLAININDEX)
}

// PutEqWrap replaces the Go __eq function last pushed with the C __eq
// that decides known identities itself and calls it for the rest.
func (s *State) PutEqWrap() {
	s.progAlloc = true
	s.op(C.ZLUA_OP_EQWRAP)
}

// ReserveSlots makes the C count table hold slot n; false when it cannot
// grow.
func (s *State) ReserveSlots(n uint32) bool {
	return C.zlua_objcnt_reserve(s.env, C.size_t(n)) != 0
}

// SlotCount returns how many live userdata refer to slot.
func (s *State) SlotCount(slot uint32) uint32 {
	return uint32(*(*C.uint32_t)(unsafe.Add(unsafe.Pointer(s.env.objcnt), uintptr(slot)*4)))
}

// FreedSlots calls f with slots whose last userdata was collected, in
// batches, and empties the queue. f must not call into Lua.
func (s *State) FreedSlots(f func(slots []uint32)) {
	for s.env.objfreed_len > 0 {
		n := C.zlua_objfreed_take(s.env, &s.freed[0], C.size_t(len(s.freed)))
		f(unsafe.Slice((*uint32)(unsafe.Pointer(&s.freed[0])), int(n)))
	}
}

// HasFreedSlots reports whether released slots wait in the queue.
func (s *State) HasFreedSlots() bool { return s.env != nil && s.env.objfreed_len > 0 }

// Abandoned forgets the per-call state of a call whose C frames a Go
// function abandoned (runtime.Goexit), so that CloseLua may run on another
// thread (zlua_env_abandoned).
func (s *State) Abandoned() {
	if s.env != nil {
		C.zlua_env_abandoned(s.env)
	}
}

// CloseLua runs lua_close (every __gc) but keeps the C env, so the release
// queues can still be drained; Close frees it.
func (s *State) CloseLua() {
	if s.env != nil {
		C.zlua_env_close_state(s.env)
	}
}
