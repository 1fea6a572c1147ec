package callbackgate

import (
	"fmt"
	"reflect"

	"github.com/zlua-go/zlua/cgo"
)

// Function is a Lua function held by Go through a registry ref: while the
// handle is reachable, Lua keeps the function alive. Dropping the handle
// queues the ref for release on the Env's goroutine (Pump); Release does
// it at once. A Function is used on the Env's goroutine. A method bound
// with Table.Method also holds its receiver, passed as the first argument.
type Function struct {
	luaRef
	name string
	self luaRef // the receiver of a bound method, or zero
}

// NewFunction refs the function at absolute index idx of t. name is used in
// error messages.
func (g *Gate) NewFunction(t cgo.Thread, idx int, name string) (*Function, error) {
	ref, err := g.refValue(t, idx)
	if err != nil {
		return nil, err
	}
	f := &Function{name: name}
	own(&f.luaRef, g, f, ref)
	return f, nil
}

// Name returns the name the handle was made under.
func (f *Function) Name() string { return f.name }

// Release releases the Lua function now (the ref is freed at the next
// Pump). Later calls fail with ErrReleased. Idempotent.
func (f *Function) Release() {
	f.luaRef.release()
	f.self.release()
}

// nself is the number of arguments start pushes before the caller's: 1
// for a bound method (its receiver).
func (f *Function) nself() int {
	if f.self.g != nil {
		return 1
	}
	return 0
}

// start begins a call: claims the gate, checks the handle and starts the
// program with the function. The handle is checked only once the claim is
// won, since Close or Reset may run until then.
func (f *Function) start() (*Gate, error) {
	if f.g == nil {
		return nil, errZeroHandle
	}
	if err := f.usable(); err != nil {
		return nil, err
	}
	g := f.g
	if err := g.Enter(); err != nil {
		if err == ErrClosed {
			return nil, ErrStale
		}
		return nil, err
	}
	if err := f.check(); err != nil {
		g.Exit()
		return nil, err
	}
	g.S.ProgReset()
	g.S.PutRef(f.ref)
	if f.self.g != nil {
		g.S.PutRef(f.self.ref)
	}
	return g, nil
}

// finish calls the program built since start with nargs arguments. On
// success the results are in r, and on the stack above top unless
// r.Popped. The caller ends with g.endCall(r, top). The hot callers make
// these steps themselves, so that the cgo stub is called from their frame
// (see "Frames on the nested path" in docs/ARCHITECTURE.md).
func (f *Function) finish(g *Gate, nres, nargs int) (r *cgo.CallResult, top int, err error) {
	if r, err = g.commit(); err != nil {
		return r, 0, err
	}
	top, err = f.callDone(g, r, g.S.CallRef(g.cur, nres, f.simpleProg(g, nargs), r))
	return r, top, err
}

// simpleProg reports whether the program of a call of f with nargs
// arguments (the function and its receiver come first) can run without
// the dispatcher (cgo.State.ProgSimple).
func (f *Function) simpleProg(g *Gate, nargs int) bool {
	return g.S.ProgSimple(nargs + 1 + f.nself())
}

// commit ends the program of a call and returns the result buffer of its
// depth. On error it returns noResults (nothing was pushed), with which
// the caller ends the call: g.endCall(r, 0).
func (g *Gate) commit() (*cgo.CallResult, error) {
	r, err := g.callResult()
	if err == nil {
		err = g.S.Commit()
	}
	if err != nil {
		return &noResults, err
	}
	return r, nil
}

// callDone ends a call's cgo call (CallRef or CallScalars), which returned
// status st: it makes the error of a raise, or reserves the stack the
// results are read with. The caller ends with g.endCall(r, top).
func (f *Function) callDone(g *Gate, r *cgo.CallResult, st int) (top int, err error) {
	top = int(r.Base)
	if st != cgo.OK {
		err = g.ErrorFromTop(g.cur, st)
		r.Popped = 1 // the error value was popped
		return top, err
	}
	if r.Popped == 0 && !g.S.Reserve(g.cur, ReadStack) {
		return top, ErrMemory
	}
	return top, nil
}

// noResults stands for a call that pushed nothing.
var noResults = cgo.CallResult{Popped: 1}

// endCall restores the stack and releases the gate. Small enough to be
// inlined: the stack is restored out of line (scalar results were popped
// in C).
func (g *Gate) endCall(r *cgo.CallResult, top int) {
	if r.Popped == 0 {
		g.setTop(top)
	}
	g.Exit()
}

// endScalar is endCall for the calls startScalars began, err their
// error. Its common case, an outermost call that succeeded, ran no Go
// code and left nothing queued in C (S.QuietSince, against the count
// startScalars took), has nothing for exitOutermost's settling to find:
// every producer of that work is Go code under the gate (a Go function
// run from Lua, an error made, a value pushed) or a C queue. The call
// only pushed scalars and popped its results, so releasing the gate is
// all that is left.
func (g *Gate) endScalar(r *cgo.CallResult, top int, err error) {
	calls := g.scalarCalls
	if err == nil && g.deep == 1 && r.Popped != 0 && calls != noCalls && !g.locked && !g.yieldDue &&
		len(g.sv.opq) == 0 && g.S.QuietSince(calls) {
		g.scalarCalls = noCalls
		g.deep = 0
		g.countExit()
		g.busy.Release(gateIdle)
		return
	}
	if g.deep == 1 && len(g.sv.opq) == 1 && !g.dead() {
		// An outermost call that passed one opaque handle (callAny's
		// common case): endCall and Exit written out, which saves their
		// frames. The handle's entry is the only one and of this depth.
		// Exit's steps for deep 1 (not unwinding, closeOpaque, then
		// exitOutermost): a change there is a change here.
		if r.Popped == 0 {
			g.setTop(top)
		}
		g.sv.opq[0] = opaqueEntry{}
		g.sv.opq = g.sv.opq[:0]
		g.deep = 0
		g.exitOutermost()
		return
	}
	g.endCall(r, top)
}

// noCalls is Gate.scalarCalls when no outermost scalar call runs (a count
// S.OwnCalls never reaches).
const noCalls = ^uint64(0)

// setTop sets the current thread's stack top (endCall's out-of-line part).
//
//go:noinline
func (g *Gate) setTop(top int) { g.cur.SetTop(top) }

// GetGlobalInto reads the global name (no dots) into v as Global
// converts, within an API call. A scalar global costs one crossing: C
// reads it with the lookup; anything else is converted from the stack
// (ReadGlobal: errors inside it are rooted at name) and then popped.
func (g *Gate) GetGlobalInto(t cgo.Thread, name string, v reflect.Value) error {
	r, err := g.callResult()
	if err != nil {
		return err
	}
	s := g.S
	s.ProgReset()
	s.PutStr(name)
	if err := s.Commit(); err != nil {
		return err
	}
	if st := s.GetGlobal(t, r); st != cgo.OK {
		return g.ErrorFromTop(t, st)
	}
	a := r.Res[0]
	if r.Popped != 0 {
		return g.read(t, 0, &a, v, 0) // scalars are read from a alone
	}
	err = g.ReadGlobal(t, int(r.Base)+1, v, name)
	t.SetTop(int(r.Base))
	return err
}

// result returns result i (0-based) of a call as an Arg and its index.
func (g *Gate) result(r *cgo.CallResult, top, i int) (cgo.Arg, int) {
	idx := top + 1 + i
	switch {
	case i >= int(r.N):
		return noResult, idx
	case i < cgo.CallRes:
		return r.Res[i], idx
	}
	return g.cur.Arg(idx), idx
}

func (f *Function) resultError(i int, err error) error {
	return fmt.Errorf("zlua: call %q: result #%d: %w", f.name, i+1, err)
}

func (f *Function) argError(i int, err error) error {
	return &stepError{step: fmt.Sprintf("call %q: argument #%d", f.name, i+1), err: err}
}

// Call calls the function with args (converted like SetGlobal values) and
// returns all its results in their natural Go form.
func (f *Function) Call(args ...any) ([]any, error) {
	g, err := f.start()
	if err != nil {
		return nil, err
	}
	for i, a := range args {
		if err := g.push(a, f.name, 0); err != nil {
			g.Exit()
			return nil, f.argError(i, err)
		}
	}
	r, err := g.commit()
	top := 0
	var out []any
	if err == nil {
		top, err = f.callDone(g, r, g.S.CallRef(g.cur, cgo.MultRet, f.simpleProg(g, len(args)), r))
	}
	if err == nil {
		out, err = f.naturalResults(g, r, top)
	}
	g.endCall(r, top)
	return out, err
}

// naturalResults converts the r.N results of a call in their natural Go
// form; on a failed conversion it releases the handles already made (a
// result list that is not returned must not hold refs until a cleanup).
func (f *Function) naturalResults(g *Gate, r *cgo.CallResult, top int) ([]any, error) {
	g.ConvScope() // the results share one budget (convbudget.go)
	defer g.ConvEndScope()
	out := make([]any, r.N)
	for i := range out {
		a, idx := g.result(r, top, i)
		var err error
		if out[i], err = g.natural(g.cur, idx, &a, 0); err != nil {
			ReleaseAll(out[:i])
			return nil, f.resultError(i, err)
		}
	}
	return out, nil
}

// push appends a *Function as its Lua function (for a bound method, the
// method's function, without its receiver).
func (f *Function) push(g *Gate) error { return f.put(g, "function") }
