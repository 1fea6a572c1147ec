package callbackgate

import (
	"strconv"

	"github.com/zlua-go/zlua/cgo"
)

// convBudget bounds one conversion of a Lua value into a Go value (a Go
// function's argument, a Global, Eval or Table.Get out, a typed result).
// The Lua heap is bounded by Options.MemoryLimit and a limited call by its
// context, but a conversion builds in Go memory, outside both: a table
// holding the same subtable twice, nested twenty levels, is a few KB of
// Lua and 2^20 Go values; a table holding one 1 MiB string two thousand
// times is 2 GB of Go strings; and a slice is made as long as the table's
// border, which a table of 41 entries can put at 2^40. So each conversion
// counts what it builds: with a MemoryLimit, a conversion that would build
// more Go bytes than the whole limit fails, and inside a limited call it
// stops once the context is done (checked every convCheckEvery values or
// convCheckBytes bytes).
type convBudget struct {
	values int   // values converted so far
	bytes  int64 // Go bytes built so far (an estimate: string contents, slice and map elements, structs allocated)
	// overhead: the part of bytes that is the containers' own (map
	// headers and groups, interface boxes): counted against the limit,
	// not in the charges of what a store keeps, which the charge walk
	// measures without it (storecharge.go)
	overhead int64
	limit    int64 // the Env's MemoryLimit when the conversion began (0: none)
	checked  int64 // bytes when the context was last checked
	// scoped: the values of one operation share this budget (ConvScope):
	// a Go function's arguments, a call's or a resume's results, a
	// ForEach, Eval's outs. A count of values set by the script would
	// otherwise multiply the bound.
	scoped bool
}

// convCheckBytes is how many bytes a conversion builds between two checks
// of the limited call's context at most (a few big strings copy for long
// without reaching convCheckEvery values).
const convCheckBytes = 1 << 20

// convCheckEvery is how many values a conversion converts between two
// checks of the limited call's context.
const convCheckEvery = 1024

// convAnyBytes is what one interface slot of a []any or map made for
// any counts.
const convAnyBytes = 16

// convBoxBytes is what storing a converted value in an interface slot
// costs Go besides the slot: a number is boxed in an 8-byte allocation
// (a table's map is a pointer and is not boxed; counted for every value
// all the same: a bound, not an estimate).
const convBoxBytes = 8

// convSliceBoxBytes is a []any stored in an interface: its header is boxed.
const convSliceBoxBytes = 24

// mapBytes is what a Go map of count entries of slot bytes each costs
// besides its entries' contents: its header and its groups of eight
// slots (Go's maps are Swiss tables filled to 7/8; a small map has one
// group however few entries it has). Before it, a 3-entry map[string]any
// counted ~100 bytes and cost ~300, so one conversion could build 5× the
// MemoryLimit it is bounded by (probe A3-F7).
func mapBytes(count int, slot int64) int64 {
	groups := int64(count)*8/7/8 + 1
	return 48 + groups*(8+8*slot) - int64(count)*slot // the entries' own slots are counted with them
}

// convStart begins the count of a conversion (depth 0 of read or
// natural), unless it is one value of a scoped operation.
func (g *Gate) convStart() {
	if !g.conv.scoped {
		g.conv = convBudget{limit: int64(g.S.MemoryLimit())}
	}
}

// ConvScope begins an operation whose values share one budget; its end
// is ConvEndScope (deferred, or on every path).
func (g *Gate) ConvScope() {
	g.conv = convBudget{limit: int64(g.S.MemoryLimit()), scoped: true}
}

// ConvEndScope ends the operation ConvScope began.
func (g *Gate) ConvEndScope() { g.conv.scoped = false }

// convCharge counts one value of n content bytes; the error ends the
// conversion.
func (g *Gate) convCharge(n int64) error {
	c := &g.conv
	c.values++
	c.bytes += n
	if c.limit != 0 && c.bytes > c.limit {
		return &argError{detail: "converted to Go it takes more than the memory limit (" +
			strconv.FormatInt(c.limit, 10) + " bytes)"}
	}
	if c.values%convCheckEvery == 0 || c.bytes-c.checked >= convCheckBytes {
		c.checked = c.bytes
		if g.S.Interrupted() {
			return &argError{detail: g.S.InterruptText()}
		}
	}
	return nil
}

// convOverhead is convCharge of n bytes that are containers' overhead.
func (g *Gate) convOverhead(n int64) error {
	g.conv.overhead += n
	return g.convCharge(n)
}

// convBuilt is what the conversion built so far, without the overhead:
// what store charges and built-value notes count.
func (g *Gate) convBuilt() int64 { return g.conv.bytes - g.conv.overhead }

// convChargeArg is convCharge for the value a plus extra bytes: a string
// counts its bytes (every Go string read from Lua is a copy).
func (g *Gate) convChargeArg(a *cgo.Arg, extra int64) error {
	if a.Type == int32(cgo.TString) {
		return g.convCharge(extra + int64(len(a.View())))
	}
	return g.convCharge(extra)
}

// seqSlotBytes is the least Lua heap one element of a table's array part
// takes: a TValue (16 bytes on Lua 5.4, 8 on LuaJIT).
var seqSlotBytes = map[bool]uint64{true: 16, false: 8}[cgo.HasIntegers]

// convSlice checks a slice of n elements of elem bytes each before it is
// made for the table whose length (its border) is n. A table that holds
// n elements takes at least n array slots of the Lua heap, so a border
// beyond what the whole heap could hold is not a sequence: a few sparse
// keys (t[2^40] = 1 with a chain of halving keys below it) whose length
// would have made Go allocate terabytes and die. The slice's bytes count
// against the budget.
func (g *Gate) convSlice(n int, elem uintptr) error {
	used, _ := g.S.MemUsed()
	if uint64(n) > used/seqSlotBytes+64 {
		return &argError{detail: "table length " + strconv.Itoa(n) + " is not a sequence (the Lua heap, " +
			strconv.FormatUint(used, 10) + " bytes, cannot hold that many elements)"}
	}
	return g.convCharge(int64(n) * int64(elem))
}
