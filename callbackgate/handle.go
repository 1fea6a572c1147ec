package callbackgate

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"

	"github.com/zlua-go/zlua/cgo"
	"github.com/zlua-go/zlua/pump"
)

var (
	// ErrReleased reports a call of a Function after Release.
	ErrReleased = errors.New("zlua: function handle released")
	// ErrStale reports a handle of a state that was reset or closed.
	ErrStale = errors.New("zlua: function belongs to a reset or closed Env")
)

// Function is a Lua function held by Go through a registry ref: while the
// handle is reachable, Lua keeps the function alive. Dropping the handle
// queues the ref for release on the Env's goroutine (Pump); Release does
// it at once. A Function is used on the Env's goroutine.
type Function struct {
	g        *Gate
	gen      uint64
	ref      int32
	q        *pump.Queue
	name     string
	released bool
	cleanup  runtime.Cleanup
}

// NewFunction refs the function at absolute index idx of t. name is used in
// error messages.
func (g *Gate) NewFunction(t cgo.Thread, idx int, name string) (*Function, error) {
	t.PushValue(idx)
	ref, err := g.refTop(t)
	if err != nil {
		return nil, err
	}
	f := &Function{g: g, gen: g.gen, ref: int32(ref), q: g.unrefs, name: name}
	g.liveRefs.Add(1)
	f.cleanup = runtime.AddCleanup(f, f.q.Push, f.ref)
	return f, nil
}

// Name returns the name the handle was made under.
func (f *Function) Name() string { return f.name }

// Release releases the Lua function now (the ref is freed at the next
// Pump). Later calls fail with ErrReleased. Idempotent.
func (f *Function) Release() {
	if f.released {
		return
	}
	f.released = true
	f.cleanup.Stop()
	f.q.Push(f.ref)
}

func (f *Function) check() error {
	switch {
	case f.released:
		return ErrReleased
	case f.g.Closed() || f.gen != f.g.gen:
		return ErrStale
	}
	return nil
}

// start begins a call: checks the handle, claims the gate and starts the
// program with the function.
func (f *Function) start() (*Gate, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	g := f.g
	if err := g.Enter(); err != nil {
		return nil, err
	}
	g.S.ProgReset()
	g.S.PutRef(f.ref)
	return g, nil
}

// finish calls the program built since start with nargs arguments. On
// success the results are in r, and on the stack above top unless
// r.Popped. The caller ends with g.endCall(r, top).
func (f *Function) finish(g *Gate, nres, nargs int) (r *cgo.CallResult, top int, err error) {
	t := g.cur
	r, err = g.callResult()
	if err == nil {
		err = g.S.Commit()
	}
	if err != nil {
		return &noResults, 0, err
	}
	st := g.S.CallRef(t, nres, g.S.ProgSimple(nargs+1), r)
	top = int(r.Base)
	if st != cgo.OK {
		err := g.ErrorFromTop(t, st)
		r.Popped = 1 // the error value was popped
		return r, top, err
	}
	if r.Popped == 0 && !g.S.Reserve(t, ReadStack) {
		return r, top, ErrMemory
	}
	return r, top, nil
}

// noResults stands for a call that pushed nothing.
var noResults = cgo.CallResult{Popped: 1}

// endCall restores the stack and releases the gate.
func (g *Gate) endCall(r *cgo.CallResult, top int) {
	if r.Popped == 0 {
		g.cur.SetTop(top)
	}
	g.Exit()
}

// ReadGlobal reads the global name into v (as Global converts), within an
// API call. A scalar global costs one crossing: C reads it with the
// lookup; anything else is converted from the stack and then popped.
func (g *Gate) ReadGlobal(t cgo.Thread, name string, v reflect.Value) error {
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
	err = g.read(t, int(r.Base)+1, &a, v, 0)
	t.SetTop(int(r.Base))
	return err
}

// result returns result i (0-based) of a call as an Arg and its index.
func (g *Gate) result(r *cgo.CallResult, top, i int) (cgo.Arg, int) {
	idx := top + 1 + i
	switch {
	case i >= int(r.N):
		return cgo.Arg{Type: int32(cgo.TNone)}, idx
	case i < cgo.CallRes:
		return r.Res[i], idx
	}
	return g.cur.Arg(idx), idx
}

func (f *Function) resultError(i int, err error) error {
	return fmt.Errorf("zlua: call %q: result #%d: %w", f.name, i+1, err)
}

func (f *Function) argError(i int, err error) error {
	return fmt.Errorf("zlua: call %q: argument #%d: %w", f.name, i+1, err)
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
	r, top, err := f.finish(g, cgo.MultRet, len(args))
	var out []any
	if err == nil {
		out = make([]any, r.N)
		for i := range out {
			a, idx := g.result(r, top, i)
			if out[i], err = g.natural(g.cur, idx, &a, 0); err != nil {
				err = f.resultError(i, err)
				out = nil
				break
			}
		}
	}
	g.endCall(r, top)
	return out, err
}

// push appends a *Function as its Lua function.
func (f *Function) push(g *Gate) error {
	if f.g != g {
		return errors.New("zlua: function handle of another Env")
	}
	if err := f.check(); err != nil {
		return err
	}
	g.S.PutRef(f.ref)
	return nil
}
