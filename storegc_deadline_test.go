package zlua_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

type gcHero struct{ Name string }

// A store the limit refuses forces a Go collection; inside a limited call
// zlua waits for it only until the call's context is done. A host whose
// collections take seconds (a big heap) made each such call overrun its
// deadline by a whole collection. Here the collection blocks until the
// test lets it go: the call must end before that.
func TestForcedCollectionsDoNotOutlastTheDeadline(t *testing.T) {
	release := make(chan struct{})
	var entered atomic.Bool
	defer zlua.SetForcedGC(zlua.SetForcedGC(func() { entered.Store(true); <-release }))
	defer close(release)
	e := newEnvWith(t, zlua.Options{MemoryLimit: 16 << 20})
	must(t, e.SetGlobal("newHero", func(name string) *gcHero { return &gcHero{Name: name} }))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- e.DoStringContext(ctx, `
			local big = ("x"):rep(1024 * 1024)
			for i = 1, 40 do local h = newHero("") h.Name = big end`)
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("40 stores of 1 MiB under a 16 MiB limit succeeded")
		}
		if !entered.Load() {
			t.Fatalf("no collection was forced: %v", err)
		}
		// the collection still runs: the next calls neither wait for it
		// nor force another
		run(t, e, `local h = newHero("") h.Name = ("y"):rep(100)`)
	case <-time.After(30 * time.Second):
		t.Fatal("the limited call waited for the forced collection")
	}
}
