package zlua

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/zlua-go/zlua/callbackgate"
	"github.com/zlua-go/zlua/cgo"
)

// RootTable is the default root table under which [Env.Register] places
// values (see Options.Root): Register("game.NewPlayer", f) makes
// go.game.NewPlayer.
const RootTable = "go"

// AsView returns v marked to be pushed with the view I, an interface type:
// Lua sees only I's methods (no fields). The same object pushed with two
// views is two userdata; each view has its own identity cache entry. A
// value that is not a pointer, map or channel is pushed as usual. I must
// be an interface type: AsView panics otherwise (a mistake in the code,
// found at its first run, like a bad type assertion).
func AsView[I any](v I) any {
	view := reflect.TypeFor[I]()
	if view.Kind() != reflect.Interface {
		panic("zlua: AsView needs an interface type, got " + view.String())
	}
	return callbackgate.Viewed{V: v, View: view}
}

// ByRef returns v, a map or slice, marked to be pushed by reference: Lua
// gets a userdata indexed like a table (a slice from 1 to #s) whose
// changes are Go's, instead of a copy. A map keeps its identity (the same
// map pushed twice is the same userdata); a slice does not.
//
// The userdata works with # (__len), pairs (__pairs) and ipairs, on
// LuaJIT too (see Env's pairs and ipairs in the package documentation);
// reading an index past the end of a slice gives nil, as a table does,
// and so does reading a map with a key it cannot hold (m["1"] of a
// map[int]T, m[1.5], m[true]); writing such a key is an error. A slice
// cannot shrink (table.remove fails; LuaJIT's table library refuses a
// userdata altogether). A slice pushed as ByRef(s) has a fixed length; ByRef(&s), a pointer to
// the slice (or to a map), is a view through the pointer, so s[#s+1] = x
// appends to the Go variable. Slice and map fields of objects are copies
// unless tagged lua:",ref" (lua:"name,ref"), which reads them as such
// views of the object's field.
//
// Keys are a table's: m[nil] = v is an error ("table index is nil"), as
// m[0/0] = v is, and m[nil] reads nil; pairs raises at a nil or NaN key
// a host put in the map (no Lua table holds one). A struct element of a
// slice reads as a view of the element, as an object's struct field does
// (s[i].X = 1 writes the Go element; the view keeps the element it was
// read from, as p := &s[i] does, when an append moves the slice). A
// struct element of a map has no Go address: it reads as a copy whose
// fields refuse writes (m[k].X = 1 is an error); assign the whole
// element, m[k] = v.
func ByRef(v any) any { return callbackgate.Ref{V: v} }

// Register places v under the root table (Options.Root, default go) at a
// dotted path, creating the intermediate tables: Register("game.NewPlayer",
// f) makes go.game.NewPlayer, or the global game.NewPlayer with Root "_G".
// Use it for constructors, static functions and constants scripts should
// reach without polluting the globals. Tables are read and written raw;
// a non-table on the way is an error.
func (e *Env) Register(path string, v any) error {
	if e.g == nil {
		return errUnmade
	}
	parts := strings.Split(path, ".")
	for _, p := range parts {
		if p == "" {
			return fmt.Errorf("zlua: register %q: empty name segment", path)
		}
	}
	globals, err := e.Globals() // the table itself, whatever a script calls _G
	if err != nil {
		return opErrorf(err, "register %q", path)
	}
	defer globals.Release()
	args := []any{globals, e.opts.root(), parts[len(parts)-1], v}
	for _, p := range parts[:len(parts)-1] {
		args = append(args, p)
	}
	err = e.callChunk(`local t, root, name, v = ...
		if root ~= "_G" then
			t = rawget(t, root)
			if type(t) ~= "table" then error("root '" .. root .. "' is not a table", 0) end
		end
		for i = 5, select("#", ...) do
			local k = select(i, ...)
			local sub = rawget(t, k)
			if sub == nil then sub = {}; rawset(t, k, sub) end
			if type(sub) ~= "table" then error("'" .. k .. "' is not a table", 0) end
			t = sub
		end
		rawset(t, name, v)`, "=zlua.register", cgo.ModeOwn, parts[len(parts)-1], args)
	if err != nil {
		return opErrorf(err, "register %q", path)
	}
	return nil
}
