package zlua_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// The eighteenth round's outside probe G: what a Go programmer gets for
// misusing the API. Each test fails without its fix.

// TestRootNamingAnExistingGlobal: Options.Root naming a library table
// registers into it (the library stays whole); naming a global that is
// not a table makes New fail instead of replacing it with an empty table.
func TestRootNamingAnExistingGlobal(t *testing.T) {
	e, err := zlua.New(zlua.Options{Root: "math"})
	must(t, err)
	defer e.Close()
	must(t, e.Register("sq", func(x int) int { return x * x }))
	run(t, e, `assert(math.floor(2.5) == 2 and math.sq(3) == 9)`)
	for _, root := range []string{"print", "_VERSION"} {
		e, err := zlua.New(zlua.Options{Root: root})
		if err == nil {
			e.Close()
			t.Errorf("New with Root %q succeeded", root)
			continue
		}
		if !strings.Contains(err.Error(), fmt.Sprintf("root %q names an existing global", root)) {
			t.Errorf("New with Root %q: %v", root, err)
		}
	}
}

// TestNilFunctionsAreRefusedWhereTheyAreGiven: Post(nil) and
// ForEach(nil) fail at the call, not in a later Pump or as a nil
// dereference; a posted function's or Reset loader's recovered panic
// counts in Stats.Panics.
func TestNilFunctionsAreRefusedWhereTheyAreGiven(t *testing.T) {
	e := newEnv(t)
	if err := e.Post(nil); err == nil || !strings.Contains(err.Error(), "nil function") {
		t.Errorf("Post(nil) = %v", err)
	}
	must(t, e.Pump())
	g, err := e.Globals()
	must(t, err)
	defer g.Release()
	if err := g.ForEach(nil); err == nil || !strings.Contains(err.Error(), "nil function") {
		t.Errorf("ForEach(nil) = %v", err)
	}
	before := e.Stats().Panics
	must(t, e.Post(func(*zlua.Env) { panic("posted") }))
	e.Reset(func(*zlua.Env) error { panic("loader") })
	if err := e.Pump(); err == nil {
		t.Error("Pump hid two panics")
	}
	if got := e.Stats().Panics - before; got != 2 {
		t.Errorf("Stats.Panics grew by %d, want 2", got)
	}
}

// TestHandleErrorsNameTheCallOnce: a released handle's refusal names the
// call, with one "zlua:" prefix; a handle used as a table key is named,
// not dumped; a zero handle pushed is "not made by an Env".
func TestHandleErrorsNameTheCallOnce(t *testing.T) {
	e := newEnv(t)
	run(t, e, `function f() end t = {} function body() end`)
	var f, body *zlua.Function
	var tb *zlua.Table
	must(t, e.GetFunction("f", &f))
	must(t, e.GetFunction("body", &body))
	must(t, e.Global("t", &tb))
	th, err := e.NewThread(body)
	must(t, err)
	f.Release()
	tb.Release()
	th.Release()
	var x any
	_, callErr := f.Call()
	_, resumeErr := th.Resume()
	closed, err := zlua.New(zlua.Options{})
	must(t, err)
	must(t, closed.Close())
	other := newEnv(t)
	ot, err := other.NewTable()
	must(t, err)
	defer ot.Release()
	g, err := e.Globals()
	must(t, err)
	defer g.Release()
	for _, c := range []struct {
		err  error
		want string
	}{
		{callErr, `zlua: call "f": handle released`},
		{tb.Get(1, &x), `zlua: table get [1]: handle released`},
		{resumeErr, `zlua: resume: handle released`},
		{closed.Register("a.b", 1), `zlua: register "a.b": env is closed`},
		{g.Set(ot, 1), `zlua: table set [table handle]: table handle of another Env`},
		{e.SetGlobal("z", &zlua.Table{}), `zlua: set global "z": handle not made by an Env`},
	} {
		if c.err == nil || c.err.Error() != c.want {
			t.Errorf("got %v, want %q", c.err, c.want)
		}
	}
	if !errors.Is(callErr, zlua.ErrReleased) || !errors.Is(resumeErr, zlua.ErrReleased) {
		t.Error("the named errors no longer match ErrReleased")
	}
}

type mmV struct{ X float64 }

type nilBase struct{ Name string }
type nilEmb struct{ *nilBase }

type refArr struct {
	Arr [3]int `lua:"arr,ref"`
}

type opq struct{ HP int }

// TestMisuseMessagesSayWhatIsWrong: each refusal names the actual fault.
func TestMisuseMessagesSayWhatIsWrong(t *testing.T) {
	e := newEnv(t)
	var add func(a, b mmV) mmV
	if err := zlua.Metamethods[mmV](e, map[string]any{"__add": add}); err == nil ||
		!strings.Contains(err.Error(), "metamethod __add: nil func(") {
		t.Errorf("Metamethods with a nil func: %v", err)
	}
	var p *[]int // a nil pointer to a slice pushes nil, as a nil slice does
	must(t, e.SetGlobal("s", zlua.ByRef(p)))
	run(t, e, `assert(s == nil)`)
	must(t, e.SetGlobal("wait", func() error { return fmt.Errorf("waiting: %w", zlua.Yield()) }))
	run(t, e, `function body() wait() end`)
	var body *zlua.Function
	must(t, e.GetFunction("body", &body))
	th, err := e.NewThread(body)
	must(t, err)
	defer th.Release()
	if _, err := th.Resume(); err == nil || !strings.Contains(err.Error(), "Yield did not yield: return it, unwrapped, as the last result") {
		t.Errorf("wrapped Yield: %v", err)
	}
	must(t, e.SetGlobal("ne", &nilEmb{}))
	must(t, e.SetGlobal("nv", nilEmb{})) // a by-value copy: the other field path
	panics := e.Stats().Panics
	for chunk, want := range map[string]string{
		`local x = ne.Name`:   `field 'Name' of nilEmb: embedded *zlua_test.nilBase is nil`,
		`ne.Name = "q"`:       `cannot set field 'Name' of nilEmb: embedded *zlua_test.nilBase is nil`,
		`local x = nv.Name`:   `field 'Name' of nilEmb: embedded *zlua_test.nilBase is nil`,
		`nv.Name = "q"`:       `cannot set field 'Name' of nilEmb: embedded *zlua_test.nilBase is nil`,
		`error(tostring(nv))`: `nilEmb{Name=<nil>}`,
	} {
		if err := e.DoString(chunk); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", chunk, err, want)
		}
	}
	if n := e.Stats().Panics; n != panics {
		t.Errorf("%d Go panics recovered for nil embedded pointers", n-panics)
	}
	for _, v := range []any{refArr{}, &refArr{}} {
		if err := e.SetGlobal("ra", v); err == nil || !strings.Contains(err.Error(), `lua:",ref" needs a slice or map, got [3]int`) {
			t.Errorf("SetGlobal(%T) = %v", v, err)
		}
	}
	g, err := e.Globals()
	must(t, err)
	defer g.Release()
	h := &opq{HP: 1}
	for what, err := range map[string]error{
		"SetGlobal": e.SetGlobal("og", zlua.Opaque(h)),
		"Table.Set": g.Set("og", zlua.Opaque(h)),
	} {
		if err == nil || !strings.Contains(err.Error(), "an Opaque handle lives for one call") {
			t.Errorf("%s of an Opaque: %v", what, err)
		}
	}
}
