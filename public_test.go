package zlua

import (
	"reflect"
	"strings"
	"testing"

	"github.com/zlua-go/zlua/callbackgate"
)

// The public types must have the gate types' layout: RegisterPublic
// refuses any other (the gate reads public values as its own).
func TestRegisterPublicRefusesOtherLayouts(t *testing.T) {
	type notAFunction struct{ name string }
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), "is not laid out as") {
			t.Errorf("recover() = %v", r)
		}
	}()
	callbackgate.RegisterPublic(callbackgate.PublicTypes{
		Function:   reflect.TypeFor[*notAFunction](),
		Table:      reflect.TypeFor[*Table](),
		LuaError:   reflect.TypeFor[*LuaError](),
		PanicError: reflect.TypeFor[*PanicError](),
	})
}

// Values the gate makes reach users as the public types.
func TestGateValuesArePublicTypes(t *testing.T) {
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var fn, tbl, lerr any
	if err := e.SetGlobal("keep", func(f, t any) { fn = f }); err != nil {
		t.Fatal(err)
	}
	if err := e.DoString(`keep(print)`); err != nil {
		t.Fatal(err)
	}
	var tb *Table
	if err := e.Eval(`{}`, &tb); err != nil {
		t.Fatal(err)
	}
	tbl = tb
	lerr = e.DoString(`error({})`)
	if _, ok := fn.(*Function); !ok {
		t.Errorf("a function in an any is %T", fn)
	}
	if _, ok := tbl.(*Table); !ok {
		t.Errorf("a table handle is %T", tbl)
	}
	if _, ok := lerr.(*LuaError); !ok {
		t.Errorf("a Lua error is %T", lerr)
	}
	var pe *PanicError
	if err := e.SetGlobal("boom", func() { panic("p") }); err != nil {
		t.Fatal(err)
	}
	perr := e.DoString(`boom()`)
	if cause := perr.(*LuaError).Unwrap(); reflect.TypeOf(cause) != reflect.TypeOf(pe) {
		t.Errorf("a panic's cause is %T", cause)
	}
}
