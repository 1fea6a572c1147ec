package callbackgate

import (
	"reflect"
	"testing"
)

// TestIsHandleKnowsTheHandleTypesByIdentity: isHandle compares type
// descriptors (typeID), so it must say yes to each handle type and its
// pointer, and no to a struct of the same layout and to other types.
func TestIsHandleKnowsTheHandleTypesByIdentity(t *testing.T) {
	type lookAlike struct{ luaRef }
	for _, c := range []struct {
		typ  reflect.Type
		want bool
	}{
		{reflect.TypeFor[Table](), true}, {reflect.TypeFor[*Table](), true},
		{reflect.TypeFor[Function](), true}, {reflect.TypeFor[*Function](), true},
		{reflect.TypeFor[Thread](), true}, {reflect.TypeFor[*Thread](), true},
		{reflect.TypeFor[lookAlike](), false}, {reflect.TypeFor[*lookAlike](), false},
		{reflect.TypeFor[luaRef](), false}, {reflect.TypeFor[int](), false},
		{reflect.TypeFor[struct{ X, Y float64 }](), false},
	} {
		if got := isHandle(c.typ); got != c.want {
			t.Errorf("isHandle(%v) = %v, want %v", c.typ, got, c.want)
		}
	}
	for _, c := range []struct {
		typ  reflect.Type
		want bool
	}{
		{reflect.TypeFor[*Table](), true}, {reflect.TypeFor[*Function](), true},
		{reflect.TypeFor[*Thread](), true}, {reflect.TypeFor[Table](), false},
		{reflect.TypeFor[*lookAlike](), false}, {reflect.TypeFor[**Table](), false},
		{yieldType, false},
	} {
		if got := isHandlePtr(c.typ); got != c.want {
			t.Errorf("isHandlePtr(%v) = %v, want %v", c.typ, got, c.want)
		}
	}
	if typeID(reflect.TypeFor[Table]()) != typeID(reflect.TypeOf(Table{})) {
		t.Error("typeID differs for two reflect.Types of one type")
	}
}
