package pump

import (
	"sync"
	"testing"
)

func TestQueueDrainsEveryRefOnceWithinBudget(t *testing.T) {
	var q Queue
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				q.Push(int32(g*1000 + i))
			}
		}(g)
	}
	wg.Wait()
	seen := make(map[int32]bool)
	for q.Len() > 0 {
		n := q.Drain(300, func(refs []int32) {
			for _, ref := range refs {
				if seen[ref] {
					t.Fatalf("ref %d released twice", ref)
				}
				seen[ref] = true
			}
		})
		if n > 300 {
			t.Fatalf("Drain released %d refs, budget 300", n)
		}
	}
	if len(seen) != 8000 {
		t.Errorf("released %d refs, want 8000", len(seen))
	}
}

func TestQueueAfterCloseIgnoresPushes(t *testing.T) {
	var q Queue
	q.Push(1)
	q.Close()
	q.Push(2)
	if n := q.Drain(0, func([]int32) { t.Error("released a ref after Close") }); n != 0 || q.Len() != 0 {
		t.Errorf("Drain after Close = %d, Len = %d", n, q.Len())
	}
}

// TestQueueDrainWhilePushing: pushes racing with drains (one drain
// buffer reused between drains) lose no ref and release none twice.
func TestQueueDrainWhilePushing(t *testing.T) {
	var q Queue
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 5000; i++ {
				q.Push(int32(g*5000 + i))
			}
		}(g)
	}
	seen := make(map[int32]bool)
	release := func(refs []int32) {
		for _, ref := range refs {
			if seen[ref] {
				t.Fatalf("ref %d released twice", ref)
			}
			seen[ref] = true
		}
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		q.Drain(100, release)
	}
	q.Drain(0, release)
	if len(seen) != 20000 {
		t.Errorf("released %d refs, want 20000", len(seen))
	}
}
