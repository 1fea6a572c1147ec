package zlua_test

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/zlua-go/zlua"
)

// Two goroutines releasing the same handles in lockstep: each ref is
// queued once. Before, both could pass the released check, the ref was
// freed twice at the next Pump, and later handles shared a registry slot
// (a handle read another's table; LiveRefs went negative). Found by an
// outside probe.
func TestConcurrentReleaseOfOneHandleQueuesItOnce(t *testing.T) {
	e := newEnv(t)
	const n = 2000
	hs := make([]interface{ Release() }, n)
	for i := range hs {
		tb, err := e.NewTable()
		must(t, err)
		hs[i] = tb
	}
	before := e.Stats().PendingRefs
	var wg sync.WaitGroup
	var turn [2]atomic.Int64
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, h := range hs {
				// both goroutines reach handle i before either releases it
				turn[g].Store(int64(i + 1))
				for turn[1-g].Load() < int64(i+1) {
				}
				h.Release()
			}
		}()
	}
	wg.Wait()
	if got := e.Stats().PendingRefs - before; got != n {
		t.Errorf("%d refs queued for %d handles released twice", got, n)
	}
	must(t, e.Pump())
	fresh := make([]*zlua.Table, 200)
	for i := range fresh {
		tb, err := e.NewTable()
		must(t, err)
		must(t, tb.Set("id", i))
		fresh[i] = tb
	}
	for i, tb := range fresh {
		var id int
		if err := tb.Get("id", &id); err != nil || id != i {
			t.Fatalf("handle %d reads id %d (%v): two handles share a ref", i, id, err)
		}
		tb.Release()
	}
	must(t, e.Pump())
	if live := e.Stats().LiveRefs; live != 0 {
		t.Errorf("LiveRefs = %d after every handle was released", live)
	}
}
