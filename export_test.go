package zlua

import (
	"reflect"

	"github.com/zlua-go/zlua/callbackgate"
	"github.com/zlua-go/zlua/cgo"
)

// FailAllocAt makes the k-th growing Lua allocation of e from now fail,
// and every later one until FailAllocAt(e, 0): the hook of the
// allocation-failure tests.
func FailAllocAt(e *Env, k uint64) { e.g.S.FailAllocAt(k) }

// StockPatterns sets the global name of e (a LibsAll Env) to a table of
// the backend's original string.find, match, gmatch and gsub, which zlua
// replaced with its own (cgo/pattern_lib.c keeps them in the registry for
// the differential tests).
func StockPatterns(e *Env, name string) error {
	return e.DoString(name + ` = debug.getregistry()["` + cgo.StockPatternsKey + `"]`)
}

// SetForcedGC replaces the collection a refused store forces (a host
// with a slow collector) and returns the previous one.
func SetForcedGC(gc func()) func() { return callbackgate.SetForcedGC(gc) }

// FailedLoads counts the host chunks of e that failed to compile.
func FailedLoads(e *Env) uint64 { return e.g.S.LoadFailures() }

// ProgCap returns the capacity of e's push program buffer (C memory).
func ProgCap(e *Env) int { return e.g.S.ProgCap() }

// OwnAddrs returns the userdata addresses e's ownership-by-address table
// proves (cgo/ownaddr.c).
func OwnAddrs(e *Env) []uintptr { return e.g.S.OwnAddrs() }

// ProvenAddrs returns the addresses in e's proven-address caches: function
// sentinels and other userdata (cgo/gate.c).
func ProvenAddrs(e *Env) (fn, ud []uintptr) { return e.g.S.ProvenAddrs() }

// FastFuncs is cgo.FastFuncs: how many function ids have a trampoline of
// their own.
const FastFuncs = cgo.FastFuncs

// SentinelHints returns the argument hints of the Go function sentinel at
// fn, an address ProvenAddrs reported (cgo/gate.c, read_num).
func SentinelHints(fn uintptr) uint32 { return cgo.SentinelHints(fn) }

// FastHints returns the argument hints of e's live fast function ids
// (cgo.FastFuncs).
func FastHints(e *Env) []uint32 { return e.g.S.FastHints() }

// OwnAddrLayout returns the ByObj userdata block size and payload offset
// e measured at open (0, 0 when the address proof is off).
func OwnAddrLayout(e *Env) (block, off int) { return e.g.S.OwnAddrLayout() }

// LeakedSlotsSoFar and ForgiveLeakedSlots let a test that leaks object
// slots on purpose (a userdata freed without its __gc) keep TestMain's
// leak check for everything else.
func LeakedSlotsSoFar() int64    { return leakedSlots.Load() }
func ForgiveLeakedSlots(n int64) { leakedSlots.Add(-n) }

// UnarmedFuncsCap is the capacity of e's list of Go function ids handed to
// programs whose closure may not exist yet.
func UnarmedFuncsCap(e *Env) int { return e.g.UnarmedCap() }

// OpWithFarArgs runs a protected operation of e whose arguments sit in a
// light userdata segment LuaJIT has not interned (-1: none could be made).
func OpWithFarArgs(e *Env) int { return e.g.S.OpWithFarArgs(e.g.Current()) }

// LeafDirect turns the direct calls of leaf methods on or off (off: the
// dispatch path of architectures without them) and returns the previous
// setting.
func LeafDirect(on bool) bool { return callbackgate.SetLeafDirect(on) }

// ThreadEnv returns, for the thread running e's innermost Go function (the
// main thread at top level), the env pointer in its extra space (Lua 5.4;
// 0 on LuaJIT), the allocator's ud, and e's env address (cgo/zlua.h,
// zlua_envof).
func ThreadEnv(e *Env) (extra, ud, want uintptr) { return e.g.S.ThreadEnv(e.g.Current()) }

// LeafEmptyProbe runs e's leaf call on an empty userdata payload at the
// end of a readable page (cgo/jitleaf.c): 0 refused without a read, -1
// when there is nothing to probe (Lua 5.4, no leaf closure made yet).
func LeafEmptyProbe(e *Env) int { return e.g.S.LeafEmptyProbe() }

// FieldsEmptyProbe runs e's FFI field functions on an empty userdata
// payload at the end of a readable page (cgo/jitindex.c): 0 refused
// without a read, -1 when there is nothing to probe (Lua 5.4, no FFI).
func FieldsEmptyProbe(e *Env) int { return e.g.S.FieldsEmptyProbe() }

// OnStackOf runs f on a new C thread whose stack is size bytes and waits
// for it (cgo/cstack.c, zlua_run_on_stack).
func OnStackOf(size int, f func()) int { return cgo.OnStackOf(size, f) }

// OwnerThread returns the OS thread e's gate records as its owner's, 0
// when none (callbackgate.Gate.OwnerThread).
func OwnerThread(e *Env) uintptr { return e.g.OwnerThread() }

// YieldsInCalls is how many of e's yields to the Go scheduler were taken
// inside a Lua→Go call rather than at an outermost return.
func YieldsInCalls(e *Env) uint64 { return e.g.YieldsInCalls() }

// NoteThreadYield records a yield on the calling thread now, as another
// Env's yield would.
func NoteThreadYield() { callbackgate.NoteThreadYield() }

// CopyWalksElemsOf reports whether a copy's charge walk in e, while built
// objects are noted, visits the elements of a []t (callbackgate/builtindex.go).
func CopyWalksElemsOf(e *Env, t reflect.Type) bool { return e.g.WalksNoted(t) }

// HookMask is the hook mask of the Lua thread running e's current call
// (cgo/hook.c): for a Go function called from Lua, its caller's thread.
func HookMask(e *Env) int { return e.g.Current().HookMask() }

// HookCountMask is the bit of HookMask that says the count hook is on.
const HookCountMask = cgo.HookCountMask

// StackTop is the Env's stack top between API calls (the stack guard of
// stack_test.go, for external tests).
func StackTop(e *Env) int { return e.stackTop() }

// Unsettled names what e's last outermost return left unsettled ("" for
// nothing): callbackgate.Gate.Unsettled.
func Unsettled(e *Env) string { return e.g.Unsettled() }

// HeldCalls returns how many of e's calls passed an object Lua holds
// straight from the identity cache (callbackgate callHeld).
func HeldCalls(e *Env) uint64 { return e.g.HeldCalls() }
