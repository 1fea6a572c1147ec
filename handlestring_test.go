package zlua_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// printedHandles is a struct a script receives by value, with handles in it.
type printedHandles struct {
	F  *zlua.Function
	T  *zlua.Table
	Th *zlua.Thread
	N  int
}

// Handles print as their kind and name, never as their internals (Go heap
// addresses, reference numbers), also inside a struct copy a script
// prints (probe B1-F3), released and nil ones too.
func TestHandlesPrintWithoutTheirInternals(t *testing.T) {
	e := newEnv(t)
	run(t, e, `function run() end cfg = {} co = coroutine.create(run)`)
	var f *zlua.Function
	var tb *zlua.Table
	var th *zlua.Thread
	must(t, e.GetFunction("run", &f))
	must(t, e.Global("cfg", &tb))
	must(t, e.Global("co", &th))
	defer f.Release()
	defer tb.Release()
	defer th.Release()
	if got := fmt.Sprint(f, " ", tb, " ", th); got != `zlua.Function("run") zlua.Table zlua.Thread` {
		t.Errorf("handles print as %q", got)
	}
	var nf *zlua.Function
	var nt *zlua.Table
	var nth *zlua.Thread
	if got := fmt.Sprint(nf, " ", nt, " ", nth); got != "zlua.Function(nil) zlua.Table(nil) zlua.Thread(nil)" {
		t.Errorf("nil handles print as %q", got)
	}
	must(t, e.SetGlobal("h", printedHandles{F: f, T: tb, Th: th, N: 1}))
	var s string
	must(t, e.Eval(`tostring(h)`, &s))
	if strings.Contains(s, "0x") || !strings.Contains(s, `zlua.Function("run")`) || !strings.Contains(s, "zlua.Table") {
		t.Errorf("tostring of a copy holding handles = %q", s)
	}
	f.Release()
	if got := f.String(); got != `zlua.Function("run")` {
		t.Errorf("released handle prints as %q", got)
	}
}
