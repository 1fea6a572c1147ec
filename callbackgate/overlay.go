package callbackgate

import (
	"reflect"
	"unsafe"

	"github.com/zlua-go/zlua/cgo"
)

// Overlay marks an out pointer (Env.Global, Env.Eval, Table.Get) whose
// value a table is decoded over, as json.Unmarshal decodes: a struct field
// the table does not name keeps its value, nested structs (and the structs
// pointers lead to) are decoded over in the same way, and a map keeps its
// entries whose keys the table lacks. Slices, arrays, map elements and
// every non-table value are replaced whole, as without Overlay. A value
// that fails to convert still leaves the out unchanged: the decode works
// on copies (the struct, the pointed-to struct, the map) and stores them
// once all of it converted.
type Overlay struct{ P any }

// Unwrap returns the pointer an out holds and whether it was an Overlay.
func Unwrap(out any) (p any, overlay bool) {
	if o, ok := out.(Overlay); ok {
		return o.P, true
	}
	return out, false
}

// ArmOverlay makes the next ReadInto into the value at p (an Overlay
// out's pointer; nil for none) decode over it, and returns the previous
// arming, which the caller restores when its operation ends. Only the
// read into that very address overlays: a nested API call that Lua code
// makes on the way (an __index of the path) reads its own outs as usual.
func (g *Gate) ArmOverlay(p unsafe.Pointer) (prev unsafe.Pointer) {
	prev, g.overlayAt = g.overlayAt, p
	return prev
}

// readOver is ReadInto of the armed out, with overlaying true for its
// conversions.
func (g *Gate) readOver(t cgo.Thread, idx int, v reflect.Value) error {
	g.overlayAt, g.overlay, g.overDeep = nil, true, g.deep
	err := g.ReadInto(t, idx, v)
	g.overlay = false
	return err
}

// overlaying reports whether the conversion under way decodes over its
// value: inside readOver, and not in a Go function that Lua code run
// meanwhile (a __gc during an allocation of the read) called, whose
// arguments and outs convert as usual.
func (g *Gate) overlaying() bool { return g.overlay && g.deep == g.overDeep }
