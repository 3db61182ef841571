package compare

import (
	"cmp"
	"maps"
	"math"
	"slices"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/stats"
)

// A U test on the kept rounds of two invocations treats each run's rounds
// as independent samples of the machine, yet the machine's state (where
// helper threads landed, the host's other tenants, the caches) moves
// between invocations more than between rounds: with four kept rounds a
// side, any complete separation reaches p = 0.029, however small. So each
// row is also held to the noise, what separates two runs of one
// configuration on this machine, measured three ways, the largest
// standing:
//
//   - repeated runs of a side (CompareRepeated): how far the row's own
//     figure lies apart between them, max-min over the runs' median;
//   - the controls, between runs of one experiment: the change of each
//     regime's direct path (no hop in it can have changed, so whatever
//     moved it moved the machine, and every path of that regime with it);
//   - pace, in every run: how far a direct path's kept rounds ran from
//     the untraced rounds around its traced one, seconds later; a machine
//     that moves that much inside one invocation moves as much between
//     two.
//
// The added p50 is held to the same controls and pace (a machine that
// runs a third slower runs the relay's code a third slower too) and, with
// repeated runs, to the spread of the runs' added p50s.
//
// Between runs of one experiment the outside relays (socat, HAProxy) are
// controls for every hop of their regime: their code did not change, so
// how far their added p50s moved is how far the machine moved a hop
// (peersMoved).
//
// With one run a side nothing measures what each invocation's fresh
// processes bring (where their memory and threads landed): a relay path's
// added p50 moves between runs of one command by several times what the
// direct paths move, more than its regime's peers, and more again with
// every relay started afresh before each cycle of rounds
// (docs/measurements.md, "Across runs"). Such a row is held to
// SingleRunFloorPct at least, SingleRunHopFloorPct on a path with a hop:
// the ±15% a hop's figure is meant to repeat within from one run to the
// next (analysis/hop's stability rule). Repeated runs a side measure it
// instead.

// evidence is one measurement of the noise, in percent, and what it was.
type evidence struct {
	pct  float64
	from NoiseSource
}

func (e *evidence) raise(pct float64, from NoiseSource) {
	if pct > e.pct || e.from.Kind == NoiseUnmeasured {
		e.pct, e.from = pct, from
	}
}

// NoiseSource is the measurement that set a row's noise (Row.NoisePct):
// its kind and the figures and names it was taken from. Package present
// says it in Row.NoiseFrom.
type NoiseSource struct {
	Kind NoiseKind
	Of   string  // the side (NoiseRepeated) or the path measured
	Run  string  // the run whose pace it is (NoisePace)
	Runs int     // the side's runs (NoiseRepeated)
	Pct  float64 // how far they moved or lie apart, the floor for NoiseFloor
	Pace float64 // NoisePace's pace
	Hop  bool    // NoiseFloor: the row's path has a hop
}

// A NoiseKind is what measured a row's noise.
type NoiseKind int

// The measurements a row's noise comes from (noiseOf).
const (
	NoiseUnmeasured NoiseKind = iota // nothing measured it (Unmeasured)
	NoiseRepeated                    // Runs runs of side Of lie Pct apart
	NoiseControl                     // the control Of moved Pct between the sides
	NoisePace                        // the direct path Of ran at Pace in Run
	NoisePeer                        // the outside relay Of's added p50 moved Pct
	NoiseFloor                       // one run a side: the floor Pct, for a path or a hop
	NoiseOneRun                      // both sides are one run's paths (Within)
)

// sides are the two columns of one table, by key.
type sides struct {
	oldName, newName string
	old, new         map[key][]entry
}

type noise struct{ p50, added evidence }

// SingleRunFloorPct is the least noise a row with one run on a side is
// held to: what fresh processes move a path by between two invocations;
// SingleRunHopFloorPct is that for a path with a hop, whose relay's fresh
// threads move it further.
const (
	SingleRunFloorPct    = 5
	SingleRunHopFloorPct = 15
)

// Unmeasured is the noise where nothing measured it: the runs differ,
// so their direct paths are no controls, and neither pace nor repeated
// runs are there; the U test stands alone.
const Unmeasured = "unmeasured"

func noiseOf(k key, s sides, controls bool) noise {
	var n noise
	for _, side := range []struct {
		name string
		es   []entry
	}{{s.oldName, s.old[k]}, {s.newName, s.new[k]}} {
		if len(side.es) < 2 {
			continue
		}
		var p50s, added []float64
		for _, e := range side.es {
			p50s = append(p50s, stats.Median(Kept(e.p)))
			if e.p.AddedUs != nil {
				added = append(added, e.p.AddedUs.P50)
			}
		}
		n.p50.raise(spread(p50s), NoiseSource{Kind: NoiseRepeated, Runs: len(side.es), Of: side.name, Pct: spread(p50s)})
		if len(added) == len(side.es) {
			n.added.raise(spread(added), NoiseSource{Kind: NoiseRepeated, Runs: len(side.es), Of: side.name, Pct: spread(added)})
		}
	}
	for _, d := range directs(k, s) {
		if controls {
			if ns, ok := s.new[d]; ok {
				o, nw := stats.Median(pooled(s.old[d], keptOf)), stats.Median(pooled(ns, keptOf))
				c := math.Abs(pct(o, nw))
				moved := NoiseSource{Kind: NoiseControl, Of: label(d), Pct: c}
				n.p50.raise(c, moved)
				n.added.raise(c, moved)
			}
		}
		for _, es := range [][]entry{s.old[d], s.new[d]} {
			for _, e := range es {
				if e.p.Trace == nil || e.p.Trace.Pace <= 0 {
					continue
				}
				c := 100 * math.Abs(e.p.Trace.Pace-1)
				pace := NoiseSource{Kind: NoisePace, Of: label(d), Run: e.run, Pace: e.p.Trace.Pace}
				n.p50.raise(c, pace)
				n.added.raise(c, pace)
			}
		}
	}
	if controls {
		if c, peer, ok := peersMoved(k, s); ok {
			moved := NoiseSource{Kind: NoisePeer, Of: peer, Pct: c}
			n.p50.raise(c, moved)
			n.added.raise(c, moved)
		}
	}
	if len(s.old[k]) < 2 || len(s.new[k]) < 2 {
		floor := NoiseSource{Kind: NoiseFloor, Pct: SingleRunFloorPct}
		if es := s.old[k]; len(es) > 0 && es[0].p.Relay != hop.Direct {
			floor = NoiseSource{Kind: NoiseFloor, Pct: SingleRunHopFloorPct, Hop: true}
		}
		n.p50.raise(floor.Pct, floor)
		n.added.raise(floor.Pct, floor)
	}
	return n
}

// peersMoved is how far the outside relays' hops moved between the
// sides, for a relay path k: the most that socat's or HAProxy's added p50
// moved on a path of k's regime and sweep point. Their code is the same
// in both runs of one experiment, so what moved them moved what a hop
// costs on this machine (the host's other tenants, where fresh processes
// landed), and every relay path of the regime with it, while the direct
// path, with no hop, may not move at all (docs/measurements.md, "Across
// runs"). A peer's own row
// is held to its own move too: between runs of one experiment, nothing
// of it changed.
func peersMoved(k key, s sides) (moved float64, peer string, ok bool) {
	if es := s.old[k]; len(es) == 0 || es[0].p.Relay == hop.Direct {
		return 0, "", false
	}
	var most float64
	for _, p := range slices.SortedFunc(maps.Keys(s.old), keyOrder) {
		if p.regime != k.regime || p.setting != k.setting {
			continue
		}
		old, nw := s.old[p], s.new[p]
		if len(nw) == 0 || !isPeer(old[0].p) || !allAdded(old) || !allAdded(nw) {
			continue
		}
		if c := math.Abs(pct(addedOf(old), addedOf(nw))); !ok || c > most {
			most, peer, ok = c, label(p), true
		}
	}
	return most, peer, ok
}

// isPeer: p's one hop is an outside program hoplat starts, not its own
// engine nor a proxy the user named (which may be what changed).
func isPeer(p hop.PathResult) bool {
	return (p.Relay == hop.Socat || p.Relay == hop.HAProxy) && p.Hops <= 1
}

// directs are the control paths for k: the direct paths of its regime
// and sweep point, or every direct path where that has none.
func directs(k key, s sides) []key {
	var same, all []key
	for d, es := range s.old {
		if es[0].p.Relay != hop.Direct {
			continue
		}
		all = append(all, d)
		if d.regime == k.regime && d.setting == k.setting {
			same = append(same, d)
		}
	}
	if len(same) == 0 {
		same = all
	}
	// Map order is random; the evidence named must not be.
	slices.SortFunc(same, keyOrder)
	return same
}

// keyOrder sorts keys by regime, sweep point and name.
func keyOrder(a, b key) int {
	if c := cmp.Compare(a.regime, b.regime); c != 0 {
		return c
	}
	if c := cmp.Compare(a.setting, b.setting); c != 0 {
		return c
	}
	return cmp.Compare(a.name, b.name)
}

// spread is how far values lie apart, max-min in percent of their
// median's magnitude.
func spread(v []float64) float64 {
	lo, hi := slices.Min(v), slices.Max(v)
	m := math.Abs(stats.Median(v))
	if m == 0 {
		if hi == lo {
			return 0
		}
		return math.Inf(1)
	}
	return 100 * (hi - lo) / m
}

// NoiseMethod is how a comparison's rows' noise was measured, which
// package present says in Comparison.Noise: not at all where both sides
// are paths of one run (Within), else the largest of the repeated runs'
// spread (Repeated: a side has more than one run), the controls' moves
// (Controls: the runs do not differ, so their direct paths and outside
// relays are controls) and the direct paths' pace.
type NoiseMethod struct {
	Within   bool
	Repeated bool
	Controls bool
}
