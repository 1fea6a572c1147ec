package zlua_test

import (
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// budgetObj has a variadic string method, for the budget test.
type budgetObj struct{}

func (budgetObj) Log(xs ...string) int { return len(xs) }

// namedStrings is a named variadic func type.
type namedStrings func(...string) int

// bigStrings holds one 3 MiB string s, and t, 20 references to it: 60 MiB
// of Go strings once converted, under a 24 MiB limit.
const bigStrings = `s = ("a"):rep(3 * 1024 * 1024) t = {} for i = 1, 20 do t[i] = s end
	u = table.unpack or unpack
	function many() return u(t) end
	function gen() coroutine.yield(u(t)) end
	obj = {m = function(self) return many() end}`

const overLimit = "converted to Go it takes more than the memory limit"

// TestRepeatedStringsShareOneBudget (outside probe E1-F2, F3): a string
// a script passes many times over is copied into Go each time, so every
// copy counts against one budget per operation: the arguments of a
// variadic ...string parameter (a function, a named func type, a method),
// and the Values a typed func, a Table.Method or a BindResume collects.
// Before, each string was read as a scalar outside the budget, and these
// built 60 MiB of Go strings under a 24 MiB MemoryLimit (n × the string).
func TestRepeatedStringsShareOneBudget(t *testing.T) {
	e, err := zlua.New(zlua.Options{MemoryLimit: 24 << 20})
	must(t, err)
	defer e.Close()
	must(t, e.SetGlobal("vstr", func(xs ...string) int { return len(xs) }))
	must(t, e.SetGlobal("vstrerr", func(xs ...string) error { return nil }))
	must(t, e.SetGlobal("vnamed", namedStrings(func(xs ...string) int { return len(xs) })))
	must(t, e.SetGlobal("two", func(a string, xs ...string) string { return a }))
	must(t, e.SetGlobal("bobj", budgetObj{}))
	run(t, e, bigStrings)
	for _, call := range []string{"vstr(u(t))", "vstrerr(u(t))", "vnamed(u(t))", "two(u(t))", "bobj:Log(u(t))"} {
		err := e.DoString(call)
		if err == nil || !strings.Contains(err.Error(), overLimit) || !strings.Contains(err.Error(), "bad argument #") {
			t.Errorf("%s: %v", call, err)
		}
	}
	// a few copies stay within the limit
	run(t, e, `assert(vstr(s, s, s) == 3 and bobj:Log(s, s) == 2)`)

	var typed func() (zlua.Values, error)
	must(t, e.GetFunction("many", &typed))
	if vs, err := typed(); err == nil || !strings.Contains(err.Error(), "result #9: "+overLimit) {
		t.Errorf("typed func's Values: %d values, %v", len(vs), err)
	}
	var tb *zlua.Table
	must(t, e.Global("obj", &tb))
	defer tb.Release()
	var m func() (zlua.Values, error)
	must(t, tb.Method("m", &m))
	if vs, err := m(); err == nil || !strings.Contains(err.Error(), overLimit) {
		t.Errorf("Table.Method's Values: %d values, %v", len(vs), err)
	}
	var gen *zlua.Function
	must(t, e.GetFunction("gen", &gen))
	th, err := e.NewThread(gen)
	must(t, err)
	defer th.Release()
	var step func() (zlua.Values, error)
	must(t, th.BindResume(&step))
	if vs, err := step(); err == nil || !strings.Contains(err.Error(), overLimit) {
		t.Errorf("BindResume's Values: %d values, %v", len(vs), err)
	}
	// a few copies stay within the limit
	run(t, e, `function fewv() return s, s end`)
	var few func() (zlua.Values, error)
	must(t, e.GetFunction("fewv", &few))
	if vs, err := few(); err != nil || len(vs) != 2 {
		t.Errorf("typed func's Values of two copies: %d values, %v", len(vs), err)
	}
}
