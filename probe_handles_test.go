package zlua_test

import (
	"context"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// TestNilHandleErrorsNameTheCallOnce: every method of a nil *Function,
// *Table or *Thread fails with one "zlua: " prefix naming the call and
// the words "nil handle" (before, "zlua: resume: zlua: nil handle", and
// Function.Call's error named no call).
func TestNilHandleErrorsNameTheCallOnce(t *testing.T) {
	e := newEnv(t)
	var f *zlua.Function
	var tb *zlua.Table
	var th *zlua.Thread
	var v any
	var step func()
	errs := map[string]error{}
	_, errs["Function.Call"] = f.Call()
	_, errs["Function.CallContext"] = f.CallContext(context.Background())
	errs["Table.Get"] = tb.Get("k", &v)
	errs["Table.Set"] = tb.Set("k", 1)
	_, errs["Table.Len"] = tb.Len()
	errs["Table.ForEach"] = tb.ForEach(func(k, v any) error { return nil })
	errs["Table.Method"] = tb.Method("m", &step)
	_, errs["Env.NewThread"] = e.NewThread(nil)
	_, errs["Thread.Resume"] = th.Resume()
	_, errs["Thread.ResumeContext"] = th.ResumeContext(context.Background())
	errs["Thread.BindResume"] = th.BindResume(&step)
	for name, err := range errs {
		if err == nil {
			t.Errorf("%s on a nil handle: no error", name)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "zlua: ") || strings.Count(msg, "zlua: ") != 1 || !strings.HasSuffix(msg, ": nil handle") {
			t.Errorf("%s on a nil handle: %q", name, msg)
		}
	}
}
