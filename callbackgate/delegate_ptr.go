package callbackgate

import (
	"reflect"
	"unsafe"
)

// Typed handles whose one parameter is a pointer to a struct (an event
// handler func(e *Entity) error, a predicate func(e *Entity) bool) cannot
// be listed in fastDelegates: the table is keyed by type and *Entity is the
// host's. They are made here from a closure whose parameter is an
// unsafe.Pointer and whose results are the same, given the delegate's type
// as it is (retype): Go's register ABI passes a pointer and an
// unsafe.Pointer in the same register, the assumption method shapes and
// func(*T, ...) plans already make (ARCHITECTURE, "The assumption behind
// it"). The closure rebuilds the argument as an interface of the
// parameter's exact type and calls like func(any) X does, so the value
// pushed is what reflect.MakeFunc's delegate pushed, without reflect's
// argument slice and result values: no allocation per call.

// ptrDelegate makes the delegate of typ when typ is func(*T) with one of
// ptrDelegateResults' result lists; ok is false for every other type.
func ptrDelegate(f *Function, typ reflect.Type) (v reflect.Value, ok bool) {
	if typ.IsVariadic() || typ.NumIn() != 1 {
		return reflect.Value{}, false
	}
	pt := typ.In(0)
	// an unnamed *T only (a named pointer type keeps its own name in the
	// interface); handles and opaque arguments push their own way
	if pt.Kind() != reflect.Pointer || pt.Elem().Kind() != reflect.Struct || pt.Name() != "" ||
		isHandle(pt) || pt.Implements(opaqueArgType) {
		return reflect.Value{}, false
	}
	mk := ptrDelegateResults[resultsKey(typ)]
	if mk == nil {
		return reflect.Value{}, false
	}
	return mk(f, typ, typeWord(pt)), true
}

// resultsKey spells typ's result types ("error", "bool,error"); any type
// outside ptrDelegateResults' lists gives a key with no entry.
func resultsKey(typ reflect.Type) string {
	key := ""
	for i := range typ.NumOut() {
		if i > 0 {
			key += ","
		}
		key += typ.Out(i).String()
	}
	return key
}

// asPtrArg is the pointer p as an interface of the parameter type whose
// type word is tw: what passing the typed pointer as an any makes.
func asPtrArg(tw, p unsafe.Pointer) any {
	a := eface{tab: tw, data: p}
	return *(*any)(unsafe.Pointer(&a))
}

// retype gives fn the delegate type typ: typ's parameters and results
// have the registers of F's (see ptrDelegate). The closure word is copied
// from a variable of type F into a new variable of type typ.
func retype[F any](typ reflect.Type, fn F) reflect.Value {
	p := new(F)
	*p = fn
	return reflect.NewAt(typ, unsafe.Pointer(p)).Elem()
}

// ptrDelegateMaker makes a delegate of type typ calling f; tw is the type
// word of typ's parameter.
type ptrDelegateMaker func(f *Function, typ reflect.Type, tw unsafe.Pointer) reflect.Value

// ptrDelegateResults are the result lists served for func(*T): none or an
// error alone (an event), and an int, float64 or bool with or without an
// error after it (a query). The types are exact: a result of a named type
// takes reflect.MakeFunc's delegate.
var ptrDelegateResults map[string]ptrDelegateMaker

func init() { ptrDelegateResults = makePtrDelegates() }

func makePtrDelegates() map[string]ptrDelegateMaker {
	return map[string]ptrDelegateMaker{
		"": func(f *Function, typ reflect.Type, tw unsafe.Pointer) reflect.Value {
			return retype(typ, func(p unsafe.Pointer) { must(f.callAny0(asPtrArg(tw, p))) })
		},
		"error": func(f *Function, typ reflect.Type, tw unsafe.Pointer) reflect.Value {
			return retype(typ, func(p unsafe.Pointer) error {
				g, r, top, err := f.callAny(asPtrArg(tw, p), 0)
				if g != nil {
					g.endCall(r, top)
				}
				return err
			})
		},
		"int": func(f *Function, typ reflect.Type, tw unsafe.Pointer) reflect.Value {
			return retype(typ, func(p unsafe.Pointer) int {
				g, r, top, err := f.callAny(asPtrArg(tw, p), 1)
				return int(mustInt(f.intResult(g, r, top, err)))
			})
		},
		"int,error": func(f *Function, typ reflect.Type, tw unsafe.Pointer) reflect.Value {
			return retype(typ, func(p unsafe.Pointer) (int, error) {
				g, r, top, err := f.callAny(asPtrArg(tw, p), 1)
				v, err := f.intResult(g, r, top, err)
				return int(v), err
			})
		},
		"float64": func(f *Function, typ reflect.Type, tw unsafe.Pointer) reflect.Value {
			return retype(typ, func(p unsafe.Pointer) float64 {
				g, r, top, err := f.callAny(asPtrArg(tw, p), 1)
				return mustFloat(f.floatResult(g, r, top, err))
			})
		},
		"float64,error": func(f *Function, typ reflect.Type, tw unsafe.Pointer) reflect.Value {
			return retype(typ, func(p unsafe.Pointer) (float64, error) {
				g, r, top, err := f.callAny(asPtrArg(tw, p), 1)
				return f.floatResult(g, r, top, err)
			})
		},
		"bool": func(f *Function, typ reflect.Type, tw unsafe.Pointer) reflect.Value {
			return retype(typ, func(p unsafe.Pointer) bool {
				g, r, top, err := f.callAny(asPtrArg(tw, p), 1)
				return mustBool(f.boolResult(g, r, top, err))
			})
		},
		"bool,error": func(f *Function, typ reflect.Type, tw unsafe.Pointer) reflect.Value {
			return retype(typ, func(p unsafe.Pointer) (bool, error) {
				g, r, top, err := f.callAny(asPtrArg(tw, p), 1)
				return f.boolResult(g, r, top, err)
			})
		},
	}
}
