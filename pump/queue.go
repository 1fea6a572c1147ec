package pump

import (
	"sync"
	"sync/atomic"
)

// Queue collects Lua registry refs released by Go code on any goroutine
// (typically a runtime cleanup) until the owner goroutine drains them with
// luaL_unref. Pushing never touches Lua.
type Queue struct {
	mu     sync.Mutex
	refs   []int32
	spare  []int32 // Drain's batch buffer, reused
	closed bool
	n      atomic.Int32 // len(refs), readable without the lock
}

// Push queues ref for release. After Close it does nothing: the state that
// owned the ref is gone. Safe for concurrent use.
func (q *Queue) Push(ref int32) {
	q.mu.Lock()
	if !q.closed {
		q.refs = append(q.refs, ref)
		q.n.Store(int32(len(q.refs)))
	}
	q.mu.Unlock()
}

// Len returns the number of queued refs.
func (q *Queue) Len() int { return int(q.n.Load()) }

// Drain removes up to max refs (all when max <= 0) and calls release
// with them, outside the lock, on the caller's goroutine (in batches, one
// call per batch). It returns how many were released.
func (q *Queue) Drain(max int, release func(refs []int32)) int {
	if q.n.Load() == 0 {
		return 0
	}
	q.mu.Lock()
	n := len(q.refs)
	if max > 0 && n > max {
		n = max
	}
	if n == 0 {
		q.mu.Unlock()
		return 0
	}
	// The batch is copied out of the queue (pushes may grow it as soon as
	// the lock is released) into the drain buffer, kept between drains.
	batch := append(q.spare[:0], q.refs[len(q.refs)-n:]...)
	q.spare = nil // a concurrent Drain would allocate its own
	q.refs = q.refs[:len(q.refs)-n]
	q.n.Store(int32(len(q.refs)))
	q.mu.Unlock()
	release(batch)
	q.mu.Lock()
	if cap(batch) <= maxSpare {
		q.spare = batch[:0]
	}
	q.mu.Unlock()
	return n
}

// maxSpare bounds the drain buffer kept between drains.
const maxSpare = 1 << 14

// Close drops queued refs and makes later pushes no-ops.
func (q *Queue) Close() {
	q.mu.Lock()
	q.closed = true
	q.refs = nil
	q.n.Store(0)
	q.mu.Unlock()
}
