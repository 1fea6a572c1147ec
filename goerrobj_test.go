package zlua_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/zlua-go/zlua"
)

// gameErr is a Go error type scripts get as objects.
type gameErr struct{ Code int }

func (e *gameErr) Error() string { return fmt.Sprintf("game error %d", e.Code) }

// valErr is a Go error type with a value receiver, pushed by copy.
type valErr struct{ Code int }

func (e valErr) Error() string { return fmt.Sprintf("val error %d", e.Code) }

// TestAGoErrorObjectRaisedByAScriptIsTheCause: error(obj) of a Go object
// whose type implements error reaches Go as the LuaError's cause, as the
// same error returned by a Go function does, and prints as its Error
// text; before, errors.As missed it and the message was "gameErr: 0x…"
// (probe P2 F7).
func TestAGoErrorObjectRaisedByAScriptIsTheCause(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("mkerr", func(c int) *gameErr { return &gameErr{c} }))
	for _, chunk := range []string{
		`error(mkerr(5))`,
		`local ok, e = pcall(error, mkerr(5)) error(e)`,
		`error(mkerr(5), 2)`,
	} {
		err := e.DoString(chunk)
		var ge *gameErr
		var le *zlua.LuaError
		if !errors.As(err, &ge) || ge.Code != 5 || !errors.As(err, &le) || le.Message != "game error 5" {
			t.Errorf("%s: %v (as *gameErr: %v)", chunk, err, ge)
		}
	}
	run(t, e, `assert(tostring(mkerr(7)) == "game error 7")`)
	// a struct copy (ByVal) whose type implements error with a value
	// receiver (probe K2: it was neither the cause nor printed by Error)
	must(t, e.SetGlobal("mkval", func(c int) valErr { return valErr{c} }))
	var ve valErr
	var le *zlua.LuaError
	if err := e.DoString(`error(mkval(6))`); !errors.As(err, &ve) || ve.Code != 6 ||
		!errors.As(err, &le) || le.Message != "val error 6" {
		t.Errorf("a value error: %v (as valErr: %v)", err, ve)
	}
	run(t, e, `assert(tostring(mkval(3)) == "val error 3")`)
	// an object that is not an error is no cause
	must(t, e.SetGlobal("mkobj", func() *opq { return &opq{HP: 1} }))
	if err := e.DoString(`error(mkobj())`); !errors.As(err, &le) || le.Unwrap() != nil {
		t.Errorf("a plain object raised: %v (cause %v)", err, le.Unwrap())
	}
}
