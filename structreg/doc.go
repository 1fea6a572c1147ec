// Package structreg is the StructRegistry, Go half: how a Go struct type
// is laid out for Lua when it travels by value, and the companion table
// that holds the non-blittable ones.
//
// A struct value pushed to Lua becomes a ByVal userdata holding a copy.
// When the struct is blittable (only fixed-size numbers, booleans, arrays
// and nested structs of those: no Go pointer anywhere) its bytes are
// copied into the userdata and C reads and writes its numeric and boolean
// fields from the field table [Layout] describes. Otherwise the copy lives
// here, in a companion slot (the userdata keeps only the slot index and
// generation, so no Go pointer ever sits in C memory), until the
// userdata's __gc queues the slot and [Registry.Drain] releases it.
//
// Companion slots follow the ObjectRegistry's "armed" pattern: a slot is
// handed out while Go writes the push program, before C creates its
// userdata, so a slot whose program raised is released by
// [Registry.Settle] when no program can be running.
package structreg
