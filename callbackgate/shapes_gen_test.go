package callbackgate

import (
	"bytes"
	"os"
	"reflect"
	"testing"

	"github.com/zlua-go/zlua/callbackgate/internal/shapegen"
)

// TestGeneratedShapesAreCurrent fails when shapes_gen.go is not what
// internal/shapegen writes (a signature list or template changed without
// go generate, or the file was edited by hand).
func TestGeneratedShapesAreCurrent(t *testing.T) {
	want, err := shapegen.Source()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("shapes_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("shapes_gen.go is stale: run go generate ./callbackgate")
	}
}

// TestEveryListedShapeIsServed: the maps the gate looks signatures up in
// hold exactly the listed shapes, each with a maker.
func TestEveryListedShapeIsServed(t *testing.T) {
	for _, c := range []struct {
		name   string
		list   []string
		served func(string) bool
		n      int
	}{
		{"fastPlans", shapegen.FastShapes, func(s string) bool { return fastPlanOf(s) != nil }, len(fastPlans)},
		{"methodShapes", shapegen.MethodShapes, func(s string) bool { return methodShapes[s] != nil }, len(methodShapes)},
		{"ptrShapes", shapegen.PtrShapes, func(s string) bool { return ptrShapes[s] != nil }, len(ptrShapes)},
		{"ctxShapes", shapegen.CtxShapes, func(s string) bool { return ctxShapes[s] != nil }, len(ctxShapes)},
	} {
		for _, s := range c.list {
			if !c.served(s) {
				t.Errorf("%s has no maker for %q", c.name, s)
			}
		}
		if c.n != len(c.list) {
			t.Errorf("%s holds %d shapes, the list %d (a repeated shape?)", c.name, c.n, len(c.list))
		}
	}
}

// fastPlanOf finds the fast plan of a FastShapes signature by the func
// type it spells.
func fastPlanOf(shape string) callFunc {
	for t, plan := range fastPlans {
		if shapeOf(t, 0) == shape && allInts(t) {
			return plan
		}
	}
	return nil
}

// allInts: every 'i' of t is Go's int (shapeOf says 'i' for int64 too,
// and fast plans are keyed by the exact type).
func allInts(t reflect.Type) bool {
	for i := 0; i < t.NumIn(); i++ {
		if k := t.In(i).Kind(); k == reflect.Int64 {
			return false
		}
	}
	for i := 0; i < t.NumOut(); i++ {
		if k := t.Out(i).Kind(); k == reflect.Int64 {
			return false
		}
	}
	return true
}
