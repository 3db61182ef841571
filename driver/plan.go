package driver

import (
	"fmt"
	"time"

	"github.com/hoplat/hoplat/analysis/hop"
)

// Stage is one setting of the backend. The topology is built afresh for each
// stage, because pongd takes its service time and result shape as flags.
type Stage struct {
	ServiceTime time.Duration // time the responder spends per request
	Size        int           // echo payload bytes, or bytes per row for mysql
	Rows        int           // mysql rows per result (0: pongd's default)
	Regime      string        // the placement regime's name
}

func (s Stage) String() string {
	str := fmt.Sprintf("service-time %v, size %d, rows %d", s.ServiceTime, s.Size, s.Rows)
	if s.Regime != "" {
		str = s.Regime + ", " + str
	}
	return str
}

// Cell is one measured combination inside a stage: a path at a thread
// count.
type Cell struct {
	Path    hop.Path
	Threads int
}

func (c Cell) String() string { return fmt.Sprintf("%s, %d threads", c.Path.Name(), c.Threads) }

// Stages is the cross product of the backend settings; an empty list stands
// for the backend's default.
func Stages(serviceTimes []time.Duration, sizes, rows []int) []Stage {
	if len(serviceTimes) == 0 {
		serviceTimes = []time.Duration{0}
	}
	if len(sizes) == 0 {
		sizes = []int{0}
	}
	if len(rows) == 0 {
		rows = []int{0}
	}
	var out []Stage
	for _, st := range serviceTimes {
		for _, sz := range sizes {
			for _, r := range rows {
				out = append(out, Stage{ServiceTime: st, Size: sz, Rows: r})
			}
		}
	}
	return out
}

// Cells is every path at every thread count, threads outermost, so that one
// round sweeps all paths at one thread count before the next.
func Cells(paths []hop.Path, threads []int) []Cell {
	var out []Cell
	for _, t := range threads {
		for _, p := range paths {
			out = append(out, Cell{Path: p, Threads: t})
		}
	}
	return out
}

// Step is one pingpong run: a cell in a round.
type Step struct {
	Round int // from 0; rounds below the discard count are warm-up
	Cell  int // index into the stage's cells
}

// Schedule interleaves rounds: every cell once per round, in the same order
// (A B C … A B C …). Two paths are only compared within a round, so drift
// of the machine between rounds (frequency, other tenants, page cache)
// cancels out of their difference instead of landing on whichever path ran
// later.
func Schedule(cells, rounds int) []Step {
	steps := make([]Step, 0, cells*rounds)
	for r := range rounds {
		for c := range cells {
			steps = append(steps, Step{Round: r, Cell: c})
		}
	}
	return steps
}
