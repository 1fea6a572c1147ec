package zlua

import "github.com/zlua-go/zlua/callbackgate"

// AsTable returns v marked to be pushed as plain Lua data: a struct (or a
// pointer to one) becomes a new table of its fields instead of a userdata,
// under the names Lua sees for object fields (the Go name, or the
// lua:"name" tag; lua:"-" omits a field; fields of embedded structs are
// promoted). Nested structs become nested tables, slices and arrays
// sequences, maps tables, their elements plain as well; pointers are
// followed (nil is nil). Functions, channels, and pointers to structs
// without Lua-visible fields (a *sync.Mutex) keep their usual form.
//
// The table is a copy: changing it in Lua does not change v. Use it with
// SetGlobal, as a Function or typed-func argument, or as a Go function's
// result (declared any). Tables decode back into structs by the same
// names (see the package documentation, "Tables and structs").
func AsTable(v any) any { return callbackgate.Plain{V: v} }
