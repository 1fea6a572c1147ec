package relstore

import (
	"sync/atomic"
	"testing"
)

func TestStoresWriteTheWord(t *testing.T) {
	var i int32 = 7
	Int32(&i, -3)
	if got := atomic.LoadInt32(&i); got != -3 {
		t.Fatalf("Int32: word is %d, want -3", got)
	}
	var u uintptr = 1
	Uintptr(&u, ^uintptr(0))
	if got := atomic.LoadUintptr(&u); got != ^uintptr(0) {
		t.Fatalf("Uintptr: word is %#x, want %#x", got, ^uintptr(0))
	}
}

// TestReleasePublishesEarlierWrites is the message-passing pattern the
// gate relies on: a writer fills data and releases a flag; a reader that
// sees the flag through an atomic load must see the data.
func TestReleasePublishesEarlierWrites(t *testing.T) {
	const rounds = 20000
	for r := 0; r < rounds; r++ {
		var data [4]int64
		var flag int32
		done := make(chan struct{})
		go func() {
			defer close(done)
			for atomic.LoadInt32(&flag) == 0 {
			}
			for i, v := range data {
				if v != int64(r+i) {
					t.Errorf("round %d: data[%d] = %d after the release, want %d", r, i, v, r+i)
					return
				}
			}
		}()
		for i := range data {
			data[i] = int64(r + i)
		}
		Int32(&flag, 1)
		<-done
	}
}
