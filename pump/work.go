package pump

import "sync"

// Work is a queue of functions posted from any goroutine and run by the
// goroutine that owns the Lua state, in posting order.
type Work struct {
	mu     sync.Mutex
	fns    []func()
	closed bool
}

// Post queues fn; it reports false after Close.
func (w *Work) Post(fn func()) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return false
	}
	w.fns = append(w.fns, fn)
	return true
}

// Take removes and returns the functions queued so far. Functions posted
// while they run wait for the next Take.
func (w *Work) Take() []func() {
	w.mu.Lock()
	defer w.mu.Unlock()
	fns := w.fns
	w.fns = nil
	return fns
}

// Len returns the number of queued functions.
func (w *Work) Len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.fns)
}

// CloseTake refuses later posts and returns the functions queued so far,
// which the caller runs or reports: nothing accepted is dropped silently.
func (w *Work) CloseTake() []func() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	fns := w.fns
	w.fns = nil
	return fns
}
