package cgo

// #include "zlua.h"
import "C"

// AllocCount returns the number of growing allocations the state has made
// (the counter FailAllocAt counts against), up to Close after it. It exists
// for the allocation-failure tests.
func (s *State) AllocCount() uint64 {
	if s.env == nil {
		return s.closedAllocs
	}
	return uint64(s.env.alloc_count)
}
