// Package pump holds zlua's deferred work: Lua registry refs released from
// any goroutine (cleanups, finalizers) wait in a [Queue] until the goroutine
// that owns the Lua state drains them. Nothing here calls into Lua; the
// owner passes the release function.
package pump
