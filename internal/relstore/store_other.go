//go:build !amd64 || race

package relstore

import "sync/atomic"

// Int32 stores v into *p: sync/atomic's store, sequentially consistent
// (stronger than release; see the package comment).
func Int32(p *int32, v int32) { atomic.StoreInt32(p, v) }

// Uintptr stores v into *p: sync/atomic's store, sequentially consistent
// (stronger than release; see the package comment).
func Uintptr(p *uintptr, v uintptr) { atomic.StoreUintptr(p, v) }
