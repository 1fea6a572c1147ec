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
// stops once the context is done (checked every convCheckEvery values).
type convBudget struct {
	values int   // values converted so far
	bytes  int64 // Go bytes built so far (an estimate: 16 per value, plus string and slice contents)
	limit  int64 // the Env's MemoryLimit when the conversion began (0: none)
}

// convCheckEvery is how many values a conversion converts between two
// checks of the limited call's context.
const convCheckEvery = 1024

// convValueBytes is what one converted value counts, besides its
// contents: about a Go interface or slice element.
const convValueBytes = 16

// convStart begins the count of a conversion (depth 0 of read or
// natural).
func (g *Gate) convStart() {
	g.conv = convBudget{limit: int64(g.S.MemoryLimit())}
}

// convCharge counts one value of n content bytes; the error ends the
// conversion.
func (g *Gate) convCharge(n int64) error {
	c := &g.conv
	c.values++
	c.bytes += convValueBytes + n
	if c.limit != 0 && c.bytes > c.limit {
		return &argError{detail: "converted to Go it takes more than the memory limit (" +
			strconv.FormatInt(c.limit, 10) + " bytes)"}
	}
	if c.values%convCheckEvery == 0 && g.S.Interrupted() {
		return &argError{detail: g.S.InterruptText()}
	}
	return nil
}

// convChargeArg is convCharge for the value a: a string counts its bytes
// (every Go string read from Lua is a copy).
func (g *Gate) convChargeArg(a *cgo.Arg) error {
	if a.Type == int32(cgo.TString) {
		return g.convCharge(int64(len(a.View())))
	}
	return g.convCharge(0)
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
