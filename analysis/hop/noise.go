package hop

import (
	"slices"

	"github.com/hoplat/hoplat/stats"
)

// The direct paths are the yardstick every hop is measured against, and
// they run in the same interleaved cycles as the relay paths: how far
// their rounds spread is how far the host itself moved the rounds of every
// path in that stage. A relay path is flagged only for disagreeing beyond
// that: a path whose rounds spread no wider than the direct paths' shares
// the host's noise, which the report states once, and its added p50 (a
// median of paired differences) is no less repeatable for it
// (docs/measurements.md, "Flags against the host's noise").
const (
	// noiseMargin is how much wider than the direct paths' spread (both as
	// max/min of kept round p50s) a relay path's must be to be its own:
	// a hop's rounds carry the host's spread and the hop's own wake-ups.
	noiseMargin = 1.25
	// minOwnSpread is the least spread that flags a relay path however
	// quiet its direct paths were: middle rounds within 35% of each other
	// hold their median within about half that, the report's ±15%.
	minOwnSpread = 1.35
)

// TrimmedSpreadPct is trimmedSpread as paths[].round_spread_pct gives
// it: (max/min - 1) in percent.
func TrimmedSpreadPct(vs []float64) float64 { return 100 * (trimmedSpread(vs) - 1) }

// trimmedSpread is the max/min of round figures without the fastest and
// the slowest where there are five or more: one odd round moves neither a
// median of paired differences nor the judgement, two clusters of rounds
// (a path whose rounds fall on one mode or the other) still do. 1 where
// it cannot say.
func trimmedSpread(vs []float64) float64 {
	s := slices.Sorted(slices.Values(vs))
	if len(s) >= 5 {
		s = s[1 : len(s)-1]
	}
	return spreadOf(s)
}

// HostNoise is how much one stage's direct paths' rounds spread: the
// host's own noise in that stage, which the report states once and each
// relay path's spread is judged against.
type HostNoise struct {
	Stage string `json:"stage"`
	// Control is the direct path whose kept round p50s spread widest,
	// and SpreadPct that spread, (max/min - 1) in percent, without its
	// fastest and slowest round where it has five or more
	// (trimmedSpread); where the host changed speed between rounds
	// (States), within each speed, all rounds.
	Control   string  `json:"control"`
	SpreadPct float64 `json:"spread_pct"`
	// RangeUs is that control's slowest kept round p50 less its fastest,
	// over all its rounds.
	RangeUs float64 `json:"range_us"`
	// States is set where the host ran at two speeds in the stage
	// (machine.states[]): each hop was paired with the control's round at
	// the speed it ran at.
	States bool `json:"states,omitempty"`
	// LimitPct is the widest spread a relay path of the stage may have
	// unflagged, (max/min - 1) in percent: noiseMargin times the direct
	// paths' spread, and never under minOwnSpread's.
	LimitPct float64 `json:"limit_pct"`
	// SlowRounds are the rounds that ran slow on a third or more of the
	// stage's relay paths (slowRounds) while the direct paths held: the
	// host's, left out of each relay path's spread. Not looked for where
	// the host changed speed (States).
	SlowRounds []int `json:"slow_rounds,omitempty"`
	// Flagged is how many of the stage's relay paths spread wider.
	Flagged int `json:"flagged"`
	Relays  int `json:"relays"`
}

// HostNoiseOf is each stage's host noise over paths, in the order the
// stages ran; nil where no stage has a direct path with rounds.
func HostNoiseOf(paths []PathResult) []HostNoise {
	states := detectStates(paths)
	var out []HostNoise
	index := map[group]int{}
	for _, p := range paths {
		g := groupOf(p)
		i, seen := index[g]
		if !seen {
			n, ok := stageNoise(paths, g, states[g])
			if !ok {
				index[g] = -1
				continue
			}
			out = append(out, n)
			i = len(out) - 1
			index[g] = i
		}
		if i < 0 || isControl(p) || !p.Measured() {
			continue
		}
		out[i].Relays++
		if !p.Stable {
			out[i].Flagged++
		}
	}
	return out
}

// stageNoise is stage g's host noise: its widest-spread control, within
// each speed of the host where h found two.
func stageNoise(paths []PathResult, g group, h *hostStates) (HostNoise, bool) {
	n := HostNoise{Stage: stageName(g), States: h != nil}
	worst, found := 1.0, false
	for _, p := range paths {
		if groupOf(p) != g || !isControl(p) || len(p.RoundsP50Us) < 2 {
			continue
		}
		s := trimmedSpread(p.RoundsP50Us)
		if h != nil {
			fast, slow := h.sides(p)
			s = max(spreadOf(fast), spreadOf(slow))
		}
		if !found || s > worst {
			worst, found = s, true
			n.Control = p.Name
			n.RangeUs = slices.Max(p.RoundsP50Us) - slices.Min(p.RoundsP50Us)
		}
	}
	if !found {
		return n, false
	}
	n.SpreadPct = 100 * (worst - 1)
	n.LimitPct = 100 * (noiseLimit(worst) - 1)
	if h == nil {
		n.SlowRounds = slowRounds(paths, g, noiseLimit(worst))
	}
	return n, true
}

// minSlowPaths is the fewest relay paths a round must have run slow on
// to be the host's.
const minSlowPaths = 3

// slowRounds are the kept rounds of stage g in which a third or more of
// its relay paths (and minSlowPaths) ran slower than limit times their
// own median round, in index order: a burst of the host's that the
// direct paths, measured at other moments of the same cycles, missed.
func slowRounds(paths []PathResult, g group, limit float64) []int {
	slow := map[int]int{}
	relays := 0
	for _, p := range paths {
		if groupOf(p) != g || isControl(p) || !p.Measured() {
			continue
		}
		relays++
		med := stats.Median(p.RoundsP50Us)
		for _, rd := range p.Rounds {
			if rd.Kept && med > 0 && rd.P50 > limit*med {
				slow[rd.Index]++
			}
		}
	}
	var out []int
	for i, n := range slow {
		if n >= minSlowPaths && 3*n >= relays {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out
}

// outside is p's kept round p50s but those of the host's slow rounds,
// all of them where that would leave fewer than four.
func outside(p PathResult, slow []int) []float64 {
	var vs []float64
	for _, rd := range p.Rounds {
		if rd.Kept && rd.P50 > 0 && !slices.Contains(slow, rd.Index) {
			vs = append(vs, rd.P50)
		}
	}
	if len(vs) < 4 {
		return p.RoundsP50Us
	}
	return vs
}

// noiseLimit is the widest max/min a relay path's judged figure may
// spread where the direct paths spread by direct.
func noiseLimit(direct float64) float64 {
	return max(minOwnSpread, 1+noiseMargin*(direct-1))
}

// judgeAgainstNoise makes the direct paths the yardstick, never flagged,
// and keeps a relay path flagged only where its spread exceeds what its
// stage's direct paths showed: its kept round p50s' trimmedSpread, or
// where the host changed speed, the spread of the paired figure its
// stability was judged on. The reason then opens with both spreads.
func judgeAgainstNoise(sums []PathResult) {
	states := detectStates(sums)
	limits := map[group]HostNoise{}
	for _, p := range sums {
		g := groupOf(p)
		if _, ok := limits[g]; !ok {
			if n, ok := stageNoise(sums, g, states[g]); ok {
				limits[g] = n
			}
		}
	}
	for i := range sums {
		r := &sums[i]
		own := trimmedSpread(r.RoundsP50Us)
		if n, ok := limits[groupOf(*r)]; ok && !isControl(*r) {
			own = trimmedSpread(outside(*r, n.SlowRounds))
		}
		if _, ok := states[groupOf(*r)]; ok && !isControl(*r) {
			own = r.spread
		}
		r.RoundSpreadPct = 100 * (own - 1)
		if r.Stable {
			continue
		}
		n, ok := limits[groupOf(*r)]
		switch {
		case isControl(*r):
			r.Stable, r.Instability = true, nil
		case !ok:
			// No direct path to judge against: the path's own tests stand.
		case own <= 1+n.LimitPct/100:
			r.Stable, r.Instability = true, nil
		default:
			if r.Instability == nil {
				r.Instability = &Instability{}
			}
			r.Instability.Noise = &NoiseExcess{SpreadPct: r.RoundSpreadPct, HostPct: n.SpreadPct, Control: n.Control}
		}
		if r.Stable && r.Trace != nil && r.Trace.Found != nil {
			t := *r.Trace
			t.Found = nil // it names what moved an unstable path's rounds
			r.Trace = &t
		}
	}
}
