package structreg_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/zlua-go/zlua/structreg"
)

type lA struct{ X, Y int }
type lB struct {
	lA
	Z int
}
type lC struct{ lA }
type lDiamond struct {
	lB
	lC
	W int
}
type lSelf struct {
	*lSelf
	V int
}
type lShadow struct {
	lA
	X string
}
type lDeep struct {
	*lShadow
	lDiamond
	Y bool
}

// Without tags NamedFields is reflect.VisibleFields' exported fields:
// Go's selector rule, applied to the same names.
func TestNamedFieldsWithoutTagsAreTheVisibleFields(t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[lA](), reflect.TypeFor[lB](), reflect.TypeFor[lDiamond](),
		reflect.TypeFor[lSelf](), reflect.TypeFor[lShadow](), reflect.TypeFor[lDeep](),
	} {
		var want, got []string
		for _, f := range reflect.VisibleFields(typ) {
			if f.IsExported() {
				want = append(want, f.Name+fmtIndex(f.Index))
			}
		}
		for _, f := range structreg.NamedFields(typ) {
			got = append(got, f.Name+fmtIndex(f.Index))
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(want, got) {
			t.Errorf("%v: NamedFields %v, VisibleFields %v", typ, got, want)
		}
	}
}

func fmtIndex(ix []int) string {
	b := []byte{'['}
	for _, i := range ix {
		b = append(b, byte('0'+i))
	}
	return string(append(b, ']'))
}
