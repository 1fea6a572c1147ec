package native

import "C"

import "unsafe"

// benchFloorAdd is the Go half of the cgo floor row (floor_add in
// native.go): a C→Go callback that does nothing but the sum. Its file
// holds only the exports, because a cgo preamble beside an //export may
// not define C functions.
//
//export benchFloorAdd
func benchFloorAdd(a, b C.longlong) C.longlong { return a + b }

// benchFloorGetx is the Go half of the opaque row's cgo floor (floor_getx
// in structs.go): a C→Go callback that reads x, the first field of the
// NVec3 in C memory p points to, and nothing else.
//
//export benchFloorGetx
func benchFloorGetx(p unsafe.Pointer) C.double { return *(*C.double)(p) }
