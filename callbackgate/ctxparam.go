package callbackgate

import (
	"context"
	"reflect"
)

// Go functions and methods called from Lua whose first parameter (after
// the receiver, for methods) is exactly context.Context get the context
// of the call in progress there (Gate.callCtx): the one given to the
// innermost limited call, or context.Background(). That parameter is no
// Lua argument: the first one Lua passes goes to the parameter after it,
// and argument errors count from there ("bad argument #1 to 'f'" names
// the first parameter after the context).
//
// Functions of the common signatures after the context (ctxShapes, in
// shapeOf's letters) call the function code directly and allocate
// nothing; the others take the reflective plan (reflectPlanFrom) with the
// context written into the argument slot kept for it, which allocates
// nothing more than the same call without a context. Methods take their
// reflective plans (reflectMethod, valMethodCall), whose per-call values
// include one for the context. The fast plans and the other shapes never
// see these functions: the shape letters give a context parameter none
// ('?'), and planFor and newMethod choose the context plans before them,
// so functions without one are served exactly as before.
//
// The context is read when the call begins, after its arguments convert:
// it is the Gate's (callCtx), which only a limited call's beginning
// and end change, and both happen inside nested calls that have returned
// by then.

// ctxParams is 1 when parameter skip of the func type t is a
// context.Context (skip is 1 for a method expression: its receiver),
// else 0: how many of t's parameters after skip are no Lua argument.
func ctxParams(t reflect.Type, skip int) int {
	if t.NumIn() > skip && t.In(skip) == contextType {
		return 1
	}
	return 0
}

// ctxShapes serve the common signatures after the context (shapeOf from
// parameter 1 on) by calling the function code directly, as ptrShapes
// do: no reflect.Value.Call, no allocation. The closures are generated
// (shapes_gen.go) from the list in internal/shapegen.
var ctxShapes map[string]callFunc

func init() { ctxShapes = makeCtxShapes() }

// ctxPlan serves a func type whose first parameter is a context.Context:
// its shape's closure, or the reflective plan.
func ctxPlan(t reflect.Type) callFunc {
	if c := ctxShapes[shapeOf(t, 1)]; c != nil {
		return c
	}
	return reflectPlanFrom(t, 1)
}

// setCtx stores ctx into v, a settable context.Context, without boxing
// it again (v.Set(reflect.ValueOf(ctx)) would allocate the interface).
func setCtx(v reflect.Value, ctx context.Context) {
	*v.Addr().Interface().(*context.Context) = ctx
}

// ctxValue is ctx as a reflect.Value of type context.Context, for the
// plans that build their argument values per call (the methods').
func ctxValue(ctx context.Context) reflect.Value {
	v := reflect.New(contextType).Elem()
	setCtx(v, ctx)
	return v
}
