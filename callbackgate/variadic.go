package callbackgate

import (
	"reflect"

	"github.com/zlua-go/zlua/cgo"
)

// variadicPlans serve the variadic signatures of logging and event APIs,
// func(...any) and func(string, ...any), with no result or an error,
// without reflect.Value.Call: the reflective plan made a reflect.New per
// argument and its call copied them again (11 allocations for a call
// with five arguments, outside probe C2). The arguments convert exactly
// as the reflective plan converts them (readArg into each element of the
// []any the function receives), under one conversion budget; the slice
// is the function's to keep, as in a Go call.
var variadicPlans map[reflect.Type]callFunc

func init() { variadicPlans = makeVariadicPlans() }

// makeVariadicPlans makes variadicPlans (a function: the plans refer to
// the gate's push machinery, which refers back to planFor).
func makeVariadicPlans() map[reflect.Type]callFunc {
	return map[reflect.Type]callFunc{
		reflect.TypeFor[func(...any)](): func(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
			args, st := g.anyArgs(fr, 0, e.name)
			if st != 0 {
				return st
			}
			e.fn.(func(...any))(args...)
			return g.ret0()
		},
		reflect.TypeFor[func(...any) error](): func(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
			args, st := g.anyArgs(fr, 0, e.name)
			if st != 0 {
				return st
			}
			if err := e.fn.(func(...any) error)(args...); err != nil {
				return g.fail(err)
			}
			return g.ret0()
		},
		reflect.TypeFor[func(string, ...any)](): func(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
			s, args, st := g.strAnyArgs(fr, e.name)
			if st != 0 {
				return st
			}
			e.fn.(func(string, ...any))(s, args...)
			return g.ret0()
		},
		reflect.TypeFor[func(string, ...any) error](): func(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
			s, args, st := g.strAnyArgs(fr, e.name)
			if st != 0 {
				return st
			}
			if err := e.fn.(func(string, ...any) error)(s, args...); err != nil {
				return g.fail(err)
			}
			return g.ret0()
		},
	}
}

// anyArgs converts the arguments from index from (0-based) on into a new
// []any (nil when there are none), each as readArg converts it into an
// any; st is the status of the argument error raised, or 0.
func (g *Gate) anyArgs(fr cgo.Frame, from int, name string) (args []any, st int32) {
	n := fr.NArgs() - from
	if n <= 0 {
		return nil, 0
	}
	args = make([]any, n)
	g.ConvScope() // the arguments share one budget (convbudget.go)
	for i := range args {
		if err := g.readArg(fr, from+i, reflect.ValueOf(&args[i]).Elem()); err != nil {
			g.ConvEndScope()
			return nil, g.raiseArg(from+i+1, name, err)
		}
	}
	g.ConvEndScope()
	return args, 0
}

// strAnyArgs reads a string first argument, then the rest as anyArgs.
func (g *Gate) strAnyArgs(fr cgo.Frame, name string) (s string, args []any, st int32) {
	s, err := g.stringArg(fr, 0)
	if err != nil {
		return "", nil, g.raiseArg(1, name, err)
	}
	args, st = g.anyArgs(fr, 1, name)
	return s, args, st
}
