package zlua

// FailAllocAt makes the k-th growing Lua allocation of e from now fail
// (0: none): the hook of the allocation-failure tests.
func FailAllocAt(e *Env, k uint64) { e.g.S.FailAllocAt(k) }
