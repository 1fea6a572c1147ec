package callbackgate

import (
	"testing"
	"time"
)

// TestPeekGivesWayToAWaitingClaim: a claim that found a Done's read
// holding the gate counts itself waiting, and while it waits a later
// Peek does not take the gate even when it finds it idle (pollers calling
// Done back to back kept the owner out for seconds: outside probe F1-F4).
func TestPeekGivesWayToAWaitingClaim(t *testing.T) {
	g, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	release, started := make(chan struct{}), make(chan struct{})
	go g.Peek(func() { close(started); <-release })
	<-started
	claimed := make(chan error, 1)
	go func() {
		err := g.Claim()
		if err == nil {
			g.Unclaim()
		}
		claimed <- err
	}()
	deadline := time.Now().Add(10 * time.Second)
	for g.claimWait.Load() != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the claim never counted itself waiting for the Done's read")
		}
		time.Sleep(time.Millisecond)
	}
	// Hold the count as the waiting claim does, past its end, to see a
	// Peek find the gate idle and still give way.
	g.claimWait.Add(1)
	close(release)
	if err := <-claimed; err != nil {
		t.Fatalf("the waiting claim failed: %v", err)
	}
	if ran, _ := g.Peek(func() { t.Error("a Peek ran while a claim waited") }); ran {
		t.Error("Peek took the idle gate while a claim waited")
	}
	g.claimWait.Add(-1)
	if ran, err := g.Peek(func() {}); !ran || err != nil {
		t.Errorf("Peek on an idle gate: ran %v, err %v; want true, nil", ran, err)
	}
}
