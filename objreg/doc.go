// Package objreg is zlua's ObjectRegistry: the Go half of ByObj userdata.
//
// # Slots
//
// Every Go object Lua holds by reference (a pointer, map, channel, or a
// slice pushed with zlua.ByRef) occupies a slot of the [Registry]: a plain
// slice of 16-byte entries (initially 1024, doubling when full) with a
// free stack and a generation per slot. A slot keeps the object's data
// word; the type word is its binding's ([Registry.Val] rebuilds the
// value). A slot strongly holds its object, so the slot
// table is the GC root set of everything Lua can reach: while a userdata
// exists, its object cannot be collected by Go.
//
// A userdata stores only integers: its slot index and the slot's
// generation at push time. A slot is released when the last userdata
// referring to it is collected: the userdata's __gc (pure C, see cgo)
// queues the slot and the registry drains the queue in batches
// ([Registry.Drain], [Registry.Settle]). Released slots get a new
// generation, so a stale userdata (resurrected by another finalizer) never
// reaches the slot's next object.
//
// # Identity
//
// Objects with identity (pointers, maps, channels) are keyed by their
// address and their binding (Go type and view), in an open-addressing
// index of slot numbers (4 bytes an entry: the key is recomputed from the
// slot). [Registry.Lookup] returns
// the live slot of a key, so pushing the same object through the same view
// again reuses its slot; the C side then finds the userdata in a weak-valued
// Lua table indexed by slot, or makes a new userdata for the same slot when
// the weak entry was already cleared while the old userdata still waits for
// its __gc. A per-slot count of live userdata (kept in C) decides when the
// slot is really free, so that old __gc never breaks the new entry.
//
// # Pins
//
// C reads and writes the numeric fields of a struct object through its
// address once Go has pinned it ([Registry.Pin], with a runtime.Pinner
// kept per slot in a slice made at the first pin). The pin lasts until
// the slot is released or the registry closes; [LivePins] counts the pins
// of every registry, for leak checks.
//
// # Programs
//
// Slots are handed out while Go writes a push program, before C creates
// their userdata (the same armed rule as Go functions). A new slot whose
// userdata was never made, because the program raised first, never reaches
// the release queue; [Registry.Settle], called when no program can be
// running, releases it. A slot found again by a push stays live until
// Settle for the same reason: its current userdata may be collected before
// the program runs.
package objreg
