package callbackgate

import (
	"context"
	"fmt"
	"reflect"

	"github.com/zlua-go/zlua/cgo"
)

// Typed resume funcs (Thread.MakeResumer): a Go func whose call resumes
// the thread, the way a typed func from GetFunction calls a Lua function.
// Common signatures (no parameter or one int, float64 or bool; no result
// or one int, float64, bool or string; optionally a last error) resume in
// one crossing without reflection and without allocating; others go
// through reflect.MakeFunc.

// MakeResumer returns a func of type typ that resumes th: its arguments
// are pushed like Resume's, the values the thread yields (or returns)
// convert into its results like a typed func's, a last error result
// receives the resume's error (without one, the func panics with it).
func (th *Thread) MakeResumer(typ reflect.Type) reflect.Value {
	if typ.NumIn() > 0 && typ.In(0) == contextType {
		// As a typed func from GetFunction: the context is not passed to
		// Lua, the resume runs under it (a limited call when it can end).
		nres, errLast := resultShape(typ)
		return reflect.MakeFunc(typ, func(args []reflect.Value) []reflect.Value {
			ctx, _ := args[0].Interface().(context.Context)
			return reflectCall(typ, args[1:], nres, errLast, func(args, out []reflect.Value) error {
				return th.resumeReflectContext(ctx, args, out)
			})
		})
	}
	if mk, ok := fastResumers[typ]; ok {
		return reflect.ValueOf(mk(th))
	}
	nres, errLast := resultShape(typ)
	return reflect.MakeFunc(typ, func(args []reflect.Value) []reflect.Value {
		return reflectCall(typ, args, nres, errLast, th.resumeReflect)
	})
}

// resumeArg and resumeRes are the parameter and result types of the
// allocation-free resumers.
type (
	resumeArg interface{ int | float64 | bool }
	resumeRes interface{ int | float64 | bool | string }
)

var fastResumers = map[reflect.Type]func(th *Thread) any{
	reflect.TypeFor[func() error](): func(th *Thread) any {
		return func() error { return th.resumeTyped(0, nil, nil) }
	},
	reflect.TypeFor[func()](): func(th *Thread) any {
		return func() { must(th.resumeTyped(0, nil, nil)) }
	},
}

func init() {
	addResumers[int]()
	addResumers[float64]()
	addResumers[bool]()
	addNoArgResumer[int]()
	addNoArgResumer[float64]()
	addNoArgResumer[bool]()
	addNoArgResumer[string]()
}

// addResumers registers the signatures with one parameter of type A.
func addResumers[A resumeArg]() {
	fastResumers[reflect.TypeFor[func(A) error]()] = func(th *Thread) any {
		return func(a A) error { return th.resumeTyped(1, func(r *cgo.CallResult) { setIn(r, 0, a) }, nil) }
	}
	fastResumers[reflect.TypeFor[func(A)]()] = func(th *Thread) any {
		return func(a A) { must(th.resumeTyped(1, func(r *cgo.CallResult) { setIn(r, 0, a) }, nil)) }
	}
	addArgResumer[A, int]()
	addArgResumer[A, float64]()
	addArgResumer[A, bool]()
	addArgResumer[A, string]()
}

// addArgResumer registers func(A) (R, error) and func(A) R.
func addArgResumer[A resumeArg, R resumeRes]() {
	fastResumers[reflect.TypeFor[func(A) (R, error)]()] = func(th *Thread) any {
		return func(a A) (R, error) {
			var v R
			err := th.resumeTyped(1, func(r *cgo.CallResult) { setIn(r, 0, a) }, &v)
			return v, err
		}
	}
	fastResumers[reflect.TypeFor[func(A) R]()] = func(th *Thread) any {
		return func(a A) R {
			var v R
			must(th.resumeTyped(1, func(r *cgo.CallResult) { setIn(r, 0, a) }, &v))
			return v
		}
	}
}

// addNoArgResumer registers func() (R, error) and func() R.
func addNoArgResumer[R resumeRes]() {
	fastResumers[reflect.TypeFor[func() (R, error)]()] = func(th *Thread) any {
		return func() (R, error) {
			var v R
			err := th.resumeTyped(0, nil, &v)
			return v, err
		}
	}
	fastResumers[reflect.TypeFor[func() R]()] = func(th *Thread) any {
		return func() R {
			var v R
			must(th.resumeTyped(0, nil, &v))
			return v
		}
	}
}

// readFirst converts the first value a resume yielded or returned (none
// reads as nil) into *out, an *int, *float64, *bool or *string.
func readFirst(g *Gate, r *cgo.CallResult, top int, out any) error {
	res, idx := g.result(r, top, 0)
	var err error
	switch p := out.(type) {
	case *int:
		var i int64
		if i, err = g.readInt(g.cur, idx, &res); err == nil {
			if int64(int(i)) != i {
				err = outOfRange(reflect.Int)
			}
			*p = int(i)
		}
	case *float64:
		*p, err = g.readFloat(g.cur, idx, &res)
	case *bool:
		*p, err = g.readBool(g.cur, idx, &res)
	case *string:
		*p, err = g.readString(g.cur, idx, &res)
	}
	if err != nil {
		return fmt.Errorf("zlua: resume: result #1: %w", err)
	}
	return nil
}

// setIn sets scalar argument i of r.
func setIn[A resumeArg](r *cgo.CallResult, i int, a A) {
	switch p := any(&a).(type) {
	case *int:
		r.SetInt(i, int64(*p))
	case *float64:
		r.SetNum(i, *p)
	case *bool:
		r.SetBool(i, *p)
	}
}

// resumeTyped is the body of the fast resumers: an API call that resumes
// th with the nin arguments set sets in the call's buffer and, unless out
// is nil, converts the first value the thread yields or returns into out
// (readFirst) while it is valid. A thread the one-crossing path cannot
// resume as it stands (dead, running, killed, a limited call in progress)
// takes the full path, which reports why in Lua's words. The one-crossing
// resume is made from this frame ("Frames on the nested path" in
// docs/ARCHITECTURE.md). No defer on the path: nothing here panics, and
// Lua code runs below C frames.
func (th *Thread) resumeTyped(nin int, set func(*cgo.CallResult), out any) error {
	g, err := th.enter()
	if err != nil {
		return resumeRefusal(err)
	}
	r, err := th.resumeBuffer(g, nin, set)
	if err != nil {
		g.Exit()
		return err
	}
	t := g.cur
	slow := true
	if !th.killed {
		slow, err = th.resumeFastDone(g, t, r, g.S.ResumeScalars(t, th.ref, nin, r))
	}
	if err == nil {
		err = th.resumeTypedEnd(g, t, r, nin, slow, out)
	}
	g.Exit()
	return err
}

// resumeBuffer checks th inside the API call and returns the call's
// buffer with the arguments set.
func (th *Thread) resumeBuffer(g *Gate, nin int, set func(*cgo.CallResult)) (*cgo.CallResult, error) {
	if err := th.check(); err != nil {
		return nil, resumeRefusal(err)
	}
	r, err := g.callResult()
	if err != nil {
		return nil, err
	}
	if set != nil {
		set(r)
	}
	return r, nil
}

// resumeTypedEnd is resumeTyped after the one-crossing resume (or without
// it: slow), inside the API call: the full path from the arguments set in
// r when slow, then the conversion into out and the stack restored.
func (th *Thread) resumeTypedEnd(g *Gate, t cgo.Thread, r *cgo.CallResult, nin int, slow bool, out any) error {
	top := int(r.Base)
	if slow { // the full path, from the arguments set in r
		top = t.Top()
		args := make([]any, nin)
		for i := range args {
			args[i], _ = g.natural(t, 0, &r.In[i], 0)
		}
		n, err := th.resumeRaw(g, t, args)
		if err != nil {
			t.SetTop(top)
			return err
		}
		r.N, r.Popped, r.Base = int32(n), 0, int32(top)
		for i := 0; i < n && i < cgo.CallRes; i++ {
			r.Res[i] = t.Arg(top + 1 + i)
		}
	} else if r.Popped == 0 && !g.S.Reserve(t, ReadStack) {
		t.SetTop(top)
		return ErrMemory
	}
	var err error
	if out != nil {
		err = readFirst(g, r, top, out)
	}
	if r.Popped == 0 {
		t.SetTop(top)
	}
	return err
}

// resumeReflect is the body of a reflect-made resumer: it resumes th with
// args (pushed like Resume's) and converts the thread's first len(out)
// values into out.
func (th *Thread) resumeReflect(args, out []reflect.Value) error {
	return th.resumeReflectContext(context.Background(), args, out)
}

// resumeReflectContext is resumeReflect under ctx: a limited resume when
// ctx can end, as ResumeContext.
func (th *Thread) resumeReflectContext(ctx context.Context, args, out []reflect.Value) error {
	limited := !Unlimited(ctx)
	if limited {
		if err := CtxDone(ctx); err != nil {
			return fmt.Errorf("zlua: resume: %w", err)
		}
	}
	g, err := th.enter()
	if err != nil {
		return resumeRefusal(err)
	}
	defer g.Exit()
	if err := th.check(); err != nil {
		return resumeRefusal(err)
	}
	t := g.cur
	top := t.Top()
	defer g.RestoreTop(t, top)
	var l *limit
	if limited {
		l = g.beginLimit(ctx, t)
		defer l.release()
	}
	n, err := th.resumeRaw(g, t, interfaces(args))
	if l != nil {
		err = th.endLimit(g, t, top, ctx, l, err)
	}
	if err != nil {
		return err
	}
	return th.readOuts(g, t, top, n, out)
}

// interfaces returns args as the values Resume takes.
func interfaces(args []reflect.Value) []any {
	in := make([]any, len(args))
	for i, a := range args {
		in[i] = a.Interface()
	}
	return in
}

// readOuts converts the n values a resume left above top into out (a
// missing value reads as nil: noResult; a last Values takes the rest).
func (th *Thread) readOuts(g *Gate, t cgo.Thread, top, n int, out []reflect.Value) error {
	for i := range out {
		if i == len(out)-1 && restOf(out) {
			j, err := g.ReadRest(t, out[i], i, n, func(k int) (cgo.Arg, int) { return t.Arg(top + 1 + k), top + 1 + k })
			if err != nil {
				return fmt.Errorf("zlua: resume: result #%d: %w", j+1, err)
			}
			break
		}
		idx := top + 1 + i
		a := noResult
		if i < n {
			a = t.Arg(idx)
		}
		if err := g.read(t, idx, &a, out[i], 0); err != nil {
			return fmt.Errorf("zlua: resume: result #%d: %w", i+1, err)
		}
	}
	return nil
}

// resumeRefusal names the operation in a handle's refusal of a bound
// resume ("zlua: resume: handle released"), as Thread.Resume does; other
// errors are returned as they are.
func resumeRefusal(err error) error {
	switch err {
	case errZeroHandle, ErrCopied, ErrReleased, ErrStale:
		return &stepError{step: "resume", err: err}
	}
	return err
}

// Usable reports why the handle cannot be used, without claiming its
// Env: not made by an Env, copied or released (nil otherwise; a reset or
// closed Env is found when it is used).
func (th *Thread) Usable() error {
	if th.g == nil {
		return errZeroHandle
	}
	return th.usable()
}

// enter claims th's Env for a resume: a zero, released or stale handle
// (its Env closed or reset) is refused before anything runs.
func (th *Thread) enter() (*Gate, error) {
	if th.g == nil {
		return nil, errZeroHandle
	}
	if err := th.usable(); err != nil {
		return nil, err
	}
	if err := th.g.Enter(); err != nil {
		if err == ErrClosed {
			return nil, ErrStale
		}
		return nil, err
	}
	return th.g, nil
}
