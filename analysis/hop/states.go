package hop

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hoplat/hoplat/probe/machine"
	"github.com/hoplat/hoplat/stats"
)

// A host can change speed for seconds at a time, a guest's vCPUs most of
// all, and every path moves with it inside one run (docs/measurements.md,
// "Host states"). The
// machine's state is then the control's, not the path's: each path is
// paired with the control round of the same interleaved cycle, its
// stability judged on the ratio of the two, and the change is said once.

const (
	// minStateRounds is the fewest rounds a state of the host needs: one
	// slow round is an outlier, not a state.
	minStateRounds = 2
	// stateRatio is how much slower the slow state's fastest round must
	// be than the fast state's slowest: a state change moves every round
	// trip by more than a quiet machine's rounds differ.
	stateRatio = 1.15
)

// twoSpeeds splits a control's sorted round p50s at their widest gap
// and says whether the sides are two speeds of the host: each holds at
// least rounds, the gap is wider than either side's spread, and the
// sides stateRatio apart. Looser than stats.TwoModes (a gap three times
// either side's spread): a slow state scatters as the fast one does
// not (a slow state's rounds spread wider than the fast one's), and the other
// controls and paths moving with it confirm it.
func twoSpeeds(sorted []float64, least int) (below, above []float64, ok bool) {
	if len(sorted) < 2*minStateRounds || sorted[0] <= 0 {
		return nil, nil, false
	}
	below, above, gap, inside := stats.WidestGap(sorted)
	return below, above, len(below) >= least && len(above) >= least &&
		gap > inside && above[0]/below[len(below)-1] >= stateRatio
}

// A state of one round: the host may change for a few seconds only, or
// in the run's last cycle. One control's one slow round is an outlier;
// every control's, in the same round, with the stage's paths slower
// there by movedRatio, is the host: the controls and every relay path of
// the stage slow in the same round (docs/measurements.md, "Host states").
const (
	// oneRoundControls is the fewest controls that must agree on it,
	// oneRoundPaths the fewest other paths that must show it.
	oneRoundControls = 2
	oneRoundPaths    = 3
)

// hostStates is what one stage's control paths show of the host: the
// rounds that ran slow, the others fast.
type hostStates struct {
	stage      string
	slow       map[int]bool // round index: slow
	fastRounds []int        // the round indices of each state, in order
	slowRounds []int
	control    string
	p50s       [2][]float64 // the control's round p50s, fast then slow
	evidence   StateEvidence
	stateNames [2]string
}

func (h *hostStates) state(round int) int {
	if h.slow[round] {
		return 1
	}
	return 0
}

// detectStates finds the stages whose host ran at two speeds: the first
// control path's kept round p50s (direct tcp, else the stage's other
// direct path) fall in two groups of at least minStateRounds rounds (or
// one, as oneRoundControls and oneRoundPaths say), every other control is
// slower in exactly the slow rounds, and at least two in three of the
// stage's other paths are slower there too.
func detectStates(paths []PathResult) map[group]*hostStates {
	var order []group
	byGroup := map[group][]PathResult{}
	for _, p := range paths {
		g := groupOf(p)
		if _, ok := byGroup[g]; !ok {
			order = append(order, g)
		}
		byGroup[g] = append(byGroup[g], p)
	}
	out := map[group]*hostStates{}
	for _, g := range order {
		if h := stageStates(byGroup[g]); h != nil {
			h.stage = stageName(g)
			out[g] = h
		}
	}
	return out
}

func isControl(p PathResult) bool { return p.Relay == Direct && p.Hops == 0 }

// keptRounds is p's kept rounds with a p50: index to p50.
func keptRounds(p PathResult) map[int]float64 {
	m := map[int]float64{}
	for _, r := range p.Rounds {
		if r.Kept && r.P50 > 0 {
			m[r.Index] = r.P50
		}
	}
	return m
}

// sides splits p's kept round p50s by the state of their round.
func (h *hostStates) sides(p PathResult) (fast, slow []float64) {
	for _, r := range p.Rounds {
		if !r.Kept || r.P50 <= 0 {
			continue
		}
		if h.slow[r.Index] {
			slow = append(slow, r.P50)
		} else {
			fast = append(fast, r.P50)
		}
	}
	return fast, slow
}

func stageStates(ps []PathResult) *hostStates {
	controls := controlsOf(ps)
	if len(controls) == 0 {
		return nil
	}
	c0 := controls[0]
	kept := keptRounds(c0)
	if len(kept) < 2*minStateRounds {
		return nil
	}
	vals := slices.Sorted(func(yield func(float64) bool) {
		for _, v := range kept {
			if !yield(v) {
				return
			}
		}
	})
	below, above, ok := twoSpeeds(vals, minStateRounds)
	if !ok && len(controls) >= oneRoundControls {
		below, above, ok = twoSpeeds(vals, 1)
	}
	if !ok {
		return nil
	}
	oneRound := len(below) < minStateRounds || len(above) < minStateRounds
	h := &hostStates{slow: map[int]bool{}, control: c0.Name, stateNames: [2]string{"fast", "slow"}}
	for i, v := range kept {
		if v >= above[0] {
			h.slow[i] = true
		}
	}
	for _, r := range c0.Rounds {
		if _, ok := kept[r.Index]; !ok {
			continue
		}
		if h.slow[r.Index] {
			h.slowRounds = append(h.slowRounds, r.Index)
		} else {
			h.fastRounds = append(h.fastRounds, r.Index)
		}
	}
	h.p50s[0], h.p50s[1] = h.sides(c0)
	var with []ControlMove
	for _, c := range controls[1:] {
		fast, slow := h.sides(c)
		if len(fast) == 0 || len(slow) == 0 || slices.Min(slow) <= slices.Max(fast) {
			return nil // the controls did not move together
		}
		with = append(with, ControlMove{Control: c.Name, FastUs: fast, SlowUs: slow})
	}
	moved, others := h.followers(ps, oneRound)
	if others == 0 && len(controls) == 1 {
		return nil // one path alone cannot tell the host from itself
	}
	if oneRound && others < oneRoundPaths {
		return nil
	}
	if others > 0 && 3*moved < 2*others {
		return nil // the controls moved alone: the paths did not follow
	}
	h.evidence = StateEvidence{Control: c0.Name, FastUs: h.p50s[0], FastRounds: h.fastRounds, SlowUs: h.p50s[1], SlowRounds: h.slowRounds,
		With: with, Moved: moved, Others: others}
	return h
}

// controlsOf is a stage's control paths, TCP first: none where a control
// ran on other CPUs in some rounds (or anywhere the scheduler put it), as
// it then moved by its placement, not the host.
func controlsOf(ps []PathResult) []PathResult {
	var controls []PathResult
	for _, p := range ps {
		if isControl(p) {
			if placementMoved(p.Regime, p.Placement) {
				return nil
			}
			controls = append(controls, p)
		}
	}
	slices.SortStableFunc(controls, func(a, b PathResult) int {
		return boolCmp(b.ClientTransport == TCP, a.ClientTransport == TCP)
	})
	return controls
}

// followers counts the paths other than the controls with rounds in both
// of h's states (others), and of them the ones slower in the slow rounds
// (moved).
func (h *hostStates) followers(ps []PathResult, oneRound bool) (moved, others int) {
	for _, p := range ps {
		if isControl(p) {
			continue
		}
		fast, slow := h.sides(p)
		if len(fast) == 0 || len(slow) == 0 {
			continue
		}
		others++
		// With a state of one round, a path's round sits above its
		// others' median half the time by chance: it must be slower by
		// as much as a path that moved with the host.
		if m := stats.Median(fast); stats.Median(slow) > m && (!oneRound || stats.Median(slow) >= movedRatio*m) {
			moved++
		}
	}
	return moved, others
}

// stageName names a stage as the round sizing does: its regime, then
// the sweep's values where they are not the defaults.
func stageName(g group) string {
	parts := []string{g.regime}
	if g.regime == "" {
		parts[0] = "run"
	}
	if g.threads > 1 {
		parts = append(parts, plural(g.threads, "thread"))
	}
	if g.serviceTimeUs != 0 {
		parts = append(parts, "service time "+Us(g.serviceTimeUs)+" µs")
	}
	if g.size != 0 {
		parts = append(parts, fmt.Sprintf("size %d", g.size))
	}
	if g.rows != 0 {
		parts = append(parts, fmt.Sprintf("rows %d", g.rows))
	}
	return strings.Join(parts, ", ")
}

// StateEvidence is what shows a stage's host ran at two speeds: its
// Control's round p50s in its fast rounds and in its slow ones (µs), the
// other controls moving with it (With), and Moved of the Others paths
// slower in the same rounds. Package present says it in
// machine.State.Evidence.
type StateEvidence struct {
	Control                string
	FastUs, SlowUs         []float64
	FastRounds, SlowRounds []int
	With                   []ControlMove
	Moved, Others          int
}

// ControlMove is another control's round p50s in the host's fast rounds
// and in its slow ones (µs).
type ControlMove struct {
	Control        string
	FastUs, SlowUs []float64
}

// machineStates is h as the report's machine.states[] lists it, and the
// evidence of each, which present says in it.
func (h *hostStates) machineStates() ([]machine.State, []StateEvidence) {
	var out []machine.State
	for i, rounds := range [][]int{h.fastRounds, h.slowRounds} {
		out = append(out, machine.State{Stage: h.stage, Name: h.stateNames[i], Rounds: rounds,
			Control: h.control, ControlP50Us: stats.Median(h.p50s[i])})
	}
	return out, []StateEvidence{h.evidence, h.evidence}
}

// States lists the speeds the host ran at in each stage of the run whose
// control paths moved together between rounds (machine.states[]); nil
// when the host kept one speed. Their evidence is StatesEvidence's.
func States(paths []PathResult) []machine.State {
	states, _ := StatesEvidence(paths)
	return states
}

// StatesEvidence is States, with what shows each state (aligned with
// them), which package present says in its Evidence.
func StatesEvidence(paths []PathResult) ([]machine.State, []StateEvidence) {
	var out []machine.State
	var evidence []StateEvidence
	found := detectStates(paths)
	seen := map[group]bool{}
	for _, p := range paths {
		g := groupOf(p)
		if h := found[g]; h != nil && !seen[g] {
			seen[g] = true
			s, e := h.machineStates()
			out, evidence = append(out, s...), append(evidence, e...)
		}
	}
	return out, evidence
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// pairing maps each of r's rounds (by position) to the baseline round it
// is judged against: its own cycle's, unless the host changed speed
// between the baseline's round and the path's. A cycle runs its cells in
// one order (A B C … A B C …), so a path after its baseline in that order
// ran between the baseline's rounds k and k+1, one before it between k-1
// and k. Where those two are in different states the change came in
// between, and the path's round may have run at either speed: it takes
// the state whose other rounds of the path its p50 lies nearer, when the
// path moved with the host (its medians in the two states movedRatio
// apart). A change between two controls' rounds leaves the paths run after
// it slow beside a fast control: paired with that control alone, each
// would be flagged unstable (docs/measurements.md, "Host states").
func (h *hostStates) pairing(r, base PathResult, after bool) []int {
	n := min(len(r.Rounds), len(base.Rounds))
	pair := make([]int, n)
	next := -1
	if after {
		next = 1
	}
	usable := func(k int) bool {
		return k >= 0 && k < n && r.Rounds[k].Kept && base.Rounds[k].Kept && r.Rounds[k].P50 > 0 && base.Rounds[k].P50 > 0
	}
	var ambiguous []int
	var settled [2][]float64 // the path's round p50s by state, away from a change
	for k := range n {
		pair[k] = k
		if !usable(k) {
			continue
		}
		if j := k + next; usable(j) && h.state(j) != h.state(k) {
			ambiguous = append(ambiguous, k)
			continue
		}
		settled[h.state(k)] = append(settled[h.state(k)], r.Rounds[k].P50)
	}
	if len(ambiguous) == 0 || len(settled[0]) == 0 || len(settled[1]) == 0 {
		return pair
	}
	at := [2]float64{stats.Median(settled[0]), stats.Median(settled[1])}
	if at[1] < movedRatio*at[0] {
		return pair // the path did not move with the host: nothing tells its state
	}
	for _, k := range ambiguous {
		x, j := r.Rounds[k].P50, k+next
		if near := h.state(j); math.Abs(x-at[near]) < math.Abs(x-at[h.state(k)]) {
			pair[k] = j
		}
	}
	return pair
}

// movedRatio is how much slower a path's rounds in the host's slow state
// must be than in its fast one for the path's own p50 to tell which
// state a round ran in.
const movedRatio = 1.1

// pairs is each usable round's path and paired baseline rounds.
func pairs(r, base PathResult, pair []int) (a, b []Round) {
	for k, j := range pair {
		x, y := r.Rounds[k], base.Rounds[j]
		if x.Kept && y.Kept && x.P50 > 0 && y.P50 > 0 {
			a, b = append(a, x), append(b, y)
		}
	}
	return a, b
}

// How a paired path's rounds held on a host of two speeds: the host
// either adds the same time to every round trip (the difference over the
// baseline holds) or scales them all (the ratio holds).
const (
	byDifference = "difference"
	byRatio      = "ratio"
)

// pairedStability judges path i of a stage whose host changed speed. A
// relay path is judged on its round p50 over its baseline's paired round
// (pairing), which the host's speed leaves alone; a control on its
// rounds within each state. The spread is the judged figure's max/min;
// model says which figure held (byDifference, byRatio), "" where none
// did or the path is a control.
func pairedStability(r PathResult, base *PathResult, h *hostStates, pair []int) (ok bool, why *Judged, spread float64, model string) {
	if isControl(r) || base == nil {
		fast, slow := h.sides(r)
		worst := 1.0
		for k, vs := range [][]float64{fast, slow} {
			if len(vs) > 0 && slices.Min(vs) > 0 {
				worst = max(worst, slices.Max(vs)/slices.Min(vs))
			}
			if ok, why := stability(vs); !ok {
				why.State = h.stateNames[k]
				return false, why, worst, ""
			}
		}
		return true, nil, worst, ""
	}
	var ratios, diffs []float64
	a, b := pairs(r, *base, pair)
	for k := range a {
		ratios, diffs = append(ratios, a[k].P50/b[k].P50), append(diffs, a[k].P50-b[k].P50)
	}
	// A hop that costs the same at either speed of the host holds its
	// difference while the ratio moves (docs/measurements.md, "Host
	// states").
	if ok, _ := judge(diffs, ""); ok && len(diffs) > 0 && slices.Min(diffs) > 0 {
		return true, nil, min(spreadOf(diffs), spreadOf(ratios)), byDifference
	}
	ok, why = judge(ratios, base.Name)
	if ok {
		model = byRatio
	}
	return ok, why, spreadOf(ratios), model
}

// pairedAdded is r's added latency over base (named baseline) on a host
// of two speeds, from the paired rounds (pairing); nil when no pair is
// usable. Where the ratio held (model byRatio) each pair is first
// rescaled to the baseline's median in the fast state, so that the figure
// is the hop at one speed of the host rather than a median over two, and
// reads as it does in runs that kept one speed (docs/measurements.md,
// "Host states"). Otherwise it is the
// median of the plain differences.
func pairedAdded(r, base PathResult, h *hostStates, pair []int, model, baseline string) *Added {
	a, b := pairs(r, base, pair)
	fast, _ := h.sides(base)
	ref := stats.Median(fast)
	var a50, b50, a99, b99 []float64
	for k := range a {
		f := 1.0
		if model == byRatio && ref > 0 {
			f = ref / b[k].P50
		}
		a50, b50 = append(a50, f*a[k].P50), append(b50, f*b[k].P50)
		a99, b99 = append(a99, f*a[k].P99), append(b99, f*b[k].P99)
	}
	out := addedFrom(baseline, a50, b50, a99, b99)
	if out == nil {
		return nil
	}
	out.Method, out.PairedBy = "paired", model
	out.States = stateAdded(a, b, h)
	return out
}

// stateAdded is the differences of paired rounds (pairs) within each
// state of the host, by the baseline round's: what the hop cost at each
// speed.
func stateAdded(a, b []Round, h *hostStates) []StateAdded {
	var d [2][]float64
	for k := range a {
		s := h.state(b[k].Index)
		d[s] = append(d[s], a[k].P50-b[k].P50)
	}
	var out []StateAdded
	for s, ds := range d {
		if len(ds) > 0 {
			out = append(out, StateAdded{State: h.stateNames[s], P50: stats.Median(ds), Pairs: len(ds)})
		}
	}
	return out
}

// maxFlaggedShare is one path in so many: a run that flags more has
// met the machine's noise, not each path's (docs/measurements.md, "Host
// states"): a flag every row carries tells a reader nothing.
const (
	maxFlaggedShare = 5
	minFlagged      = 2
)

// limitFlagged marks the machine's share of the instability when more than
// one path in maxFlaggedShare (at least minFlagged, which a run of a few
// paths needs to say anything) is flagged: past the most spread, each
// flagged path whose own placement did not move carries machine_noise, so
// that a reader is told once that the machine was noisy rather than on
// every row. Every such path stays flagged (stable false, its reason
// kept): its figure is no steadier for sharing the cause.
func limitFlagged(sums []PathResult) {
	var flagged []int
	for i := range sums {
		if !sums[i].Stable {
			flagged = append(flagged, i)
		}
	}
	limit := max(minFlagged, len(sums)/maxFlaggedShare)
	if len(flagged) <= limit {
		return
	}
	slices.SortStableFunc(flagged, func(a, b int) int { return cmpFloat(sums[b].spread, sums[a].spread) })
	for n, i := range flagged {
		r := &sums[i]
		if _, _, moved := movedComponent(r.Placement); moved && r.Regime != "none" {
			continue
		}
		if n < limit {
			continue
		}
		r.Noisy = &MachineNoise{Flagged: len(flagged), Paths: len(sums)}
	}
}

// spreadOf is the max/min of values, 1 when they cannot say.
func spreadOf(vs []float64) float64 {
	if len(vs) == 0 || slices.Min(vs) <= 0 {
		return 1
	}
	return slices.Max(vs) / slices.Min(vs)
}
