package zlua

import (
	"reflect"
	"unsafe"

	"github.com/zlua-go/zlua/callbackgate"
)

// Function, Table, Thread, LuaError and PanicError are declared here, so that the
// documentation shows their methods and fields, with the memory layout of
// the gate's types: the gate makes the values and hands them out as these
// types (the same allocation seen through the public type), and converts
// them back wherever Go values cross into Lua. RegisterPublic checks the
// layouts when the package loads.
func init() {
	callbackgate.RegisterPublic(callbackgate.PublicTypes{
		Function:   reflect.TypeFor[*Function](),
		Table:      reflect.TypeFor[*Table](),
		LuaError:   reflect.TypeFor[*LuaError](),
		PanicError: reflect.TypeFor[*PanicError](),
		Thread:     reflect.TypeFor[*Thread](),
		Values:     reflect.TypeFor[Values](),
	})
}

// pubFunction views a gate handle as the public *Function.
func pubFunction(f *callbackgate.Function) *Function { return (*Function)(unsafe.Pointer(f)) }

// pubTable views a gate handle as the public *Table.
func pubTable(t *callbackgate.Table) *Table { return (*Table)(unsafe.Pointer(t)) }

// pubThread views a gate handle as the public *Thread.
func pubThread(t *callbackgate.Thread) *Thread { return (*Thread)(unsafe.Pointer(t)) }
