package driver

import (
	"context"
	"time"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/hosts"
)

// relayRounds measures what each cell's relays did over the cell's own kept
// rounds: their CPU time, and the residence and wake-ups their --stats
// count, each read just before and just after every kept round of the
// cell. Read once over a whole stage instead, every thread count of a
// sweep got the same figures (the relay's totals over all of them), and
// HAProxy's one process had to be shared out among its paths.
type relayRounds struct {
	topo    *Topology
	cells   []Cell
	stats   bool
	discard int
	base    *relaySnap // as the round in progress began
	cpu     []time.Duration
	cpuOK   []bool
	totals  []map[string]relayTotals // per cell, per stats file: summed over its kept rounds
	statsOK []bool
}

// relaySnap is what a cell's relays had done as one of its rounds began.
type relaySnap struct {
	cpu   map[*hosts.Process]time.Duration
	stats map[string]relayTotals
	err   error
}

func newRelayRounds(cells []Cell, topo *Topology, stats bool, discard int) *relayRounds {
	r := &relayRounds{topo: topo, cells: cells, stats: stats, discard: discard,
		cpu: make([]time.Duration, len(cells)), cpuOK: make([]bool, len(cells)),
		totals: make([]map[string]relayTotals, len(cells)), statsOK: make([]bool, len(cells))}
	for i, c := range cells {
		r.cpuOK[i] = len(topo.relayProcs[c.Path]) > 0
		r.statsOK[i] = stats && len(topo.Stats[c.Path]) > 0
		r.totals[i] = map[string]relayTotals{}
	}
	return r
}

// begin reads the cell's relays as a round begins.
func (r *relayRounds) begin(ctx context.Context, cell, round int) {
	r.base = r.snap(ctx, cell, round)
}

// end reads them again as the round ends and adds the difference, unless
// the run was cancelled meanwhile: the relays' totals keep the rounds kept.
func (r *relayRounds) end(ctx context.Context, cell, round int, _ hop.Sample) error {
	after := r.snap(ctx, cell, round)
	if ctx.Err() != nil {
		return nil
	}
	return r.add(cell, r.base, after)
}

// snap reads the cell's relays, on a kept round; nil on a warm-up round or
// a direct path.
func (r *relayRounds) snap(ctx context.Context, cell, round int) *relaySnap {
	if round < r.discard || (!r.cpuOK[cell] && !r.statsOK[cell]) {
		return nil
	}
	p := r.cells[cell].Path
	s := &relaySnap{cpu: r.topo.relayCPUOf(p)}
	if r.statsOK[cell] {
		s.stats, s.err = r.topo.snapshotStatsOf(ctx, r.topo.Stats[p])
	}
	return s
}

// add takes what the cell's relays did between before and after. A
// figure that could not be read on either side is lost for the whole cell:
// a sum with a round missing would be per request of the other rounds.
func (r *relayRounds) add(cell int, before, after *relaySnap) error {
	if before == nil || after == nil {
		return nil
	}
	if r.cpuOK[cell] {
		d, ok := cpuSpent(before.cpu, after.cpu)
		r.cpuOK[cell] = ok
		r.cpu[cell] += d
	}
	if r.statsOK[cell] {
		if before.err != nil || after.err != nil {
			r.statsOK[cell] = false
			return firstErr(before.err, after.err)
		}
		for f, b := range before.stats {
			e, ok := after.stats[f]
			if !ok {
				r.statsOK[cell] = false
				break
			}
			t := r.totals[cell][f]
			t.residenceNs += e.residenceNs - b.residenceNs
			t.requests += e.requests - b.requests
			t.wakeNs += e.wakeNs - b.wakeNs
			t.wakes += e.wakes - b.wakes
			r.totals[cell][f] = t
		}
	}
	return nil
}

// cpuSpent is the time on CPU the processes of before spent until after;
// ok is false where there are none, or one was not read again.
func cpuSpent(before, after map[*hosts.Process]time.Duration) (d time.Duration, ok bool) {
	for p, b := range before {
		e, found := after[p]
		if !found || e < b {
			return 0, false
		}
		d += e - b
	}
	return d, len(before) > 0
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// perRequest sets each relay series' RelayCPUUs, RelayUs and RelayWakeUs
// from its own kept rounds. A round's requests are its rate times its
// length with its warm-up, since the relay served the warm-up too; the
// rounds before discard, which snap did not read, are not counted.
func (r *relayRounds) perRequest(series []CellRounds, discard int, round time.Duration) {
	for i := range series {
		s := &series[i]
		if r.cpuOK[i] {
			n := 0.0
			for j, smp := range s.Samples {
				if j >= discard && smp.Failed == "" {
					n += smp.TPS * round.Seconds()
				}
			}
			if n > 0 {
				us := float64(r.cpu[i]) / 1e3 / n
				s.RelayCPUUs = &us
			}
		}
		if r.statsOK[i] {
			files := r.topo.Stats[s.Cell.Path]
			s.RelayUs = relayResidence(files, r.totals[i], nil)
			s.RelayWakeUs = relayWakes(files, r.totals[i], nil)
		}
	}
}
