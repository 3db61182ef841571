package affinity

import (
	"testing"
	"time"
)

func TestGroupCPUSince(t *testing.T) {
	base := GroupCPU{Live: 100 * time.Millisecond, Group: 100 * time.Millisecond}
	// Group within its rounding of Live: Live's exact growth.
	if d, lost := (GroupCPU{Live: 130 * time.Millisecond, Group: 140 * time.Millisecond}).Since(base); d != 30*time.Millisecond || lost {
		t.Errorf("rounding: %v lost %v", d, lost)
	}
	// A thread exited with 50 ms: Group's growth.
	if d, lost := (GroupCPU{Live: 130 * time.Millisecond, Group: 180 * time.Millisecond}).Since(base); d != 80*time.Millisecond || !lost {
		t.Errorf("exited thread: %v lost %v", d, lost)
	}
}
