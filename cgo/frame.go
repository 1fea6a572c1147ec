package cgo

// #include "zlua.h"
import "C"

import (
	"math"
	"unsafe"
)

var _ [unsafe.Sizeof(C.zlua_arg{}) - unsafe.Sizeof(Arg{})]struct{}
var _ [unsafe.Sizeof(Arg{}) - unsafe.Sizeof(C.zlua_arg{})]struct{}

// FastArgs is the number of arguments the trampoline reads before Go is
// entered; later ones are read through Frame.Thread.
const FastArgs = int(C.ZLUA_FAST_ARGS)

// FastFuncs is the number of function ids whose closures get a C function
// of their own (fasttramp.c), which names the id without reading the
// closure's sentinel: 4096 on linux/amd64, 0 elsewhere.
const FastFuncs = int(C.ZLUA_FAST_FNS)

// Gate statuses (zlua_status) a gate handler returns.
const (
	StatusReturn  = int32(C.ZLUA_RET)
	StatusError   = int32(C.ZLUA_ERR)
	StatusErrPos  = int32(C.ZLUA_ERRPOS)
	StatusArgErr  = int32(C.ZLUA_ARGERR)
	StatusYield   = int32(C.ZLUA_YIELD)
	StatusReturn1 = int32(C.ZLUA_RET1)
	StatusRetObj  = int32(C.ZLUA_RETOBJ)
	StatusReturn0 = int32(C.ZLUA_RET0)
	StatusReturn2 = int32(C.ZLUA_RET2)
	StatusRetInt  = int32(C.ZLUA_RETINT)
)

// Argument hints (PutGoFuncHints): the Go parameter of an argument is a
// signed integer kind (HintInt), a float kind (HintNum) or a pointer to a
// struct (HintRef), which takes no number.
const (
	HintInt = uint32(C.ZLUA_HINT_INT)
	HintNum = uint32(C.ZLUA_HINT_NUM)
	HintRef = uint32(C.ZLUA_HINT_REF)
)

// Frame is one Lua→Go call as the trampoline prepared it. It is valid only
// during the gate call.
type Frame struct{ p *C.zlua_frame }

// Thread returns the lua_State running the call.
func (f Frame) Thread() Thread { return Thread{f.p.L} }

// SetCaller keeps t, the thread Go code used before this call, in the
// frame (C memory: a thread is a C pointer), for Caller.
func (f Frame) SetCaller(t Thread) { f.p.caller = t.p }

// Caller returns the thread SetCaller kept.
func (f Frame) Caller() Thread { return Thread{f.p.caller} }

// GateID returns the id of the gate (Env) the call is for.
func (f Frame) GateID() uintptr { return uintptr(f.p.goid) }

// FuncID returns the id of the Go function called.
func (f Frame) FuncID() uint32 { return uint32(f.p.fnid) }

// NArgs returns the number of arguments.
func (f Frame) NArgs() int { return int(f.p.nargs) }

// Arg returns a copy of argument i (0-based, i < FastArgs).
func (f Frame) Arg(i int) Arg { return *(*Arg)(unsafe.Pointer(&f.p.args[i])) }

// IntsHinted reports whether every argument whose bit is set in mask (bit
// i: argument i, 0-based) is an integer the trampoline read through its
// integer hint (Lua 5.4; never on LuaJIT, whose numbers are floats):
// IntAt then reads each, as IntArg would.
func (f Frame) IntsHinted(mask uint32) bool { return uint32(f.p.intok)&mask == mask }

// IntAt returns argument i as an integer, which IntsHinted vouched for.
func (f Frame) IntAt(i int) int64 { return *(*int64)(unsafe.Pointer(&f.p.args[i].v)) }

// IntArg returns argument i (0-based) when the trampoline read it as a
// number with the integer subtype, or (LuaJIT, whose numbers are all
// floats) as a float with an integral value within ±2^53, read in place;
// ok is false otherwise (the caller then takes its general path, which
// converts an integral float on Lua 5.4 to the same value). It is small
// enough to be inlined into the fast plans.
func (f Frame) IntArg(i int) (v int64, ok bool) {
	if uint(i) >= uint(FastArgs) {
		return 0, false
	}
	a := &f.p.args[i]
	if HasIntegers {
		// Lua 5.4: an integer read through its hint is one bit test
		// (zlua_frame.intok); any other integer is checked here.
		if f.p.intok>>uint(i)&1 != 0 || (i < int(f.p.nargs) && a._type == C.LUA_TNUMBER && a.isint != 0) {
			return *(*int64)(unsafe.Pointer(&a.v)), true
		}
		return 0, false
	}
	if i < int(f.p.nargs) && a._type == C.LUA_TNUMBER {
		n := *(*float64)(unsafe.Pointer(&a.v))
		// float64(v) == n rules out NaN and fractions; the bounds keep
		// the conversion exact.
		if v = int64(n); float64(v) == n && v >= -(1<<53) && v <= 1<<53 {
			return v, true
		}
	}
	return 0, false
}

// FloatArg returns argument i (0-based) when the trampoline read it as a
// number, read in place: a float as is (any number on LuaJIT), an integer
// converted as Lua's tonumber would; ok is false otherwise.
func (f Frame) FloatArg(i int) (v float64, ok bool) {
	if uint(i) < uint(FastArgs) && i < int(f.p.nargs) {
		a := &f.p.args[i]
		if a._type == C.LUA_TNUMBER {
			if a.isint != 0 {
				return float64(*(*int64)(unsafe.Pointer(&a.v))), true
			}
			return *(*float64)(unsafe.Pointer(&a.v)), true
		}
	}
	return 0, false
}

// Self reads argument 1 when it is a live ByObj userdata of this state,
// checked by the trampoline: its slot, generation and binding id. ok is
// false for anything else (the caller then takes the slow path).
func (f Frame) Self() (slot, gen, typeID uint32, ok bool) {
	a := &f.p.args[0]
	if f.p.nargs < 1 || a._type != C.LUA_TUSERDATA || a.isint == 0 {
		return 0, 0, 0, false
	}
	h := *(**C.zlua_udheader)(unsafe.Pointer(&a.v))
	if h == nil || h.kind != C.ZLUA_KIND_BYOBJ || h.flags&C.ZLUA_F_RELEASED != 0 {
		return 0, 0, 0, false
	}
	u := (*C.ZLuaObjectUserData)(unsafe.Pointer(h))
	return uint32(u.slot), uint32(u.gen), uint32(h.type_id), true
}

// ReturnInt sets the call's one result to an integer; the handler then
// returns StatusReturn1 (no push program is needed).
func (f Frame) ReturnInt(i int64) {
	r := (*Arg)(unsafe.Pointer(&f.p.ret))
	r.Type, r.isint, r.v = int32(C.LUA_TNUMBER), 1, uint64(i)
}

// RetInt sets the call's one result to an integer and returns the status
// that says so, StatusRetInt: only the value is written, and C pushes it
// without looking at a type (on LuaJIT as a float, like ReturnInt).
func (f Frame) RetInt(i int64) int32 {
	(*Arg)(unsafe.Pointer(&f.p.ret)).v = uint64(i)
	return StatusRetInt
}

// ReturnNum sets the call's one result to a float (see ReturnInt).
func (f Frame) ReturnNum(n float64) {
	r := (*Arg)(unsafe.Pointer(&f.p.ret))
	r.Type, r.isint, r.v = int32(C.LUA_TNUMBER), 0, math.Float64bits(n)
}

// ReturnNil sets the call's one result to nil (see ReturnInt).
func (f Frame) ReturnNil() {
	r := (*Arg)(unsafe.Pointer(&f.p.ret))
	r.Type, r.isint, r.v = int32(C.LUA_TNIL), 0, 0
}

// ReturnObj sets the call's one result to slot's ByObj userdata (see
// State.PutObj); the handler then returns StatusRetObj.
func (f Frame) ReturnObj(slot, gen, typeID uint32, mtref int32, cached bool) {
	r := (*Arg)(unsafe.Pointer(&f.p.ret))
	r.Type, r.isint, r.v = int32(C.LUA_TUSERDATA), 0, uint64(slot)|uint64(gen)<<32
	r.len = uintptr(typeID) | uintptr(uint32(mtref))<<32
	if cached {
		r.isint = 1
	}
}

// ReturnNum2 sets the call's two results to floats; the handler then
// returns StatusReturn2 (no push program is needed).
func (f Frame) ReturnNum2(a, b float64) {
	r := (*Arg)(unsafe.Pointer(&f.p.ret))
	r.Type, r.isint, r.v = int32(C.LUA_TNUMBER), 0, math.Float64bits(a)
	r2 := (*Arg)(unsafe.Pointer(&f.p.ret2))
	r2.Type, r2.isint, r2.v = int32(C.LUA_TNUMBER), 0, math.Float64bits(b)
}

// SetSelfPtr stores p, the address of the object behind argument 1 (a
// live ByObj userdata of this state, as Self reported), in that userdata,
// so that C serves the object's fields from then on. The caller must have
// pinned the object for as long as its slot lives.
func (f Frame) SetSelfPtr(p unsafe.Pointer) {
	a := &f.p.args[0]
	if f.p.nargs < 1 || a._type != C.LUA_TUSERDATA || a.isint == 0 {
		return
	}
	h := *(**C.zlua_udheader)(unsafe.Pointer(&a.v))
	if h == nil || h.kind != C.ZLUA_KIND_BYOBJ || h.flags&C.ZLUA_F_RELEASED != 0 {
		return
	}
	(*C.ZLuaObjectUserData)(unsafe.Pointer(h)).ptr = C.uint64_t(uintptr(p))
}

// ReturnBool sets the call's one result to a boolean (see ReturnInt).
func (f Frame) ReturnBool(b bool) {
	r := (*Arg)(unsafe.Pointer(&f.p.ret))
	r.Type, r.isint, r.v = int32(C.LUA_TBOOLEAN), 0, 0
	if b {
		r.v = 1
	}
}

// Arg is one Lua value read without allocation: its type and, for numbers,
// booleans and strings, its value. A string's bytes stay valid only while
// the value is on the stack.
type Arg struct {
	Type  int32
	isint int32
	len   uintptr
	v     uint64
}

// IsInt reports whether a number had the integer subtype.
func (a *Arg) IsInt() bool { return a.isint != 0 }

// ID is the identity of a table, function or thread argument
// (lua_topointer: two live values have the same ID exactly when they are
// rawequal); 0 for other types.
func (a *Arg) ID() uintptr {
	switch a.Type {
	case int32(TTable), int32(TFunction), int32(TThread):
		return uintptr(a.v)
	}
	return 0
}

// Int returns the integer of a number with the integer subtype.
func (a *Arg) Int() int64 { return int64(a.v) }

// Num returns the float of a number without the integer subtype.
func (a *Arg) Num() float64 { return *(*float64)(unsafe.Pointer(&a.v)) }

// Bool returns a boolean's value.
func (a *Arg) Bool() bool { return *(*C.int)(unsafe.Pointer(&a.v)) != 0 }

// String copies a string's bytes.
func (a *Arg) String() string {
	return C.GoStringN(*(**C.char)(unsafe.Pointer(&a.v)), C.int(a.len))
}

// Bytes copies a string's bytes into a new slice.
func (a *Arg) Bytes() []byte {
	return C.GoBytes(*(*unsafe.Pointer)(unsafe.Pointer(&a.v)), C.int(a.len))
}

// GateHandler serves a Lua→Go call: Frame.GateID names the Env,
// Frame.FuncID the function.
// It returns a Status* value with its program committed.
type GateHandler func(fr Frame) int32

var gateHandler GateHandler = func(Frame) int32 { return StatusError }

// SetGateHandler installs the gate; callbackgate does it at init.
func SetGateHandler(h GateHandler) { gateHandler = h }

// View returns a string argument's bytes without copying; the string is
// valid only while the value stays on the stack, so it must not be kept.
func (a *Arg) View() string {
	return unsafe.String((*byte)(*(*unsafe.Pointer)(unsafe.Pointer(&a.v))), int(a.len))
}
