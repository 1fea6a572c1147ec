package callbackgate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"

	"github.com/zlua-go/zlua/cgo"
)

// Table is a Lua table held by Go through a registry ref, with the
// lifetime rules of Function (see luaRef). Its operations are API calls:
// each claims the gate, runs under protection (metamethods included) and
// restores the stack.
type Table struct{ luaRef }

var tableType = reflect.TypeFor[*Table]()

// NewTableRef refs the table at absolute index idx of t.
func (g *Gate) NewTableRef(t cgo.Thread, idx int) (*Table, error) {
	ref, err := g.refValue(t, idx)
	if err != nil {
		return nil, err
	}
	tb := &Table{}
	own(&tb.luaRef, g, tb, ref)
	return tb, nil
}

// CreateTable makes a new empty table and a handle on it. The caller is
// inside an API call.
func (g *Gate) CreateTable(t cgo.Thread) (*Table, error) {
	s := g.S
	s.ProgReset()
	s.PutNewTable(0, 0)
	if err := s.Commit(); err != nil {
		return nil, err
	}
	st, ref := s.Run(t, cgo.OpProgRef, 0, 0, 0)
	if st != cgo.OK {
		return nil, g.ErrorFromTop(t, st)
	}
	tb := &Table{}
	own(&tb.luaRef, g, tb, int32(ref))
	return tb, nil
}

// Release releases the table now (the ref is freed at the next Pump).
// Later uses fail with ErrReleased. Idempotent.
func (tb *Table) Release() { tb.release() }

// call runs f as one API call on the table: the gate claimed, the handle
// checked, and the stack restored afterwards.
func (tb *Table) call(f func(g *Gate, t cgo.Thread) error) error { return tb.callCtx(nil, f) }

// callCtx is call as a limited call under ctx (nil: unlimited).
func (tb *Table) callCtx(ctx context.Context, f func(g *Gate, t cgo.Thread) error) (err error) {
	g, err := tb.enter()
	if err != nil {
		return err
	}
	defer g.Exit()
	if ctx != nil {
		l := g.beginLimit(ctx, g.cur)
		defer l.release()
		defer func() { err = CtxResult(ctx, err, l.end()) }()
	}
	t := g.cur
	top := t.Top()
	defer g.RestoreTop(t, top)
	return f(g, t)
}

// enter claims the gate for an API call on the table and checks the
// handle; the caller's g.Exit ends the call.
func (tb *Table) enter() (*Gate, error) {
	if tb.g == nil {
		return nil, errZeroHandle
	}
	if err := tb.usable(); err != nil {
		return nil, err
	}
	// The handle is checked once the claim is won: Close or Reset may run
	// until then (see Function.start).
	g := tb.g
	if err := g.Enter(); err != nil {
		if err == ErrClosed {
			return nil, ErrStale
		}
		return nil, err
	}
	if err := tb.check(); err != nil {
		g.Exit()
		return nil, err
	}
	return g, nil
}

// run commits the program (the table, then its operands) and runs the
// protected operation op with nres results.
func (g *Gate) run(t cgo.Thread, op, nres int) error {
	if err := g.S.Commit(); err != nil {
		return err
	}
	if st, _ := g.S.Run(t, op, 0, nres, 0); st != cgo.OK {
		return g.ErrorFromTop(t, st)
	}
	return nil
}

// Get reads tb[key] (__index runs) into out, converted like a Go function
// argument.
func (tb *Table) Get(key any, out reflect.Value, over bool) error {
	return tb.get(nil, key, out, cgo.OpIndex, over)
}

// GetContext is Get as a limited call under ctx (nil: Get): the
// metamethods it runs stop when ctx is done.
func (tb *Table) GetContext(ctx context.Context, key any, out reflect.Value, over bool) error {
	return tb.get(ctx, key, out, cgo.OpIndex, over)
}

// get reads the value op (OpIndex or OpRawIndex) leaves for key into out,
// decoded over out's value when over (an Overlay out: overlay.go). A
// scalar costs one crossing (cgo.State.TableOp reads it with the lookup);
// anything else is converted from the stack.
func (tb *Table) get(ctx context.Context, key any, out reflect.Value, op int, over bool) (err error) {
	g, err := tb.enter()
	if err != nil {
		return err
	}
	defer g.Exit()
	if ctx != nil {
		l := g.beginLimit(ctx, g.cur)
		defer l.release()
		defer func() { err = CtxResult(ctx, err, l.end()) }()
	}
	if over {
		defer g.ArmOverlay(g.ArmOverlay(out.Addr().UnsafePointer()))
	}
	r, err := g.tableOp(tb, key, nil, op, 1)
	if err != nil || r.Popped != 0 {
		if err == nil {
			a := r.Res[0]
			err = g.read(g.cur, 0, &a, out, 0) // scalars are read from a alone
		}
		return err
	}
	t, base := g.cur, int(r.Base)
	defer g.RestoreTop(t, base)
	if !g.S.Reserve(t, ReadStack) {
		return ErrMemory
	}
	return g.ReadInto(t, base+1, out)
}

// tableOp runs op on tb with key (and value, for a store) as one
// protected operation with nres results (cgo.State.TableOp). On error
// the stack is back where it was; else a result that is not a scalar
// stays on it above r.Base.
func (g *Gate) tableOp(tb *Table, key, value any, op, nres int) (*cgo.CallResult, error) {
	r, err := g.callResult()
	if err != nil {
		return nil, err
	}
	s := g.S
	s.ProgReset()
	s.PutRef(tb.ref)
	if err := g.push(key, "", 0); err != nil {
		return nil, err
	}
	if nres == 0 {
		name, _ := key.(string)
		if err := g.push(value, name, 0); err != nil {
			return nil, err
		}
	}
	if err := s.Commit(); err != nil {
		return nil, err
	}
	if st := s.TableOp(g.cur, op, nres, r); st != cgo.OK {
		base := int(r.Base)
		err := g.ErrorFromTop(g.cur, st)
		g.RestoreTop(g.cur, base)
		return nil, err
	}
	return r, nil
}

// Set does tb[key] = value (__newindex runs); value converts like a
// SetGlobal value. A nil or NaN key is refused as Lua refuses it.
func (tb *Table) Set(key, value any) error { return tb.set(nil, key, value, cgo.OpNewIndex) }

// SetContext is Set as a limited call under ctx (nil: Set).
func (tb *Table) SetContext(ctx context.Context, key, value any) error {
	return tb.set(ctx, key, value, cgo.OpNewIndex)
}

// set stores value at key with op (OpNewIndex or OpRawNewIndex), in one
// crossing, under ctx (nil: unlimited).
func (tb *Table) set(ctx context.Context, key, value any, op int) (err error) {
	if err := checkKey(key); err != nil {
		return err
	}
	g, err := tb.enter()
	if err != nil {
		return err
	}
	defer g.Exit()
	if ctx != nil {
		l := g.beginLimit(ctx, g.cur)
		defer l.release()
		defer func() { err = CtxResult(ctx, err, l.end()) }()
	}
	_, err = g.tableOp(tb, key, value, op, 0)
	return err
}

// checkKey refuses the keys Lua cannot index with, in the same words on
// both backends.
func checkKey(key any) error {
	switch k := key.(type) {
	case nil:
		return errors.New("index is nil")
	case float64:
		if math.IsNaN(k) {
			return errors.New("index is NaN")
		}
	case float32:
		if math.IsNaN(float64(k)) {
			return errors.New("index is NaN")
		}
	}
	return nil
}

// Len returns #tb as Lua 5.4 computes it: __len when the metatable has
// one (on LuaJIT too), else the border of the sequence part.
func (tb *Table) Len() (n int, err error) { return tb.LenContext(nil) }

// LenContext is Len as a limited call under ctx (nil: Len).
func (tb *Table) LenContext(ctx context.Context) (n int, err error) {
	err = tb.callCtx(ctx, func(g *Gate, t cgo.Thread) error {
		g.S.ProgReset()
		g.S.PutRef(tb.ref)
		if err := g.run(t, cgo.OpLen, 1); err != nil {
			return err
		}
		a := t.Arg(t.Top())
		i, err := g.readInt(t, t.Top(), &a)
		n = int(i)
		return err
	})
	return n, err
}

// Pairs returns the table's pairs in raw next order (no __pairs) as
// k1, v1, k2, v2, ...: tables as new *Table handles, functions as
// *Function handles, other values in their natural form (see natural).
// The pairs are copied in one protected operation first, so nothing a
// conversion runs (a finalizer) can disturb the traversal.
func (tb *Table) Pairs() (kv []any, err error) {
	err = tb.call(func(g *Gate, t cgo.Thread) error {
		g.S.ProgReset()
		g.S.PutRef(tb.ref)
		if err := g.run(t, cgo.OpPairs, 1); err != nil {
			return err
		}
		if !g.S.Reserve(t, ReadStack) {
			return ErrMemory
		}
		copyIdx := t.Top()
		n := t.RawLen(copyIdx)
		g.ConvScope() // the pairs share one budget (convbudget.go)
		defer g.ConvEndScope()
		kv = make([]any, 0, n)
		for i := 1; i < n; i += 2 {
			var err error
			if i, err = g.pairsRuns(t, copyIdx, &kv, i, n); err != nil {
				ReleaseAll(kv)
				kv = nil
				return err
			}
			if i >= n {
				break
			}
			t.RawGetI(copyIdx, int64(i))
			kIdx := t.Top()
			ka := t.Arg(kIdx)
			k, err := g.handleOrNatural(t, kIdx)
			if err == nil {
				kv = append(kv, k)
				t.RawGetI(copyIdx, int64(i+1))
				var v any
				v, err = g.handleOrNatural(t, t.Top())
				kv = append(kv, v)
				if err != nil {
					err = elemError(g.elemKey(t, kIdx, &ka), err)
				}
			} else {
				err = keyError(g.elemKey(t, kIdx, &ka), err)
			}
			t.SetTop(copyIdx)
			if err != nil {
				ReleaseAll(kv)
				kv = nil
				return err
			}
		}
		return nil
	})
	return kv, err
}

// handleOrNatural converts the value at idx for Pairs.
func (g *Gate) handleOrNatural(t cgo.Thread, idx int) (any, error) {
	a := t.Arg(idx)
	if a.Type == int32(cgo.TTable) {
		tb, err := g.NewTableRef(t, idx)
		if err != nil {
			return nil, err
		}
		return pubTable(tb), nil
	}
	return g.natural(t, idx, &a, 0)
}

// ReleaseAll releases the handles (Function, Table, Thread, gate or
// public types) among vs.
func ReleaseAll(vs []any) {
	for _, v := range vs {
		if v == nil {
			continue
		}
		switch rv := reflect.ValueOf(v); rv.Type() {
		case functionType, pub.Function:
			(*Function)(rv.UnsafePointer()).Release()
		case tableType, pub.Table:
			(*Table)(rv.UnsafePointer()).Release()
		case threadType, pub.Thread:
			(*Thread)(rv.UnsafePointer()).Release()
		}
	}
}

// Method returns a handle on the value tb[name] (__index runs) bound to
// tb: calling it calls tb:name(args...). The value is looked up once, now;
// it must be one Lua can call: a function, or a value whose metatable has
// __call (looked up by Lua at each call, as t:name() does). Anything else
// is Lua's "attempt to call a T value (method 'name')".
func (tb *Table) Method(name string) (f *Function, err error) { return tb.MethodContext(nil, name) }

// MethodContext is Method with its lookup as a limited call under ctx
// (nil: Method).
func (tb *Table) MethodContext(ctx context.Context, name string) (f *Function, err error) {
	err = tb.callCtx(ctx, func(g *Gate, t cgo.Thread) error {
		s := g.S
		s.ProgReset()
		s.PutRef(tb.ref)
		s.PutStr(name)
		if err := g.run(t, cgo.OpMethod, 2); err != nil {
			return err
		}
		callable := t.ToBool(t.Top())
		t.Pop(1)
		if !callable {
			return fmt.Errorf("attempt to call a %s value (method '%s')", s.TypeName(t, t.Top()), name)
		}
		if !s.Reserve(t, 2) { // NewFunction pushes a copy
			return ErrMemory
		}
		if f, err = g.NewFunction(t, t.Top(), ":"+name); err != nil {
			return err
		}
		s.ProgReset()
		s.PutRef(tb.ref)
		if err := s.Commit(); err != nil {
			f.Release()
			return err
		}
		st, ref := s.Run(t, cgo.OpProgRef, 0, 0, 0)
		if st != cgo.OK {
			f.Release()
			return g.ErrorFromTop(t, st)
		}
		own(&f.self, g, f, int32(ref))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}
