package callbackgate

import (
	"reflect"
	"unsafe"
)

// The bounds of a value zlua prints with fmt for a script or a panic's
// text (printBound): fmt has no cycle check (a map or slice holding
// itself through an interface recurses until the goroutine's stack
// overflows, a fatal error no recover catches) and no size bound (a
// 10⁶-entry map takes seconds, which no deadline interrupts).
const (
	printMaxNodes = 1 << 14 // containers, elements and fields walked
	printMaxDepth = 256
)

// printBound reports whether fmt may print v (%v): false with the text
// standing for it when v holds itself, or is deeper or larger than the
// bounds above. It walks what fmt's %v walks, calling no method: struct
// fields, elements of arrays, slices and maps (keys too), interfaces, and
// a pointer at the top only (fmt prints deeper pointers as addresses).
func printBound(v any) (string, bool) {
	if v == nil {
		return "", true
	}
	return printBoundValue(reflect.ValueOf(v))
}

// printBoundValue is printBound of the value v holds (an unexported
// field's too: fmt walks those without calling their methods).
func printBoundValue(v reflect.Value) (string, bool) {
	if !v.IsValid() {
		return "", true
	}
	for v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem() // named by its dynamic type, as fmt prints it
	}
	w := printWalk{open: map[printKey]bool{}}
	w.walk(v, 0)
	switch {
	case w.cycle:
		return "(" + v.Type().String() + " holding itself)", false
	case w.nodes > printMaxNodes || w.deep:
		return "(" + v.Type().String() + " too large to print)", false
	}
	return "", true
}

// printKey names a container being walked: its kind and address (a
// slice's also its length, so that a subslice is another container).
type printKey struct {
	kind reflect.Kind
	p    unsafe.Pointer
	n    int
}

type printWalk struct {
	open  map[printKey]bool
	nodes int
	cycle bool
	deep  bool
}

func (w *printWalk) walk(v reflect.Value, depth int) {
	if w.cycle || w.deep || w.nodes > printMaxNodes {
		return
	}
	w.nodes++
	if depth > printMaxDepth {
		w.deep = true
		return
	}
	switch v.Kind() {
	case reflect.Interface:
		if !v.IsNil() {
			w.walk(v.Elem(), depth+1)
		}
	case reflect.Pointer:
		if depth == 0 && !v.IsNil() {
			w.walk(v.Elem(), depth+1)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			w.walk(v.Field(i), depth+1)
		}
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			w.walk(v.Index(i), depth+1)
		}
	case reflect.Slice, reflect.Map:
		if v.IsNil() || v.Len() == 0 {
			return
		}
		k := printKey{v.Kind(), v.UnsafePointer(), 0}
		if v.Kind() == reflect.Slice {
			k.n = v.Len()
		}
		if w.open[k] {
			w.cycle = true
			return
		}
		w.open[k] = true
		if v.Kind() == reflect.Slice {
			for i := 0; i < v.Len() && !w.cycle && w.nodes <= printMaxNodes; i++ {
				w.walk(v.Index(i), depth+1)
			}
		} else {
			for it := v.MapRange(); it.Next() && !w.cycle && w.nodes <= printMaxNodes; {
				w.walk(it.Key(), depth+1)
				w.walk(it.Value(), depth+1)
			}
		}
		delete(w.open, k)
	}
}
