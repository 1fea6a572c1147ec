package native

import "C"

// benchFloorAdd is the Go half of the cgo floor row (floor_add in
// native.go): a C→Go callback that does nothing but the sum. Its file
// holds only the export, because a cgo preamble beside an //export may
// not define C functions.
//
//export benchFloorAdd
func benchFloorAdd(a, b C.longlong) C.longlong { return a + b }
