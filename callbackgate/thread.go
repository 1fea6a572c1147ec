package callbackgate

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/zlua-go/zlua/cgo"
)

// Thread is a Lua thread (coroutine) held by Go through a registry ref,
// with the lifetime rules of Function (see luaRef). Resume runs it until
// it yields, returns or fails; each resume is an API call whose Lua work
// is one protected operation (cgo/resume.c).
type Thread struct {
	luaRef
	co   cgo.Thread  // the lua_State; valid while the ref holds the thread
	dead atomic.Bool // last status seen: finished or failed (see Done)
	// seen is 1 + the gate's exit count when Done last read the status:
	// equal to 1 + the current count, nothing ran since (Done's answer
	// from dead is exact).
	seen atomic.Uintptr
	// killed: a resume killed the thread (cgo.CoKilled); it stays done
	// although its status may read normal.
	killed bool
}

var threadType = reflect.TypeFor[*Thread]()

// setDead records the last status seen. The holder of the gate is its
// only writer (Done's pollers read it), and it stores only a change: a
// sync/atomic store is a locked instruction on amd64, and a thread that
// yields again and again keeps the same answer.
func (th *Thread) setDead(v bool) {
	if th.dead.Load() != v {
		th.dead.Store(v)
	}
}

// NewThreadRef refs the thread at absolute index idx of t.
func (g *Gate) NewThreadRef(t cgo.Thread, idx int) (*Thread, error) {
	ref, err := g.refValue(t, idx)
	if err != nil {
		return nil, err
	}
	th := &Thread{co: t.ToThread(idx)}
	own(&th.luaRef, g, th, ref)
	return th, nil
}

// CreateThread makes a new thread whose body is f and a handle on it. The
// caller is inside an API call on t.
func (g *Gate) CreateThread(t cgo.Thread, f *Function) (*Thread, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	s := g.S
	s.ProgReset()
	if err := f.push(g); err != nil {
		return nil, err
	}
	if err := s.Commit(); err != nil {
		return nil, err
	}
	if st, _ := s.Run(t, cgo.OpNewThread, 0, 1, 0); st != cgo.OK {
		return nil, g.ErrorFromTop(t, st)
	}
	if !s.Reserve(t, 2) { // refValue pushes a copy
		return nil, ErrMemory
	}
	return g.NewThreadRef(t, t.Top())
}

// Release releases the thread now (the ref is freed at the next Pump).
// Later uses fail with ErrReleased. Idempotent.
func (th *Thread) Release() { th.release() }

// Done reports whether the thread can no longer be resumed: it finished
// or failed, or the handle was released, or its Env reset or closed.
// Called while another goroutine uses the Env, it reports what the last
// resume from Go saw; a call of that goroutine that begins during Done's
// read waits for it (Gate.Peek) instead of failing.
//
// With no call running, Done is exact on every goroutine: a status read
// since the last call ended is answered again without the gate, and a
// read another goroutine is making meanwhile is waited for (outside
// probe G1-F6), then made again, not answered from what an earlier read
// saw: the wait has no bound, since that read may be of another thread
// and its goroutine may be descheduled in the middle of it.
func (th *Thread) Done() bool {
	if th.g == nil || th.usable() != nil {
		return true
	}
	g := th.g
	dead := false
	read := func() {
		if th.check() != nil || th.killed {
			dead = true
		} else {
			dead = g.cur.CoStatus(th.co) == cgo.CoDead
		}
		th.setDead(dead)
		if !g.doneRead { // under the gate: the count is published from now on
			g.doneRead = true
			g.publishExits()
		}
		th.seen.Store(uintptr(g.exits) + 1) // this read saw the count as it is
	}
	for spins, yields := 0, 0; ; spins++ {
		if b := g.busy.Load(); (b == gateIdle || b == gatePeeking) && th.seen.Load() == g.exitCount()+1 {
			return th.dead.Load() // read since the last call ended
		}
		ran, err := g.Peek(read)
		if ran {
			return dead
		}
		if err == ErrClosed {
			return true
		}
		if b := g.busy.Load(); (b != gatePeeking && b != gateIdle) || g.claimWait.Load() != 0 {
			return th.dead.Load() // a call runs, or waits to: what the last read saw
		}
		// Another goroutine's read runs (one cgo call long) or has just
		// ended; it may have read another thread, so read again once it
		// ends. Its goroutine can lose its OS thread in the middle, so the
		// wait has no bound: spin, then yield, then nap.
		if spins >= peekSpin {
			spins = 0
			if yields++; yields > doneYields {
				time.Sleep(doneNap)
			} else {
				runtime.Gosched()
			}
		}
	}
}

// doneYields is how many times Done yields the processor waiting for
// other goroutines' reads before it naps between tries (doneNap).
const (
	doneYields = 100
	doneNap    = 20 * time.Microsecond
)

// Resume resumes the thread with args (converted like SetGlobal values)
// and returns the values it yielded, or its results once it returned, in
// their natural Go form. A thread that fails returns its error as a
// *LuaError (message and traceback of the thread) and is dead from then
// on. Under a ctx that can be done, the resume is a limited call.
func (th *Thread) Resume(ctx context.Context, args []any) ([]any, error) {
	if th.g == nil {
		return nil, errZeroHandle
	}
	if err := th.usable(); err != nil {
		return nil, err
	}
	limited := !Unlimited(ctx)
	if limited {
		if err := CtxDone(ctx); err != nil {
			return nil, fmt.Errorf("zlua: resume: %w", err)
		}
	}
	// The handle is checked once the claim is won (see Function.start).
	g := th.g
	if err := g.Enter(); err != nil {
		if err == ErrClosed {
			return nil, ErrStale
		}
		return nil, err
	}
	if !limited {
		if out, err, done := th.resumeScalars(g, args); done {
			g.Exit()
			return out, err
		}
	}
	defer g.Exit()
	if err := th.check(); err != nil {
		return nil, err
	}
	t := g.cur
	top := t.Top()
	defer g.RestoreTop(t, top)
	var l *limit
	if limited {
		l = g.beginLimit(ctx, t)
		defer l.release()
	}
	out, err := th.resume(g, t, top, args)
	if l != nil {
		if err = th.endLimit(g, t, top, ctx, l, err); err != nil && out != nil {
			ReleaseAll(out) // the context ended the call: no results
			out = nil
		}
	}
	return out, err
}

// endLimit ends the limited resume l, whose thread yielded, returned or
// failed with err, and returns the resume's error. Whether ctx was done
// is decided once the thread has stopped: a thread that yielded after ctx
// was done, before its hook saw it, would stay suspended while Resume
// reports the interruption and drops what it yielded, so it is resumed
// once more with the interruption marked and fails at its first
// instruction, as an interrupted thread does (dead; on Lua 5.4 its
// to-be-closed variables run with the error). A context done only after
// that decision does not change the outcome: the thread's step was
// complete.
func (th *Thread) endLimit(g *Gate, t cgo.Thread, top int, ctx context.Context, l *limit, err error) error {
	done := ctx.Err() != nil
	if err == nil && done && !th.dead.Load() {
		t.SetTop(top) // the values it yielded are dropped
		err = th.interrupt(g, t, ctx)
	}
	fired := l.end()
	if err == nil {
		fired = done
	}
	return CtxResult(ctx, err, fired)
}

// interrupt resumes the suspended thread with the interruption of ctx
// marked, so that its hook raises it at once, and returns the thread's
// error. The caller is inside the limited call, whose end withdraws the
// watcher's own mark; this one is withdrawn here.
func (th *Thread) interrupt(g *Gate, t cgo.Thread, ctx context.Context) error {
	marks := g.S.Interrupts()
	reason := cgo.InterruptCanceled
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		reason = cgo.InterruptDeadline
	}
	marks.Interrupt(reason)
	defer marks.Clear()
	if _, err := th.resumeRaw(g, t, nil); err != nil {
		if !th.dead.Load() { // the resume itself failed (no memory for it): dead for Go
			th.killed = true
			th.setDead(true)
		}
		return err
	}
	// No instruction ran (its body was coroutine.yield, or a Go function
	// that yielded): it returned, or, in a C function yielding again, is
	// killed for Go.
	if !th.dead.Load() {
		th.killed = true
		th.setDead(true)
	}
	return nil
}

// resumeScalars is Resume's one-crossing path (cgo/resume.c,
// zlua_resume_scalars) for up to cgo.CallIn scalar arguments, outside a
// limited call. done is false when it did nothing: the arguments are not
// all scalars, or the thread cannot be resumed as it stands (dead,
// running, killed, no room), which the full path reports in Lua's words.
func (th *Thread) resumeScalars(g *Gate, args []any) (out []any, err error, done bool) {
	if len(args) > cgo.CallIn || th.killed {
		return nil, nil, false
	}
	if err := th.check(); err != nil {
		return nil, err, true
	}
	r, err := g.callResult()
	if err != nil {
		return nil, nil, false
	}
	for i, a := range args {
		if !setArgScalar(r, i, a) {
			return nil, nil, false
		}
	}
	t := g.cur
	if slow, err := th.resumeFast(g, t, len(args), r); slow || err != nil {
		return nil, err, !slow
	}
	top := int(r.Base)
	if r.Popped == 0 {
		defer g.RestoreTop(t, top)
		if !g.S.Reserve(t, ReadStack) {
			return nil, ErrMemory, true
		}
	}
	g.ConvScope() // the results share one budget (convbudget.go)
	defer g.ConvEndScope()
	out = make([]any, r.N)
	for i := range out {
		a, idx := g.result(r, top, i)
		v, err := g.natural(t, idx, &a, 0)
		if err != nil {
			ReleaseAll(out[:i])
			return nil, fmt.Errorf("zlua: resume: result #%d: %w", i+1, err), true
		}
		out[i] = v
	}
	return out, nil, true
}

// resumeFast resumes the thread on behalf of t with the nin arguments set
// in r.In, in one crossing (zlua_resume_scalars). slow reports that
// nothing was done (the caller takes the full path); otherwise, without
// an error, the thread's values are in r and on t above r.Base unless
// r.Popped.
func (th *Thread) resumeFast(g *Gate, t cgo.Thread, nin int, r *cgo.CallResult) (slow bool, err error) {
	return th.resumeFastDone(g, t, r, g.S.ResumeScalars(t, th.ref, nin, r))
}

// resumeFastDone is resumeFast once zlua_resume_scalars returned st. The
// typed resumers call the cgo stub from their own frame and this after it
// ("Frames on the nested path" in docs/ARCHITECTURE.md).
func (th *Thread) resumeFastDone(g *Gate, t cgo.Thread, r *cgo.CallResult, st int) (slow bool, err error) {
	switch st {
	case cgo.ResumeSlow:
		return true, nil
	case cgo.ResumeNoRoom:
		th.setDead(t.CoStatus(th.co) == cgo.CoDead)
		return false, NewLuaError("too many results to resume")
	case cgo.OK:
	default: // a protected step failed: the error value is on t
		th.killed = int(r.Status) == cgo.CoKilled
		th.setDead(th.killed || t.CoStatus(th.co) == cgo.CoDead)
		return false, g.ErrorFromTop(t, st)
	}
	status := int(r.Status)
	if status != cgo.OK && status != cgo.Yield {
		th.setDead(true)
		return false, g.ErrorFromTop(t, status)
	}
	th.setDead(status == cgo.OK)
	return false, nil
}

// setArgScalar sets argument i of r's next scalar call or resume to a when
// a is nil, a boolean or a number of a basic type (pushed as SetGlobal
// would); it reports false for anything else.
func setArgScalar(r *cgo.CallResult, i int, a any) bool {
	switch v := a.(type) {
	case nil:
		r.SetNil(i)
	case bool:
		r.SetBool(i, v)
	case int:
		r.SetInt(i, int64(v))
	case int64:
		r.SetInt(i, v)
	case int32:
		r.SetInt(i, int64(v))
	case float64:
		r.SetNum(i, v)
	case float32:
		r.SetNum(i, float64(v))
	default:
		return false
	}
	return true
}

// resume is Resume inside the API call, on thread t whose stack top is
// top.
func (th *Thread) resume(g *Gate, t cgo.Thread, top int, args []any) ([]any, error) {
	n, err := th.resumeRaw(g, t, args)
	if err != nil {
		return nil, err
	}
	g.ConvScope() // the results share one budget (convbudget.go)
	defer g.ConvEndScope()
	out := make([]any, n)
	for i := range out {
		idx := top + 1 + i
		a := t.Arg(idx)
		v, err := g.natural(t, idx, &a, 0)
		if err != nil {
			ReleaseAll(out[:i])
			return nil, fmt.Errorf("zlua: resume: result #%d: %w", i+1, err)
		}
		out[i] = v
	}
	return out, nil
}

// resumeRaw resumes the thread with args through the protected operation
// and leaves the n values it yielded or returned on t, above its top
// before the call, with ReadStack free slots above them.
func (th *Thread) resumeRaw(g *Gate, t cgo.Thread, args []any) (n int, err error) {
	top := t.Top()
	s := g.S
	s.ProgReset()
	s.PutRef(th.ref)
	for i, a := range args {
		if err := g.push(a, "", 0); err != nil {
			return 0, &stepError{step: "resume: argument #" + strconv.Itoa(i+1), err: err}
		}
	}
	if err := s.Commit(); err != nil {
		return 0, err
	}
	if th.killed {
		return 0, NewLuaError("cannot resume dead coroutine")
	}
	st, status := s.Resume(t)
	if st != cgo.OK { // refused, or the arguments or results did not fit
		th.killed = status == cgo.CoKilled
		th.setDead(th.killed || t.CoStatus(th.co) == cgo.CoDead)
		return 0, g.ErrorFromTop(t, st)
	}
	if status != cgo.OK && status != cgo.Yield {
		th.setDead(true)
		return 0, g.ErrorFromTop(t, status)
	}
	th.setDead(status == cgo.OK)
	n = t.Top() - top
	if !s.Reserve(t, ReadStack) {
		return 0, ErrMemory
	}
	return n, nil
}

// put appends a push of the thread to g's program.
func (th *Thread) put(g *Gate) error { return th.luaRef.put(g, "thread") }
