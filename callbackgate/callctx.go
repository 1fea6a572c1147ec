package callbackgate

import (
	"context"
	"fmt"
	"reflect"

	"github.com/zlua-go/zlua/cgo"
)

// Go→Lua calls under a context: Function.CallContext and typed funcs
// whose first parameter is a context.Context. A context that can be done
// makes the call a limited call (limit.go); a nil or never-done one takes
// the plain call paths, allocation-free ones included.

var contextType = reflect.TypeFor[context.Context]()

// startLimited is start for a call limited by ctx: the limit begins once
// the gate is claimed, and the program (the function, its receiver) is
// written after it. The caller ends the limit before endCall.
func (f *Function) startLimited(ctx context.Context) (*Gate, *limit, error) {
	if err := CtxDone(ctx); err != nil {
		return nil, nil, fmt.Errorf("zlua: call %q: %w", f.name, err)
	}
	g, err := f.start()
	if err != nil {
		return nil, nil, f.refusal(err)
	}
	l := g.beginLimit(ctx, g.cur)
	g.S.ProgReset()
	g.S.PutRef(f.ref)
	if f.self.g != nil {
		g.S.PutRef(f.self.ref)
	}
	return g, l, nil
}

// CallContext is Call as a limited call under ctx.
func (f *Function) CallContext(ctx context.Context, args ...any) ([]any, error) {
	if Unlimited(ctx) {
		return f.Call(args...)
	}
	g, l, err := f.startLimited(ctx)
	if err != nil {
		return nil, err
	}
	defer l.release()
	for i, a := range args {
		if err := g.push(a, f.name, 0); err != nil {
			l.end()
			g.Exit()
			return nil, f.argError(i, err)
		}
	}
	r, top, err := f.finish(g, cgo.MultRet, len(args))
	fired := l.end()
	var out []any
	if err == nil {
		out, err = f.naturalResults(g, r, top)
	}
	g.endCall(r, top)
	if err = CtxResult(ctx, err, fired); err != nil && out != nil {
		ReleaseAll(out)
		out = nil
	}
	return out, err
}

// callReflectContext is callReflect as a limited call under ctx.
func (f *Function) callReflectContext(ctx context.Context, args, out []reflect.Value) error {
	if Unlimited(ctx) {
		return f.callReflect(args, out)
	}
	g, l, err := f.startLimited(ctx)
	if err != nil {
		return err
	}
	defer l.release()
	for i, a := range args {
		if err := g.pushValue(a, f.name, 0); err != nil {
			l.end()
			g.Exit()
			return f.argError(i, err)
		}
	}
	r, top, err := f.finish(g, wantResults(out), len(args))
	fired := l.end()
	if err == nil {
		err = f.readResults(g, r, top, out)
	}
	g.endCall(r, top)
	return CtxResult(ctx, err, fired)
}

// makeContextDelegate is MakeDelegate for a func type whose first
// parameter is a context.Context: the call runs under the context it is
// given, and the other parameters are the Lua function's arguments.
func (g *Gate) makeContextDelegate(f *Function, typ reflect.Type) reflect.Value {
	if mk, ok := fastContextDelegates[typ]; ok {
		return reflect.ValueOf(mk(f))
	}
	nres, errLast := resultShape(typ)
	return reflect.MakeFunc(typ, func(args []reflect.Value) []reflect.Value {
		ctx, _ := args[0].Interface().(context.Context)
		return reflectCall(typ, args[1:], nres, errLast, func(args, out []reflect.Value) error {
			return f.callReflectContext(ctx, args, out)
		})
	})
}

// fastContextDelegates build the context forms of common handler
// signatures. Under a nil or never-done context they take the plain
// allocation-free paths; a limited call allocates its watcher.
var fastContextDelegates = map[reflect.Type]func(f *Function) any{
	reflect.TypeFor[func(context.Context) error](): func(f *Function) any {
		return func(ctx context.Context) error {
			if Unlimited(ctx) {
				return f.call0()
			}
			return f.callScalarContext(ctx, scalarArg{})
		}
	},
	reflect.TypeFor[func(context.Context, int) error](): func(f *Function) any {
		return func(ctx context.Context, a int) error {
			if Unlimited(ctx) {
				return f.callNum(int64(a), 0, true)
			}
			return f.callScalarContext(ctx, scalarArg{n: 1, isInt: true, i: int64(a)})
		}
	},
	reflect.TypeFor[func(context.Context, float64) error](): func(f *Function) any {
		return func(ctx context.Context, a float64) error {
			if Unlimited(ctx) {
				return f.callNum(0, a, false)
			}
			return f.callScalarContext(ctx, scalarArg{n: 1, f: a})
		}
	},
	reflect.TypeFor[func(context.Context, string) error](): func(f *Function) any {
		return func(ctx context.Context, a string) error {
			if Unlimited(ctx) {
				return f.callStr(a)
			}
			return f.callScalarContext(ctx, scalarArg{n: 1, isStr: true, s: a})
		}
	},
}

// scalarArg is the one argument (n = 1) or none (n = 0) of a fast
// context delegate.
type scalarArg struct {
	n            int
	isInt, isStr bool
	i            int64
	f            float64
	s            string
}

// callScalarContext calls f with a under ctx, ignoring its results.
func (f *Function) callScalarContext(ctx context.Context, a scalarArg) error {
	g, l, err := f.startLimited(ctx)
	if err != nil {
		return err
	}
	defer l.release()
	if a.n > 0 {
		switch {
		case a.isStr:
			g.S.PutStr(a.s)
		case a.isInt:
			g.S.PutInt(a.i)
		default:
			g.S.PutNum(a.f)
		}
	}
	r, top, err := f.finish(g, 0, a.n)
	fired := l.end()
	g.endCall(r, top)
	return CtxResult(ctx, err, fired)
}
