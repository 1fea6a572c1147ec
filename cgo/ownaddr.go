package cgo

/*
#include "zlua.h"

// The argument hints of the function sentinel whose payload is at p.
static uint32_t zlua_test_hints(uintptr_t p) { return ((const zlua_funcud *)p)->hints; }

// The entry zlua_proven_at picks for address p in a sentinel (fn) or
// userdata cache (no cache is read).
static size_t zlua_test_proven_index(uintptr_t p, int fn)
{
	const void **base = (const void **)0;
	unsigned bits = fn ? ZLUA_PROVEN_FN_BITS : ZLUA_PROVEN_UD_BITS;
	return (size_t)(zlua_proven_at(base, bits, (const void *)p) - base);
}

// What thread L keeps for zlua_envof: the pointer in its extra space (Lua
// 5.4; 0 on LuaJIT, which has none) and the allocator's ud.
static void zlua_test_threadenv(uintptr_t Lp, uintptr_t *extra, uintptr_t *ud)
{
	lua_State *L = (lua_State *)Lp;
	void *u;
#ifndef ZLUA_LUAJIT
	*extra = (uintptr_t)*(void **)lua_getextraspace(L);
#else
	*extra = 0;
#endif
	lua_getallocf(L, &u);
	*ud = (uintptr_t)u;
}
*/
import "C"

import "unsafe"

// OwnAddrs returns the addresses of the userdata that ownership by address
// currently proves (env->slot_ud, see ownaddr.c), in slot order. It exists
// for the tests of that proof.
func (s *State) OwnAddrs() []uintptr {
	var out []uintptr
	if s.env == nil || s.env.slot_ud == nil {
		return nil
	}
	a := unsafe.Slice((*uintptr)(unsafe.Pointer(s.env.slot_ud)), int(s.env.objcnt_cap))
	for _, p := range a {
		if p != 0 {
			out = append(out, p)
		}
	}
	return out
}

// OwnAddrLayout returns the size of a ByObj userdata's block and the
// offset of its payload in it, as zlua_ownaddr_init measured them (0, 0:
// the address proof is off). It exists for the tests.
func (s *State) OwnAddrLayout() (block, off int) {
	return int(s.env.ud_block), int(s.env.ud_off)
}

// ProvenAddrs returns the addresses held by the proven-address caches
// (env->proven_fn: function sentinels; env->proven_ud: other userdata, see
// gate.c). It exists for the tests of their invalidation.
func (s *State) ProvenAddrs() (fn, ud []uintptr) {
	if s.env == nil {
		return nil, nil
	}
	for _, p := range s.env.proven_fn {
		if p != nil {
			fn = append(fn, uintptr(p))
		}
	}
	for _, p := range s.env.proven_ud {
		if p != nil {
			ud = append(ud, uintptr(p))
		}
	}
	return fn, ud
}

// SentinelHints returns the argument hints (PutGoFuncHints) kept by the
// Go function sentinel at fn, an address ProvenAddrs reported. It exists
// for the tests of the hints.
func SentinelHints(fn uintptr) uint32 { return uint32(C.zlua_test_hints(C.uintptr_t(fn))) }

// FastHints returns the argument hints of the fast ids whose closure is
// alive (zlua.h, ZLUA_FAST_FNS), in id order. It exists for the tests of
// the hints.
func (s *State) FastHints() []uint32 {
	var h []uint32
	for id := range uint32(s.env.fastfn_cap) {
		f := (*C.zlua_fastfn)(unsafe.Add(unsafe.Pointer(s.env.fastfn), uintptr(id)*unsafe.Sizeof(C.zlua_fastfn{})))
		if s.FuncArmed(id) == 1 && f.flags&C.ZLUA_F_RELEASED == 0 {
			h = append(h, uint32(f.hints))
		}
	}
	return h
}

// ProvenIndex returns the entry of the sentinel cache (fn) or the
// userdata cache that address p would take (zlua_proven_at). It exists
// for the tests of how the caches spread addresses.
func ProvenIndex(p uintptr, fn bool) int {
	f := C.int(0)
	if fn {
		f = 1
	}
	return int(C.zlua_test_proven_index(C.uintptr_t(p), f))
}

// ThreadEnv returns what thread t holds for zlua_envof, the env's address
// that C functions running on t find: on Lua 5.4 the pointer in t's extra
// space (extra; 0 on LuaJIT) and the allocator's ud (ud), and the address
// of s's env (want). It exists for the tests of zlua_envof.
func (s *State) ThreadEnv(t Thread) (extra, ud, want uintptr) {
	var e, u C.uintptr_t
	C.zlua_test_threadenv(C.uintptr_t(uintptr(unsafe.Pointer(t.p))), &e, &u)
	return uintptr(e), uintptr(u), uintptr(unsafe.Pointer(s.env))
}
