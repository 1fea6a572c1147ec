package zlua

import "github.com/zlua-go/zlua/cgo"

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
