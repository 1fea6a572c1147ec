package callbackgate

import (
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/zlua-go/zlua/cgo"
	"github.com/zlua-go/zlua/internal/idlist"
)

// callFunc runs one Lua→Go call of e: it converts the arguments, calls the
// Go function and leaves the results (or the error) in the push program.
type callFunc func(g *Gate, e *funcEntry, fr cgo.Frame) int32

var (
	errorType = reflect.TypeFor[error]()
	plans     sync.Map // reflect.Type → callFunc
)

// RegisterFunc makes fn (a Go func of any signature) callable from Lua as
// name and returns its id for [cgo.State.PutGoFunc]. The id is released
// when the closure's sentinel is collected, or at the next Settle if the
// program that was to create the closure never ran.
func (g *Gate) RegisterFunc(name string, fn any) (uint32, error) {
	call, err := planFor(reflect.TypeOf(fn))
	if err != nil {
		return 0, err
	}
	return g.registerEntry(funcEntry{name: name, fn: fn, call: call, hints: funcHints(reflect.TypeOf(fn))})
}

// funcHints returns the trampoline's argument hints (cgo.PutGoFuncHints)
// for the fixed parameters of the func type t.
func funcHints(t reflect.Type) uint32 {
	first := ctxParams(t, 0) // a context parameter is no Lua argument
	n := t.NumIn()
	if t.IsVariadic() {
		n--
	}
	in := make([]reflect.Type, n-first)
	for i := range in {
		in[i] = t.In(i + first)
	}
	return argHints(in, 0)
}

// argHints marks, two bits per Lua argument (parameter i is argument
// i+first), the parameters every plan reads with readInt (signed integer
// kinds: cgo.HintInt) or readFloat (float kinds: cgo.HintNum): for those
// the trampoline reads a number with one Lua API call, and what it hands
// Go converts to the same value (gate.c, read_num). Pointers to structs
// (cgo.HintRef) take no number: the trampoline reads them without the
// integer test that would only cost a call.
func argHints(in []reflect.Type, first int) uint32 {
	var h uint32
	for i, t := range in {
		a := i + first
		if a >= cgo.FastArgs {
			break
		}
		switch t.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			h |= cgo.HintInt << (2 * a)
		case reflect.Float32, reflect.Float64:
			h |= cgo.HintNum << (2 * a)
		case reflect.Pointer:
			if t.Elem().Kind() == reflect.Struct {
				h |= cgo.HintRef << (2 * a)
			}
		}
	}
	return h
}

// registerEntry gives e a function id, armed like RegisterFunc's.
func (g *Gate) registerEntry(e funcEntry) (uint32, error) {
	var id uint32
	if n := len(g.free); n > 0 {
		id = g.free[n-1]
		g.free = g.free[:n-1]
	} else {
		id = uint32(len(g.funcs))
		g.funcs = append(g.funcs, funcEntry{})
	}
	if err := g.S.PrepareFunc(id); err != nil {
		g.free = append(g.free, id)
		return 0, err
	}
	g.funcs[id] = e
	if len(g.unarmed) == cap(g.unarmed) && cap(g.unarmed) >= 256 {
		g.pruneUnarmed()
	}
	g.unarmed = append(g.unarmed, id)
	g.liveFuncs.Add(1)
	return id, nil
}

// pruneUnarmed drops from g.unarmed the ids whose closure exists by now
// (armed: its __gc owns the id), so a long call that pushes many Go
// functions keeps the list bounded; Settle releases the rest. If most
// are still unarmed, the list grows instead, so pruning stays amortized
// O(1) per registration (as objreg's list of unarmed slots).
func (g *Gate) pruneUnarmed() {
	g.unarmed = idlist.Prune(g.unarmed, func(id uint32) bool { return g.S.FuncArmed(id) == 0 })
}

// UnarmedCap is the capacity of the list of function ids whose closure
// may not exist yet (for the test of its bound).
func (g *Gate) UnarmedCap() int { return cap(g.unarmed) }

func planFor(t reflect.Type) (callFunc, error) {
	if t == nil || t.Kind() != reflect.Func {
		return nil, fmt.Errorf("%w: %v is not a function", ErrCannotPush, t)
	}
	if c, ok := plans.Load(t); ok {
		return c.(callFunc), nil
	}
	c, ok := fastPlans[t]
	if !ok {
		c, ok = variadicPlans[t]
	}
	if !ok && ctxParams(t, 0) == 1 {
		c = ctxPlan(t)
	} else if !ok {
		c = funcShapePlan(t)
	}
	if c == nil {
		c = ptrFuncPlan(t)
	}
	if c == nil {
		c = reflectPlan(t)
	}
	plans.Store(t, c)
	return c, nil
}

// reflectPlan serves any signature through reflect.Value.Call.
func reflectPlan(t reflect.Type) callFunc { return reflectPlanFrom(t, 0) }

// reflectPlanFrom is reflectPlan for a func type whose first parameter,
// when first is 1, is the call's context.Context (ctxparam.go): Lua's
// argument i goes to parameter i+first.
func reflectPlanFrom(t reflect.Type, first int) callFunc {
	nin := t.NumIn()
	fixed := nin - first // the Lua arguments
	var elem reflect.Type
	if t.IsVariadic() {
		fixed--
		elem = t.In(nin - 1).Elem()
	}
	in := make([]reflect.Type, first+fixed)
	for i := range in {
		in[i] = t.In(i)
	}
	outs := make([]reflect.Type, t.NumOut())
	for i := range outs {
		outs[i] = t.Out(i)
	}
	// A single integer or float result returns without a push program
	// (as the fast plans do), whatever the type's name.
	var ret1 reflect.Kind
	if len(outs) == 1 {
		switch k := outs[0].Kind(); k {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Float32, reflect.Float64:
			ret1 = k
		}
	}
	// spare holds argument values of a fixed signature between calls:
	// reflect.Value.Call copies them, so a call that finds it takes it
	// (a concurrent or nested call of the same signature allocates its
	// own) and clears and returns it after the call.
	var spare atomic.Pointer[[]reflect.Value]
	return func(g *Gate, e *funcEntry, fr cgo.Frame) int32 {
		n := fr.NArgs()
		count := fixed
		if elem != nil && n > fixed {
			count = n
		}
		var held *[]reflect.Value // args to give back to spare
		if elem == nil {
			held = spare.Swap(nil)
		}
		var args []reflect.Value
		if held != nil {
			args = *held
		} else {
			fresh := make([]reflect.Value, first+count)
			for i := range fresh {
				typ := elem
				if i < first+fixed {
					typ = in[i]
				}
				fresh[i] = reflect.New(typ).Elem()
			}
			args = fresh
			if elem == nil {
				held = &fresh
			}
		}
		if first == 1 {
			setCtx(args[0], g.callCtx())
		}
		g.ConvScope() // the arguments share one budget (convbudget.go)
		for i, v := range args[first:] {
			if err := g.readArg(fr, i, v); err != nil {
				g.ConvEndScope()
				giveBack(&spare, held)
				return g.raiseArg(i+1, e.name, err)
			}
		}
		g.ConvEndScope()
		out := reflect.ValueOf(e.fn).Call(args)
		giveBack(&spare, held)
		switch ret1 {
		case reflect.Invalid:
		case reflect.Float32, reflect.Float64:
			return retNum(fr, out[0].Float())
		default:
			return retInt(fr, out[0].Int())
		}
		return g.results(out, outs, e.name)
	}
}

// giveBack zeroes held (no argument stays reachable from the plan) and
// makes it the plan's spare; nil (a variadic signature) is ignored.
func giveBack(spare *atomic.Pointer[[]reflect.Value], held *[]reflect.Value) {
	if held == nil {
		return
	}
	for _, v := range *held {
		v.SetZero()
	}
	spare.Store(held)
}

// results pushes the results of a reflective call: a non-nil last error
// raises instead; a result declared as a non-empty interface is pushed
// with that interface as its view; a result of the public Values type is
// as many results as it has elements.
func (g *Gate) results(out []reflect.Value, types []reflect.Type, name string) int32 {
	if n := len(types); n > 0 && types[n-1] == errorType {
		last := out[n-1]
		out = out[:n-1]
		if !last.IsNil() {
			return g.fail(last.Interface().(error))
		}
	}
	g.S.ProgReset()
	g.inResults = true
	defer func() { g.inResults = false }()
	for i, v := range out {
		var err error
		if t := types[i]; t == pub.Values {
			// each element is a result of its own
			for j := range v.Len() {
				if err := g.pushValue(v.Index(j), name, 0); err != nil {
					return g.raiseText(fmt.Sprintf("result #%d of '%s' (element %d of its Values): %v", i+1, name, j+1, err), err)
				}
			}
			continue
		} else if t.Kind() == reflect.Interface && t.NumMethod() > 0 {
			err = g.pushViewed(v, t)
		} else {
			err = g.pushValue(v, name, 0)
		}
		if err != nil {
			return g.raiseText(fmt.Sprintf("result #%d of '%s': %v", i+1, name, err), err)
		}
	}
	return g.commitReturn()
}

// readArg converts argument i (0-based) into v. Within an operation's
// budget (ConvScope: a Go function's arguments) a string read as a scalar
// counts its bytes as read does: the Go copy is made outside the Lua
// heap, and a variadic ...string parameter takes as many as the script
// passes (table.unpack of one big string repeated, probe E1-F2).
func (g *Gate) readArg(fr cgo.Frame, i int, v reflect.Value) error {
	a := arg(fr, i)
	t := fr.Thread()
	if ok, err := g.setScalar(t, i+1, &a, v); ok {
		if err == nil && g.conv.scoped && a.Type == int32(cgo.TString) {
			err = g.convCharge(int64(len(a.View())))
		}
		return err
	}
	g.argRoom = true
	err := g.read(t, i+1, &a, v, 0)
	g.argRoom = false
	return err
}

// readAssign is readArg for an assignment to an existing value (a field,
// a slice element): v changes only when the whole value converts. readArg
// decodes in place, which a refused table would leave half written (a
// slice of the elements before the bad one, a zeroed struct).
func (g *Gate) readAssign(fr cgo.Frame, i int, v reflect.Value) error {
	a := arg(fr, i)
	t := fr.Thread()
	if ok, err := g.setScalar(t, i+1, &a, v); ok { // writes only on success
		return err
	}
	tmp := reflect.New(v.Type()).Elem()
	if err := g.read(t, i+1, &a, tmp, 0); err != nil {
		return err
	}
	v.Set(tmp)
	return nil
}

// fail handles a non-nil error returned by a Go function: the error Yield
// returned (as is, not wrapped) yields, anything else is raised.
func (g *Gate) fail(err error) int32 {
	if y, ok := err.(*yieldRequest); ok {
		if g.lf.m != nil { // the same on the FFI path, where g.cur is unknown
			return g.raiseText(g.lf.m.yield, nil)
		}
		if g.cur == g.S.Main() { // LuaJIT would say "across C-call boundary"
			return g.raiseText("attempt to yield from outside a coroutine", nil)
		}
		g.S.ProgReset()
		for i, v := range y.values {
			if err := g.push(v, "", 0); err != nil {
				by := ""
				if site := g.cur.SiteName(); site != "" {
					by = " by '" + site + "'"
				}
				return g.raiseText(fmt.Sprintf("value #%d yielded%s: %v", i+1, by, err), err)
			}
		}
		if g.S.Commit() != nil {
			return g.raiseNoMemory()
		}
		return cgo.StatusYield
	}
	return g.raiseError(err)
}

func (g *Gate) commitReturn() int32 {
	if g.S.Commit() != nil {
		return g.raiseNoMemory()
	}
	return cgo.StatusReturn
}
