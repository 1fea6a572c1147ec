package cgo

// #include "zlua.h"
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
