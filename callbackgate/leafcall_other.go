//go:build !amd64 || nodirect

package callbackgate

import (
	"reflect"
	"unsafe"
)

// Off amd64 leaf methods are not called directly: the FFI path runs their
// ordinary plan through dispatch (see leafcall.go). The build tag nodirect
// selects this file on amd64 too, so `make vet` compiles it there.
type leafOut struct {
	i   [2]uint64
	f   [2]float64
	p   unsafe.Pointer
	err error
}

type leafDirect func(p unsafe.Pointer, i *[4]uint64, f *[4]float64, out *leafOut)

func directLeaf(recv, ft reflect.Type, code unsafe.Pointer) leafDirect { return nil }

func leafResult(k reflect.Kind, r uint64) float64 { return 0 }
