package zlua

// FailAllocAt makes the k-th growing Lua allocation of e from now fail,
// and every later one until FailAllocAt(e, 0): the hook of the
// allocation-failure tests.
func FailAllocAt(e *Env, k uint64) { e.g.S.FailAllocAt(k) }
