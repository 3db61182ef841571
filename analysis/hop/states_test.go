package hop

import (
	"slices"
	"testing"
)

// intelRun is a stage on a host that alternates between two speeds, as
// the 2-vCPU Intel guest did (direct tcp's rounds 7.5, 7.5, 7.7 and
// 11.0, 11.3, 11.3 µs): every path's rounds move with the controls'.
func intelRun() []Series {
	slow := []bool{false, true, false, true, false, true, false} // round 0 discarded
	at := func(p Path, fast float64, scale float64) Series {
		var p50s []float64
		for i, s := range slow {
			v := fast * (1 + 0.01*float64(i%3))
			if s {
				v *= scale
			}
			p50s = append(p50s, v)
		}
		return pathSeries(p, 1, p50s...)
	}
	all := []Series{at(directTCP, 7.5, 1.48), at(directUNIX, 5.2, 1.45)}
	for i, r := range []Relay{Goroutine, Epoll, Splice, Socat, HAProxy} {
		all = append(all,
			at(Path{Relay: r, Client: TCP, Upstream: TCP, Hops: 1}, 30+float64(i), 1.45),
			at(Path{Relay: r, Client: UNIX, Upstream: TCP, Hops: 1}, 26+float64(i), 1.46))
	}
	return all
}

func TestAnalyzePairsPathsWhereTheHostChangedSpeed(t *testing.T) {
	paths, _ := Analyze(intelRun(), 1, false)
	states, evidence := StatesEvidence(paths)
	if len(states) != 2 || states[0].Name != "fast" || states[1].Name != "slow" {
		t.Fatalf("states %+v, want fast and slow", states)
	}
	if !slices.Equal(states[0].Rounds, []int{2, 4, 6}) || !slices.Equal(states[1].Rounds, []int{1, 3, 5}) {
		t.Errorf("rounds %v and %v, want 2, 4, 6 and 1, 3, 5", states[0].Rounds, states[1].Rounds)
	}
	if e := evidence[0]; states[0].Control != "direct tcp" || e.Control != "direct tcp" || len(e.With) != 1 || e.With[0].Control != "direct unix" ||
		e.Moved != 10 || e.Others != 10 {
		t.Errorf("evidence %+v of %s", e, states[0].Control)
	}
	for _, p := range paths {
		if !p.Stable || p.Noisy != nil {
			t.Errorf("%s flagged for the host's speed: %q %+v", p.Name, p.UnstableReason, p.Noisy)
		}
		if p.Relay != Direct && (p.AddedUs == nil || p.AddedUs.Method != "paired" || len(p.AddedUs.States) != 2) {
			t.Errorf("%s: added_us %+v, want method paired and a figure per state", p.Name, p.AddedUs)
		}
	}
	// One path whose hop itself jumped in two rounds is still flagged.
	all := intelRun()
	odd := all[4] // epoll tcp->tcp
	for _, i := range []int{2, 4} {
		odd.Samples[i].Latency.P50 *= 1.8
	}
	paths, _ = Analyze(all, 1, false)
	if p := find(t, paths, epollTCP); p.Stable || p.Instability == nil || p.Instability.Judged == nil || p.Instability.Judged.Paired != "direct tcp" {
		t.Errorf("epoll with a hop of its own: stable %v %q", p.Stable, p.UnstableReason)
	}
}

// A run where most paths' rounds spread keeps every one flagged, and
// marks those past the most spread (and not moved themselves) as the
// machine's noise, for the report to say once.
func TestAnalyzeMarksTheMachinesNoise(t *testing.T) {
	var all []Series
	all = append(all, pathSeries(directTCP, 1, 20, 20, 20.5, 20.2, 20.1))
	for i := range 19 {
		p := Path{Relay: Relay("proxy" + string(rune('a'+i))), Client: TCP, Upstream: TCP, Hops: 1}
		spread := 1.4 + 0.05*float64(i)
		s := pathSeries(p, 1, 60, 60, 60*spread, 62, 61)
		s.Placement = map[string]string{"client": "0", "relay": "0", "server": "0"}
		if i == 0 {
			s.Placement["relay"] = "0|1" // its own cause
		}
		all = append(all, s)
	}
	paths, _ := Analyze(all, 1, false)
	var flagged, noise []string
	for _, p := range paths {
		if !p.Stable {
			flagged = append(flagged, string(p.Relay))
		}
		if p.Noisy != nil {
			noise = append(noise, string(p.Relay))
			if p.Stable || p.Instability == nil {
				t.Errorf("%s: machine_noise on a path not flagged: stable %v %q", p.Relay, p.Stable, p.UnstableReason)
			}
		}
	}
	if len(flagged) != 19 {
		t.Errorf("flagged %v, want all 19 spread paths", flagged)
	}
	if len(noise) != 14 || slices.Contains(noise, "proxya") || slices.Contains(noise, "proxys") {
		t.Errorf("machine_noise on %v, want 14: not the one that moved, not the four most spread", noise)
	}
}

// amdRun is the packed stage of a default run on the 2-vCPU AMD guest, as
// measured (round p50s in µs, round 0 the warm-up): the host went from
// 19.6 to 25.8 µs direct tcp between cycles 4 and 5, and the paths after
// splice tcp->tcp in cycle 4's order already ran at the slow speed.
func amdRun() []Series {
	return measured([]measuredPath{
		{directTCP, []float64{20.1, 20.0, 19.3, 19.7, 19.5, 25.9, 25.6}},
		{directUNIX, []float64{20.3, 20.5, 19.7, 19.9, 19.8, 25.5, 25.1}},
		{Path{Relay: Goroutine, Client: TCP, Upstream: TCP, Hops: 1}, []float64{59.1, 59.7, 58.3, 59.5, 58.3, 79.2, 77.8}},
		{Path{Relay: Goroutine, Client: UNIX, Upstream: TCP, Hops: 1}, []float64{58.0, 58.8, 57.1, 58.6, 56.9, 79.3, 77.4}},
		{epollTCP, []float64{51.0, 53.5, 49.3, 50.4, 50.0, 69.1, 67.2}},
		{Path{Relay: Epoll, Client: UNIX, Upstream: TCP, Hops: 1}, []float64{48.0, 48.7, 48.1, 47.7, 48.4, 67.4, 65.7}},
		{Path{Relay: Splice, Client: TCP, Upstream: TCP, Hops: 1}, []float64{54.0, 54.8, 54.5, 54.7, 54.3, 72.8, 71.4}},
		{Path{Relay: Splice, Client: UNIX, Upstream: TCP, Hops: 1}, []float64{51.0, 50.9, 51.0, 52.0, 70.0, 73.0, 71.8}},
		{Path{Relay: Sockmap, Client: TCP, Upstream: TCP, Hops: 1}, []float64{29.0, 28.8, 28.6, 29.6, 38.9, 38.8, 39.3}},
		{Path{Relay: Socat, Client: TCP, Upstream: TCP, Hops: 1}, []float64{63.0, 62.3, 62.1, 66.6, 82.0, 84.1, 82.9}},
		{Path{Relay: Socat, Client: UNIX, Upstream: TCP, Hops: 1}, []float64{62.0, 61.3, 62.0, 64.7, 81.7, 84.7, 80.9}},
		{Path{Relay: HAProxy, Client: TCP, Upstream: TCP, Hops: 1}, []float64{56.0, 55.0, 56.4, 58.1, 74.3, 76.2, 74.8}},
	})
}

// measuredPath is one path's round p50s as a run measured them, in µs,
// round 0 the warm-up.
type measuredPath struct {
	p    Path
	p50s []float64
}

func measured(rows []measuredPath) []Series {
	var all []Series
	for _, r := range rows {
		all = append(all, pathSeries(r.p, 1, r.p50s...))
	}
	return all
}

// A path that ran after the host's change in the cycle where it changed
// is paired with the slow state's control round, and its added p50 is
// the hop at the fast state's speed: within 15% of the next two runs on
// the same guest (one speed each): HAProxy 38.4 and 36.4 µs, splice
// unix->tcp 32.7 and 32.2, sockmap 10.6 and 9.9.
func TestAnalyzePairsAcrossTheCycleWhereTheHostChanged(t *testing.T) {
	paths, _ := Analyze(amdRun(), 1, false)
	states := States(paths)
	if len(states) != 2 || !slices.Equal(states[1].Rounds, []int{5, 6}) {
		t.Fatalf("states %+v, want slow rounds 5 and 6", states)
	}
	for _, p := range paths {
		if !p.Stable {
			t.Errorf("%s flagged: %q", p.Name, p.UnstableReason)
		}
	}
	for _, c := range []struct {
		p      Path
		lo, hi float64
	}{
		{Path{Relay: HAProxy, Client: TCP, Upstream: TCP, Hops: 1}, 0.85 * 37.4, 1.15 * 37.4},
		{Path{Relay: Splice, Client: UNIX, Upstream: TCP, Hops: 1}, 0.85 * 32.45, 1.15 * 32.45},
		{Path{Relay: Sockmap, Client: TCP, Upstream: TCP, Hops: 1}, 0.85 * 10.25, 1.15 * 10.25},
	} {
		a := find(t, paths, c.p).AddedUs
		if a == nil || a.P50 < c.lo || a.P50 > c.hi || a.PairedBy != byRatio || a.Pairs != 6 {
			t.Errorf("%s: added %+v, want p50 in [%.1f, %.1f] paired by ratio over 6 pairs", c.p.Name(), a, c.lo, c.hi)
		}
	}
	// Paired with its own cycle's control only, splice unix->tcp's fourth
	// round reads 3.5 times direct unix against 2.5-2.9 in the others.
	all := amdRun()
	h := detectStates(func() []PathResult { p, _ := Analyze(all, 1, false); return p }())[group{threads: 1}]
	ps, _ := Analyze(all, 1, false)
	su := find(t, ps, Path{Relay: Splice, Client: UNIX, Upstream: TCP, Hops: 1})
	du := find(t, ps, directUNIX)
	if got := h.pairing(su, du, true); !slices.Equal(got, []int{0, 1, 2, 3, 5, 5, 6}) {
		t.Errorf("pairing %v, want round 4 with the control's round 5", got)
	}
	if got := h.pairing(su, du, false); !slices.Equal(got, []int{0, 1, 2, 3, 4, 5, 6}) {
		t.Errorf("pairing of a path before its control %v, want every round with its own cycle's", got)
	}
}

// amdLastCycle is the packed stage of another default run on the AMD
// guest, as measured: the host slowed during cycle 5 (epoll tcp->tcp and
// splice tcp->tcp already ran slow there, the paths between them did not)
// and stayed slow for cycle 6, the last; haproxy's round 1 is its own.
func amdLastCycle() []Series {
	return measured([]measuredPath{
		{directTCP, []float64{19.6, 19.6, 19.6, 19.6, 19.6, 19.2, 25.4}},
		{directUNIX, []float64{20.1, 19.9, 20.1, 19.9, 20.6, 19.4, 25.6}},
		{Path{Relay: Goroutine, Client: TCP, Upstream: TCP, Hops: 1}, []float64{59.7, 60, 60.1, 60.1, 61.3, 58.6, 78}},
		{Path{Relay: Goroutine, Client: UNIX, Upstream: TCP, Hops: 1}, []float64{58.4, 58, 60.1, 58, 59, 60.5, 79.7}},
		{epollTCP, []float64{50.6, 50.8, 51.1, 50.8, 51, 72, 65.1}},
		{Path{Relay: Epoll, Client: UNIX, Upstream: TCP, Hops: 1}, []float64{48.6, 48.6, 49.4, 48.9, 49.2, 49.1, 65.7}},
		{Path{Relay: Splice, Client: TCP, Upstream: TCP, Hops: 1}, []float64{54.5, 54, 53.6, 54.1, 54.2, 70.1, 68.5}},
		{Path{Relay: Splice, Client: UNIX, Upstream: TCP, Hops: 1}, []float64{52.2, 52.8, 53, 52.8, 53, 58.8, 70.6}},
		{Path{Relay: Sockmap, Client: TCP, Upstream: TCP, Hops: 1}, []float64{29.6, 29.3, 29.9, 29.8, 29.6, 33.2, 37.5}},
		{Path{Relay: Socat, Client: TCP, Upstream: TCP, Hops: 1}, []float64{63.9, 64.4, 63.6, 65.3, 67.6, 74.4, 80.1}},
		{Path{Relay: Socat, Client: UNIX, Upstream: TCP, Hops: 1}, []float64{62.8, 63.9, 70.5, 63.2, 61.1, 76.9, 81.7}},
		{Path{Relay: HAProxy, Client: TCP, Upstream: TCP, Hops: 1}, []float64{56.4, 71.2, 56.1, 57.4, 54, 76.8, 74.7}},
	})
}

// The host slowed for the last cycle only: one round of every control,
// and every path with it, is a state of the host. Without it the run
// flagged 12 of 12 paths (both controls among them).
func TestAnalyzeTakesOneRoundOfEveryControlAsAState(t *testing.T) {
	paths, _ := Analyze(amdLastCycle(), 1, false)
	states, evidence := StatesEvidence(paths)
	if len(states) != 2 || !slices.Equal(states[1].Rounds, []int{6}) || evidence[0].Moved != 10 || evidence[0].Others != 10 {
		t.Fatalf("states %+v, evidence %+v, want round 6 slow, with every path's evidence", states, evidence)
	}
	var flagged []string
	for _, p := range paths {
		if !p.Stable {
			flagged = append(flagged, p.Name)
		}
	}
	// haproxy's round 1 (71.2 µs, its others 54-57) ran with the host
	// fast: one odd round, within what the host's noise allows a path
	// (judgeAgainstNoise), and its median of paired rounds holds.
	if len(flagged) != 0 {
		t.Errorf("flagged %v, want none", flagged)
	}
	if a := find(t, paths, epollTCP).AddedUs; a == nil || a.P50 < 0.85*31.5 || a.P50 > 1.15*31.5 || a.PairedBy != byRatio {
		t.Errorf("epoll tcp->tcp: added %+v, want about the fast rounds' 31.5 µs, paired by ratio", a)
	}

	// One control's slow round alone is an outlier, not the host.
	all := amdLastCycle()
	all[1].Samples[6].Latency.P50 = 20.0 // direct unix held
	paths, _ = Analyze(all, 1, false)
	if s := States(paths); s != nil {
		t.Errorf("direct tcp slow in one round alone: states %+v", s)
	}
	// Both controls slow in one round, the paths not: not the host either.
	all = amdLastCycle()
	for i := 2; i < len(all); i++ {
		all[i].Samples[6].Latency.P50 = all[i].Samples[5].Latency.P50
	}
	all[4].Samples[6].Latency.P50, all[6].Samples[6].Latency.P50 = 51, 54 // cycle 5's slow epoll and splice rounds left aside
	all[4].Samples[5].Latency.P50, all[6].Samples[5].Latency.P50 = 51, 54
	paths, _ = Analyze(all, 1, false)
	if s := States(paths); s != nil {
		t.Errorf("the controls slow in one round, the paths not: states %+v", s)
	}
}
