package driver

import (
	"testing"
	"time"
)

// What is left counts the traced rounds and connect-only series after
// the rounds, each at its own pace, and drops a skipped path's share of
// all three.
func TestProgressLeftCountsEveryKindOfStep(t *testing.T) {
	p := newProgress(nil, 4, time.Second)
	p.expect(2, 2*time.Second, 2, time.Second)
	if got := p.left(); got != 10*time.Second {
		t.Fatalf("left %v, want 10s (4 rounds of 1s, 2 traces of 2s, 2 series of 1s)", got)
	}
	p.drop(2, 1, 1)
	if got := p.left(); got != 5*time.Second {
		t.Fatalf("after a skipped path left %v, want 5s", got)
	}
	// A trace that ran sets the pace of the rest.
	p.traces.spent, p.traces.done = 4*time.Second, 1
	p.traces.total++
	if got := p.left(); got != 2*time.Second+4*time.Second+time.Second {
		t.Fatalf("left %v, want 7s once a trace took 4s", got)
	}
}
