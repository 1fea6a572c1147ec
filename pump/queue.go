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

// Drain removes up to max refs (all when max <= 0) and calls release for
// each, outside the lock, on the caller's goroutine. It returns how many
// were released.
func (q *Queue) Drain(max int, release func(ref int32)) int {
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
	batch := make([]int32, n)
	copy(batch, q.refs[len(q.refs)-n:])
	q.refs = q.refs[:len(q.refs)-n]
	q.n.Store(int32(len(q.refs)))
	q.mu.Unlock()
	for _, r := range batch {
		release(r)
	}
	return n
}

// Close drops queued refs and makes later pushes no-ops.
func (q *Queue) Close() {
	q.mu.Lock()
	q.closed = true
	q.refs = nil
	q.n.Store(0)
	q.mu.Unlock()
}
