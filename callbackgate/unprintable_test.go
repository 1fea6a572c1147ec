package callbackgate

import (
	"fmt"
	"testing"
)

type evilErr struct{}

func (evilErr) Error() string { panic(evilErr{}) }

type evilStringer struct{}

func (evilStringer) String() string { panic(evilStringer{}) }

type evilFormatter struct{}

func (evilFormatter) Format(fmt.State, rune) { panic(evilFormatter{}) }

type shyErr struct{}

func (shyErr) Error() string { panic("boom") }

// evilHolder has no method of its own: its field's panics.
type evilHolder struct{ E evilErr }

func TestValueTextNeverPanics(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{42, "42"},
		{nil, "<nil>"},
		{(*PanicError)(nil), "<nil>"},
		{shyErr{}, "%!v(PANIC=Error method: boom)"}, // fmt's own text when the panic value prints
		{evilErr{}, "(unprintable callbackgate.evilErr: its Error method panicked)"},
		{&evilErr{}, "(unprintable *callbackgate.evilErr: its Error method panicked)"},
		{evilStringer{}, "(unprintable callbackgate.evilStringer: its String method panicked)"},
		{evilFormatter{}, "(unprintable callbackgate.evilFormatter: its Format method panicked)"},
		{evilHolder{}, "(unprintable callbackgate.evilHolder: printing it panicked)"},
		{fmt.Errorf("w: %w", shyErr{}), "w: %!v(PANIC=Error method: boom)"},
	} {
		if got := ValueText(c.v); got != c.want {
			t.Errorf("ValueText(%T) = %q, want %q", c.v, got, c.want)
		}
	}
}
