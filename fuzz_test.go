package zlua

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// luaValue turns fuzz bytes into the source of a Lua value from a small
// grammar: nil, booleans, integers, floats (including inf/nan), strings,
// tables (sequences, maps, nested, self-referencing), functions,
// coroutines and userdata (a file handle, a Go object).
func luaValue(data []byte, depth int) (string, []byte) {
	if len(data) == 0 {
		return "nil", data
	}
	op, data := data[0], data[1:]
	next := func() byte {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return b
	}
	switch op % 14 {
	case 0:
		return "nil", data
	case 1:
		return "true", data
	case 2:
		return "false", data
	case 3:
		return fmt.Sprint(int8(next())), data
	case 4:
		return fmt.Sprintf("%d", int64(next())<<56|int64(next())<<40|int64(next())), data
	case 5:
		return fmt.Sprintf("%d.5", int8(next())), data
	case 6:
		return []string{"1/0", "-1/0", "0/0", "2^53", "-2^63", "2^64", "0.1"}[next()%7], data
	case 7:
		n := int(next() % 8)
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "\\%d", next())
		}
		return `"` + b.String() + `"`, data
	case 8, 9:
		if depth > 5 {
			return "{}", data
		}
		n := int(next() % 5)
		parts := make([]string, 0, n)
		for i := 0; i < n; i++ {
			var v string
			v, data = luaValue(data, depth+1)
			if op%14 == 9 {
				var k string
				k, data = luaValue(data, depth+1)
				if k == "nil" || strings.Contains(k, "0/0") {
					k = "1"
				}
				parts = append(parts, "["+k+"]="+v)
			} else {
				parts = append(parts, v)
			}
		}
		return "{" + strings.Join(parts, ",") + "}", data
	case 10:
		return "function() return 1 end", data
	case 11:
		return "coroutine.create(print)", data
	case 12:
		return []string{"io.stdout", "fuzzobj", "fuzzself"}[next()%3], data
	default:
		return `"1e3"`, data
	}
}

type fuzzObj struct{ N int }

func (o *fuzzObj) Get() int { return o.N }

// fuzzShape receives tables decoded into structs: one-letter fields the
// generator's string keys can hit, and Self, fuzzself's key (a cycle).
type fuzzShape struct {
	A    int
	B    []string
	C    map[string]float64
	D    *fuzzShape
	E    any
	Self *fuzzShape
	F    [2]fuzzObj
}

// fuzzTargets are the Go types values are popped into.
var fuzzTargets = []reflect.Type{
	reflect.TypeFor[int](), reflect.TypeFor[int8](), reflect.TypeFor[uint16](), reflect.TypeFor[uint64](),
	reflect.TypeFor[float32](), reflect.TypeFor[float64](), reflect.TypeFor[string](), reflect.TypeFor[bool](),
	reflect.TypeFor[[]byte](), reflect.TypeFor[[]int](), reflect.TypeFor[[2]string](), reflect.TypeFor[[]any](),
	reflect.TypeFor[map[string]int](), reflect.TypeFor[map[int]any](), reflect.TypeFor[map[any]any](),
	reflect.TypeFor[any](), reflect.TypeFor[*Function](), reflect.TypeFor[*Table](), reflect.TypeFor[func(int) int](),
	reflect.TypeFor[*fuzzObj](), reflect.TypeFor[chan int](), reflect.TypeFor[error](),
	reflect.TypeFor[fuzzShape](), reflect.TypeFor[*fuzzShape](), reflect.TypeFor[[]fuzzShape](),
	reflect.TypeFor[map[string]fuzzShape](),
}

// FuzzPopValues pops arbitrary Lua values into every supported Go type,
// through Global and as arguments of Go functions: each must convert or
// fail with an error, never panic or crash, and leave the stack balanced.
func FuzzPopValues(f *testing.F) {
	for _, seed := range [][]byte{{0}, {3, 200}, {8, 3, 3, 1, 7, 2}, {9, 2, 7, 3, 65, 66, 3, 4}, {12, 1}, {6, 2}, {10}, {11}, {8, 4, 8, 4, 8, 1, 0}} {
		f.Add(seed)
	}
	e, err := New(Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { e.Close() })
	if err := e.SetGlobal("fuzzobj", &fuzzObj{N: 7}); err != nil {
		f.Fatal(err)
	}
	if err := e.DoString(`fuzzself = {}; fuzzself.self = fuzzself`); err != nil {
		f.Fatal(err)
	}
	var sinks []any
	for _, typ := range fuzzTargets {
		fn := reflect.MakeFunc(reflect.FuncOf([]reflect.Type{typ}, nil, false),
			func([]reflect.Value) []reflect.Value { return nil })
		sinks = append(sinks, fn.Interface())
	}
	if err := e.SetGlobal("sinks", sinks); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		src, _ := luaValue(data, 0)
		// Every sink takes v as its argument type (errors are caught).
		if err := e.DoString("v = " + src + "\nfor i = 1, #sinks do pcall(sinks[i], v) end"); err != nil {
			t.Fatalf("fixture %q: %v", src, err)
		}
		top := e.stackTop()
		for _, typ := range fuzzTargets {
			out := reflect.New(typ)
			_ = e.Global("v", out.Interface())
		}
		if e.stackTop() != top {
			t.Fatalf("stack %d -> %d for %q", top, e.stackTop(), src)
		}
	})
}

// bridgeOp is one step of a generated program over the bridge; the model
// tracks which Go objects Lua should still hold afterwards.
func bridgeProgram(data []byte) (string, int) {
	var b strings.Builder
	held := map[int]bool{} // slot variable → holds an object
	for i, c := range data {
		v := int(c>>4) % 4
		switch c % 10 {
		case 0: // push a new object into variable v
			fmt.Fprintf(&b, "o%d = newobj(%d)\n", v, i)
			held[v] = true
		case 1: // drop variable v
			fmt.Fprintf(&b, "o%d = nil\n", v)
			delete(held, v)
		case 2: // call a method through pcall (nil receivers error)
			fmt.Fprintf(&b, "pcall(function() return o%d:Get() end)\n", v)
		case 3: // a Go error caught in Lua
			b.WriteString("pcall(fail)\n")
		case 4: // a Go panic caught in Lua
			b.WriteString("pcall(boom)\n")
		case 5: // a coroutine that yields from Go
			fmt.Fprintf(&b, "do local co = coroutine.wrap(function() wait(o%d) return 1 end) co() co() end\n", v)
		case 6:
			b.WriteString("collectgarbage()\n")
		case 7: // the same object again: identity
			fmt.Fprintf(&b, "if o%d then assert(rawequal(same(o%d), o%d)) end\n", v, v, v)
		case 8: // copy between variables
			fmt.Fprintf(&b, "o%d = o%d\n", v, (v+1)%4)
			if held[(v+1)%4] {
				held[v] = true
			} else {
				delete(held, v)
			}
		case 9: // an error object through a Go frame
			b.WriteString("pcall(relay)\n")
		}
	}
	// Objects still held are distinct unless copied: count distinct ones.
	return b.String(), len(held)
}

// FuzzBridgePrograms runs generated programs over the bridge (pushes,
// calls, pcall, Go errors and panics, coroutines yielding from Go,
// collection, identity, error objects through Go frames, Reset) and
// checks the object registry against a model: after the program and a
// full collection no more objects are live than variables hold, and after
// dropping them none are.
func FuzzBridgePrograms(f *testing.F) {
	for _, seed := range [][]byte{{0, 2, 1, 6}, {0, 16, 8, 7, 1, 17, 6}, {0, 5, 3, 4, 9, 6}, {0, 0, 0, 7, 16, 2}} {
		f.Add(seed)
	}
	e, err := New(Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { e.Close() })
	setup := func(e *Env) error {
		for name, v := range map[string]any{
			"newobj": func(n int) *fuzzObj { return &fuzzObj{N: n} },
			"same":   func(o *fuzzObj) *fuzzObj { return o },
			"fail":   func() error { return errSweep },
			"boom":   func() { panic("fuzz") },
			"wait":   func(any) error { return Yield() },
			"relay":  func() error { return e.DoString(`error({})`) },
		} {
			if err := e.SetGlobal(name, v); err != nil {
				return err
			}
		}
		return nil
	}
	if err := setup(e); err != nil {
		f.Fatal(err)
	}
	runs := 0
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64 {
			data = data[:64]
		}
		runs++
		if runs%500 == 0 { // Reset now and then, as a hot reload would
			e.Reset(setup)
			if err := e.Pump(); err != nil {
				t.Fatal(err)
			}
		}
		src, held := bridgeProgram(data)
		if err := e.DoString(src); err != nil {
			t.Fatalf("program failed: %v\n%s", err, src)
		}
		if err := e.DoString(`collectgarbage()`); err != nil {
			t.Fatal(err)
		}
		if err := e.Pump(); err != nil {
			t.Fatal(err)
		}
		if live := e.Stats().LiveObjects; live > held {
			t.Fatalf("%d objects live, the program's variables hold %d\n%s", live, held, src)
		}
		if err := e.DoString(`o0, o1, o2, o3 = nil; collectgarbage()`); err != nil {
			t.Fatal(err)
		}
		if err := e.Pump(); err != nil {
			t.Fatal(err)
		}
		if live := e.Stats().LiveObjects; live != 0 {
			t.Fatalf("%d objects live after dropping every variable\n%s", live, src)
		}
	})
}
