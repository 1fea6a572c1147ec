//go:build amd64 && !race

package relstore

// Int32 stores v into *p with release ordering (a plain MOVL on amd64).
//
//go:noescape
func Int32(p *int32, v int32)

// Uintptr stores v into *p with release ordering (a plain MOVQ on amd64).
//
//go:noescape
func Uintptr(p *uintptr, v uintptr)
