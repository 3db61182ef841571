package driver

import (
	"testing"
	"time"

	"github.com/hoplat/hoplat/analysis/hop"
)

// Every round visits every cell once, in the same order, before the next
// round starts: A B C A B C.
func TestScheduleInterleaves(t *testing.T) {
	steps := Schedule(3, 2)
	want := []Step{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}}
	if len(steps) != len(want) {
		t.Fatalf("got %d steps, want %d", len(steps), len(want))
	}
	for i := range want {
		if steps[i] != want[i] {
			t.Errorf("step %d = %+v, want %+v", i, steps[i], want[i])
		}
	}
}

func TestCellsAndStages(t *testing.T) {
	paths := []hop.Path{hop.DirectPath(hop.TCP), {Relay: hop.Epoll, Client: hop.TCP, Upstream: hop.TCP, Hops: 1}}
	cells := Cells(paths, []int{1, 4})
	if len(cells) != 4 || cells[1].Threads != 1 || cells[2].Threads != 4 || cells[2].Path != paths[0] {
		t.Errorf("cells: %v", cells)
	}
	st := Stages([]time.Duration{0, time.Millisecond}, nil, []int{1, 100})
	if len(st) != 4 || st[3] != (Stage{ServiceTime: time.Millisecond, Rows: 100}) {
		t.Errorf("stages: %v", st)
	}
	if st := Stages(nil, nil, nil); len(st) != 1 || st[0] != (Stage{}) {
		t.Errorf("default stage: %v", st)
	}
}
