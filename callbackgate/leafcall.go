//go:build amd64 && !nodirect

package callbackgate

import (
	"reflect"
	"unsafe"
)

// Leaf methods on LuaJIT are called without reflection through one of eight
// function types that cover every leaf signature. Go's register ABI
// assigns integer-class arguments (integers, booleans, the
// receiver) to the integer registers in order and floats to the float
// registers in order, independently of each other, and results the same
// way. So a method taking (p, int8, float64, bool) reads exactly what a
// call of func(p, i1, i2, i3, i4 uint64, f1, f2, f3, f4 float64) puts in
// the first three integer and first float registers; the arguments it does
// not take are ignored, the spill area its caller reserves is larger than
// it needs. Results: integer-class ones come back in the first integer
// registers and an error after them, so the type must have the method's
// count of integer results (0–2) and its error, if any, exactly; float
// results are read from the first two float registers, which hold
// garbage when the method returns fewer (it is not read then); a pointer
// result comes back in the first integer register, read as a pointer. A narrower
// value uses the low bits of its register: arguments pass them (a float32
// as its bits in the low half), results are truncated by kind. Built for
// amd64, where it is tested; arm64's ABI assigns registers the same way,
// but other architectures run the ordinary plan through dispatch
// (leafcall_other.go) until the direct calls are tested there.
type (
	leafR0  func(p unsafe.Pointer, i1, i2, i3, i4 uint64, f1, f2, f3, f4 float64) (float64, float64)
	leafR1  func(p unsafe.Pointer, i1, i2, i3, i4 uint64, f1, f2, f3, f4 float64) (uint64, float64, float64)
	leafR2  func(p unsafe.Pointer, i1, i2, i3, i4 uint64, f1, f2, f3, f4 float64) (uint64, uint64, float64, float64)
	leafR0E func(p unsafe.Pointer, i1, i2, i3, i4 uint64, f1, f2, f3, f4 float64) (float64, float64, error)
	leafR1E func(p unsafe.Pointer, i1, i2, i3, i4 uint64, f1, f2, f3, f4 float64) (uint64, float64, float64, error)
	leafR2E func(p unsafe.Pointer, i1, i2, i3, i4 uint64, f1, f2, f3, f4 float64) (uint64, uint64, float64, float64, error)
	// a pointer result: typed as a pointer, so that the collector sees
	// it until the gate has the object's slot (an object the method just
	// made may have no other reference)
	leafRP  func(p unsafe.Pointer, i1, i2, i3, i4 uint64, f1, f2, f3, f4 float64) unsafe.Pointer
	leafRPE func(p unsafe.Pointer, i1, i2, i3, i4 uint64, f1, f2, f3, f4 float64) (unsafe.Pointer, error)
)

// leafOut is what a direct call returned: integer-class results in i,
// floats in f, in order of their kind, or a pointer result in p.
type leafOut struct {
	i   [2]uint64
	f   [2]float64
	p   unsafe.Pointer
	err error
}

// leafDirect is a method's call through its function type.
type leafDirect func(p unsafe.Pointer, i *[4]uint64, f *[4]float64, out *leafOut)

// directLeaf returns the direct call of method code whose method type
// (receiver first) is ft, or nil when the receiver is not a pointer.
func directLeaf(recv reflect.Type, ft reflect.Type, code unsafe.Pointer) leafDirect {
	if recv.Kind() != reflect.Pointer {
		return nil
	}
	nri, hasErr, ptr := 0, false, false
	for k := 0; k < ft.NumOut(); k++ {
		switch t := ft.Out(k); {
		case t == errorType:
			hasErr = true
		case t.Kind() == reflect.Pointer:
			ptr = true
		case !isFloatKind(t.Kind()):
			nri++
		}
	}
	switch {
	case ptr && !hasErr:
		f := as[leafRP](code)
		return func(p unsafe.Pointer, i *[4]uint64, x *[4]float64, o *leafOut) {
			o.p = f(p, i[0], i[1], i[2], i[3], x[0], x[1], x[2], x[3])
		}
	case ptr:
		f := as[leafRPE](code)
		return func(p unsafe.Pointer, i *[4]uint64, x *[4]float64, o *leafOut) {
			o.p, o.err = f(p, i[0], i[1], i[2], i[3], x[0], x[1], x[2], x[3])
		}
	case nri == 0 && !hasErr:
		f := as[leafR0](code)
		return func(p unsafe.Pointer, i *[4]uint64, x *[4]float64, o *leafOut) {
			o.f[0], o.f[1] = f(p, i[0], i[1], i[2], i[3], x[0], x[1], x[2], x[3])
		}
	case nri == 1 && !hasErr:
		f := as[leafR1](code)
		return func(p unsafe.Pointer, i *[4]uint64, x *[4]float64, o *leafOut) {
			o.i[0], o.f[0], o.f[1] = f(p, i[0], i[1], i[2], i[3], x[0], x[1], x[2], x[3])
		}
	case nri == 2 && !hasErr:
		f := as[leafR2](code)
		return func(p unsafe.Pointer, i *[4]uint64, x *[4]float64, o *leafOut) {
			o.i[0], o.i[1], o.f[0], o.f[1] = f(p, i[0], i[1], i[2], i[3], x[0], x[1], x[2], x[3])
		}
	case nri == 0:
		f := as[leafR0E](code)
		return func(p unsafe.Pointer, i *[4]uint64, x *[4]float64, o *leafOut) {
			o.f[0], o.f[1], o.err = f(p, i[0], i[1], i[2], i[3], x[0], x[1], x[2], x[3])
		}
	case nri == 1:
		f := as[leafR1E](code)
		return func(p unsafe.Pointer, i *[4]uint64, x *[4]float64, o *leafOut) {
			o.i[0], o.f[0], o.f[1], o.err = f(p, i[0], i[1], i[2], i[3], x[0], x[1], x[2], x[3])
		}
	default:
		f := as[leafR2E](code)
		return func(p unsafe.Pointer, i *[4]uint64, x *[4]float64, o *leafOut) {
			o.i[0], o.i[1], o.f[0], o.f[1], o.err = f(p, i[0], i[1], i[2], i[3], x[0], x[1], x[2], x[3])
		}
	}
}

// leafResult is result value r (its register's bits) of kind k as a Lua
// number, or a boolean as 0/1.
func leafResult(k reflect.Kind, r uint64) float64 {
	switch k {
	case reflect.Bool:
		if uint8(r) != 0 {
			return 1
		}
		return 0
	case reflect.Int8:
		return float64(int8(r))
	case reflect.Int16:
		return float64(int16(r))
	case reflect.Int32:
		return float64(int32(r))
	case reflect.Int, reflect.Int64:
		return float64(int64(r))
	case reflect.Uint8:
		return float64(uint8(r))
	case reflect.Uint16:
		return float64(uint16(r))
	case reflect.Uint32:
		return float64(uint32(r))
	}
	return float64(r) // Uint, Uint64, Uintptr
}
