package hop

import (
	"slices"
	"strings"

	"github.com/hoplat/hoplat/roles"
	"github.com/hoplat/hoplat/stats"
)

// Rounds of one path disagree when the machine changed under them: the
// scheduler placed a component on another CPU, the hypervisor stole the
// vCPU, another tenant took the core. A mean over such rounds describes
// no round, so a path whose rounds disagree is flagged instead of
// summarised as if they agreed.
const (
	// maxRoundRatio is how far apart the slowest and fastest round p50
	// may be: twice is far more than the noise of a quiet machine, and
	// less than one cross-CPU wake-up more per request costs on a guest.
	maxRoundRatio = 2.0
	// maxRoundSpread bounds the slowest kept round p50 against the
	// fastest even when they form no two groups: a hop's figure is meant
	// to repeat within ±15% from one run to the next, which rounds spread
	// wider than this cannot promise: a run whose round p50s spread wider
	// gave an added p50 that the next run did not repeat
	// (docs/measurements.md, "Round spread").
	maxRoundSpread = 1.3
	// steadyTPS is how closely rounds' throughput agrees when only the
	// p50 moves: the mean round trip held, the median jumped between the
	// modes of a two-humped distribution.
	steadyTPS = 1.1
	// maxStateRatio bounds how far a path's round p50 over a figure that
	// moved with it (its client's CPU time per request, a direct path's
	// round p50) may spread for the machine to be named: between what a
	// real run of a slower machine holds and what a client moved between
	// CPUs in alternate rounds gives (docs/measurements.md, "Round
	// spread").
	maxStateRatio = 1.2
	// maxRepeatSpread is how far a path's kept round p50s may spread
	// while its direct baseline's rounds show the machine changing speed
	// under the same cycles: a hop's figure is meant to repeat within
	// ±15%, and rounds taken in two states of the machine repeat only as
	// well as the share of rounds each state got, even where their
	// spread stays under maxRoundSpread (docs/measurements.md, "Round
	// spread").
	maxRepeatSpread = 1.15
)

// stability says whether kept round p50s agree, and if not, how they
// disagree.
func stability(p50s []float64) (bool, *Judged) { return judge(p50s, "") }

// judge says whether figures of one path, a round each, agree, and if not,
// how they disagree: paired names the baseline they are ratios over, ""
// for round p50s.
func judge(vs []float64, paired string) (bool, *Judged) {
	if len(vs) < 2 {
		return true, nil
	}
	s := slices.Sorted(slices.Values(vs))
	lo, hi := s[0], s[len(s)-1]
	j := &Judged{Paired: paired, Values: vs, MaxMin: hi / lo}
	if lo > 0 && hi/lo > maxRoundRatio {
		j.Kind, j.Limit = DisagreeRatio, maxRoundRatio
		return false, j
	}
	if len(s) < 3 || lo <= 0 {
		return true, nil
	}
	if hi/lo > maxRoundSpread && !twoGroups(s) {
		j.Kind, j.Limit = DisagreeSpread, maxRoundSpread
		return false, j
	}
	below, above, ok := stats.TwoModes(s)
	if ok {
		j.Kind, j.Below, j.Above = DisagreeClusters, below, above
		return false, j
	}
	return true, nil
}

// twoGroups says whether sorted round p50s fall in two groups (see
// stats.TwoModes), which stability reports as such.
func twoGroups(s []float64) bool {
	_, _, ok := stats.TwoModes(s)
	return ok
}

// p50Only says whether rounds whose p50s disagree agreed on throughput,
// the mean round trip, within steadyTPS: then the per-request times are
// two-humped and each round's median fell on one hump or the other,
// while the machine under them did not change.
func p50Only(tps []float64) (float64, bool) {
	if len(tps) < 2 {
		return 0, false
	}
	lo, hi := slices.Min(tps), slices.Max(tps)
	if lo <= 0 {
		return 0, false
	}
	return hi / lo, hi/lo <= steadyTPS
}

// likelyCause names what most plausibly moved a path's rounds, from what
// the run knows of its placement and of the rounds' throughput (tps).
func likelyCause(regime string, placement map[string]string, tps []float64) *Cause {
	if regime == "none" {
		return &Cause{Kind: CauseUnpinned}
	}
	if c, v, ok := movedComponent(placement); ok {
		return &Cause{Kind: CausePlacement, Component: c, CPUs: v}
	}
	if ratio, ok := p50Only(tps); ok {
		return &Cause{Kind: CauseTwoHumped, Pct: 100 * (ratio - 1)}
	}
	return &Cause{Kind: CauseMigration}
}

// movedComponent is the first component whose CPUs differed between
// rounds ("0|1").
func movedComponent(placement map[string]string) (component, cpus string, ok bool) {
	for _, c := range roles.Path {
		if v := placement[c]; strings.Contains(v, "|") {
			return c, v, true
		}
	}
	return "", "", false
}

// placementMoved says whether the rounds may have run in different
// placements: unpinned, or a component read back on different CPUs.
func placementMoved(regime string, placement map[string]string) bool {
	_, _, moved := movedComponent(placement)
	return regime == "none" || moved
}

// sharedState names a state of the machine that moved s's rounds: the
// client's own CPU time per request moving with them (slowerCode), or a
// reference path measured in the same interleaved cycles (s's direct
// baseline, or for a direct path the other direct one) whose rounds moved
// with s's, so that s's round p50 over the reference's agrees where s's
// own round p50s do not. On a guest every socket round trip, direct
// paths included, can run longer for seconds at a time while a CPU-bound
// loop keeps its speed (docs/measurements.md, "Host states"): the rounds
// then disagree because the machine did, not the hop. nil when no reference explains it.
func sharedState(all []Series, s Series, discard int) *Cause {
	if c := slowerCode(s, discard); c != nil {
		return c
	}
	for _, ref := range references(all, s) {
		var own, base, ratio []float64
		for i := range min(len(s.Samples), len(ref.Samples)) {
			a, b := s.Samples[i].Latency.P50, ref.Samples[i].Latency.P50
			if !s.kept(i, discard) || !ref.kept(i, discard) || a <= 0 || b <= 0 {
				continue
			}
			own, base, ratio = append(own, a), append(base, b), append(ratio, a/b)
		}
		if len(ratio) < 3 {
			continue
		}
		if stable, _ := stability(own); stable {
			continue
		}
		lo, hi := slices.Min(ratio), slices.Max(ratio)
		if hi/lo > maxStateRatio {
			continue
		}
		return &Cause{Kind: CauseReference, Reference: ref.Path.Name(), Values: base, Pct: 100 * (hi/lo - 1)}
	}
	return nil
}

// references are the paths measured beside s that can show a state of
// the machine: its direct baseline, then the other direct paths of its
// setting.
func references(all []Series, s Series) []Series {
	var out []Series
	if b := baselineOf(all, s); b != nil && b.Path != s.Path {
		out = append(out, *b)
	}
	for _, r := range all {
		if r.Setting == s.Setting && r.Path.Relay == Direct && r.Path != s.Path && (len(out) == 0 || r.Path != out[0].Path) {
			out = append(out, r)
		}
	}
	return out
}

// slowerCode names the machine when s's client spent CPU time per request
// in proportion to its rounds' p50s: the same code ran slower in the slow
// rounds, and the round trip with it (docs/measurements.md, "Round
// spread"). The client's time
// includes its start-up and warm-up, which dampen the ratio and never
// create one. nil when the rounds carry no CPU time or it did not move
// with them.
func slowerCode(s Series, discard int) *Cause {
	var p50, perReq, ratio []float64
	for i, smp := range s.Samples {
		if !s.kept(i, discard) || smp.CPU <= 0 || smp.Latency.Count <= 0 || smp.Latency.P50 <= 0 {
			continue
		}
		c := float64(smp.CPU.Microseconds()) / float64(smp.Latency.Count)
		if c >= 0.8*smp.Latency.Avg {
			// A client busy for the whole round (spinning, or one
			// thread per request in flight) spends CPU time in
			// proportion to the round trip whatever slowed it.
			return nil
		}
		p50, perReq, ratio = append(p50, smp.Latency.P50), append(perReq, c), append(ratio, smp.Latency.P50/c)
	}
	if len(ratio) < 3 {
		return nil
	}
	if stable, _ := stability(p50); stable {
		return nil
	}
	lo, hi := slices.Min(ratio), slices.Max(ratio)
	if hi/lo > maxStateRatio {
		return nil
	}
	return &Cause{Kind: CauseClientCPU, Values: perReq, Pct: 100 * (hi/lo - 1)}
}

// movedWithMachine flags a path whose own rounds agreed by the tests of
// stability but spread wider than maxRepeatSpread while its direct
// baseline, measured in the same cycles, was unstable because the machine
// changed speed (slowerCode): its figure is a median over two states of
// the machine. nil when that is not so.
func movedWithMachine(all []Series, sums []PathResult, i, discard int) *MovedWithMachine {
	s := all[i]
	if s.Path.Relay == Direct {
		return nil
	}
	b := baselineOf(all, s)
	if b == nil {
		return nil
	}
	var base *PathResult
	for j := range all {
		if all[j].Path == b.Path && all[j].Setting == b.Setting {
			base = &sums[j]
		}
	}
	if base == nil || base.Stable || slowerCode(*b, discard) == nil {
		return nil
	}
	own := sums[i].RoundsP50Us // the kept rounds'
	if len(own) < 3 || slices.Min(own) <= 0 {
		return nil
	}
	lo, hi := slices.Min(own), slices.Max(own)
	if hi/lo <= maxRepeatSpread || !followsStates(own, base.RoundsP50Us, hi/lo) {
		return nil
	}
	return &MovedWithMachine{Values: own, MaxMin: hi / lo, Limit: maxRepeatSpread, Baseline: b.Path.Name(), BaselineUs: base.RoundsP50Us}
}

// followsStates says whether a path's kept round p50s (own) moved with the
// machine's states that its baseline's rounds (base, the same cycles)
// fall in: its rounds in the baseline's slower cycles lie above those in
// its faster ones by half its own spread or more. A path whose rounds
// spread for their own reasons while the baseline changed speed in other
// cycles (its slowest round not the one both direct paths ran slower in)
// is a median over one state, held to the rules every path is. Where the rounds cannot be split it says yes.
func followsStates(own, base []float64, spread float64) bool {
	if len(own) != len(base) || len(base) < 3 {
		return true
	}
	// The states split at the baseline's widest gap: slowerCode has
	// found them already, by the client's CPU time per request.
	below, above, _, _ := stats.WidestGap(slices.Sorted(slices.Values(base)))
	if len(below) == 0 || len(above) == 0 {
		return true
	}
	cut := (slices.Max(below) + slices.Min(above)) / 2
	var slow, fast []float64
	for i, b := range base {
		if b >= cut {
			slow = append(slow, own[i])
		} else {
			fast = append(fast, own[i])
		}
	}
	if len(slow) == 0 || len(fast) == 0 {
		return true
	}
	moved := stats.Median(slow)/stats.Median(fast) - 1
	return moved >= (spread-1)/2
}
