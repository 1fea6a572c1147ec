// Package relstore stores a word with release ordering only: every
// memory access before the store is visible to a goroutine that observes
// the stored value through an acquire (any sync/atomic load or
// compare-and-swap), and nothing more is promised.
//
// It exists for one hot path: the release of zlua's owner claim at the
// end of every outermost API call. sync/atomic's stores are sequentially
// consistent, which amd64 compiles to XCHG, a locked instruction of about
// twenty cycles; a lock release needs only release ordering, which amd64
// gives every plain MOV (x86-TSO never reorders a store with an earlier
// load or store). The Go compiler never moves memory accesses across a
// call to an assembly function, so the MOV in relstore's assembly is a
// release store for the compiler as well.
//
// Under the race detector, and on architectures without an assembly body
// here, the stores are sync/atomic's: the detector then sees the same
// synchronisation the release store gives (a store that happens before the
// load that reads it), so -race still checks what relies on it.
package relstore
