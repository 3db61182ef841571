package hop

import (
	"math"
	"slices"
	"testing"
	"time"
)

func TestStability(t *testing.T) {
	for _, c := range []struct {
		p50s   []float64
		stable bool
		why    Judged // Values and, where it says them, MaxMin to the reason's precision
	}{
		{[]float64{25, 26, 24, 25}, true, Judged{}},
		{[]float64{10.9, 89.8, 139, 10.8, 92.0}, false, Judged{Kind: DisagreeRatio, MaxMin: 12.9, Limit: 2}},
		{[]float64{20, 21, 35, 36}, false, Judged{Kind: DisagreeClusters, Below: []float64{20, 21}, Above: []float64{35, 36}}},
		{[]float64{20, 22, 24, 26}, true, Judged{}},                                      // evenly spread: noise, not two groups
		{[]float64{10, 10.1, 10.5}, true, Judged{}},                                      // a gap, but 4% apart
		{[]float64{100, 180}, true, Judged{}},                                            // two rounds: only the ratio can say
		{[]float64{100, 210}, false, Judged{Kind: DisagreeRatio, MaxMin: 2.1, Limit: 2}}, // and does
		{[]float64{42}, true, Judged{}},
		// No two groups, but 24 to 36 µs: wider than a figure quoted
		// to ±15% can come from (epoll tcp->tcp, packed, one run).
		{[]float64{32.5, 35.9, 24.1, 25.0, 33.8, 24.5}, false, Judged{Kind: DisagreeSpread, MaxMin: 1.49, Limit: 1.3}},
		{[]float64{23.8, 23.5, 26.1, 24.0, 24.3, 23.4}, true, Judged{}},
	} {
		stable, why := stability(c.p50s)
		if stable != c.stable || stable != (why == nil) {
			t.Errorf("%v: %v %+v, want %v", c.p50s, stable, why, c.stable)
			continue
		}
		if why == nil {
			continue
		}
		digits := 100.0
		if why.Kind == DisagreeRatio {
			digits = 10
		}
		if why.Kind != c.why.Kind || why.Limit != c.why.Limit || math.Round(why.MaxMin*digits) != math.Round(c.why.MaxMin*digits) && why.Kind != DisagreeClusters ||
			!slices.Equal(why.Values, c.p50s) || !slices.Equal(why.Below, c.why.Below) || !slices.Equal(why.Above, c.why.Above) {
			t.Errorf("%v: %+v, want %+v", c.p50s, why, c.why)
		}
	}
}

// byMachine says whether p was flagged for the machine's states: its rounds
// moved with a path beside it or with its client's CPU time per request.
func byMachine(p PathResult) bool {
	in := p.Instability
	return in != nil && (in.Moved != nil || in.Cause != nil && (in.Cause.Kind == CauseReference || in.Cause.Kind == CauseClientCPU))
}

// placed says whether c is a placement that changed between rounds: the
// component on those CPUs.
func placed(c *Cause, component, cpus string) bool {
	return c.Kind == CausePlacement && c.Component == component && c.CPUs == cpus
}

func TestLikelyCause(t *testing.T) {
	if c := likelyCause("none", nil, nil); c.Kind != CauseUnpinned {
		t.Errorf("unpinned: %+v", c)
	}
	if c := likelyCause("custom", map[string]string{"client": "0|1", "server": "0"}, []float64{100, 100}); !placed(c, "client", "0|1") {
		t.Errorf("moved client: %+v", c)
	}
	if c := likelyCause("packed", map[string]string{"client": "0", "server": "0"}, []float64{28000, 21000}); c.Kind != CauseMigration {
		t.Errorf("pinned: %+v", c)
	}
	// The p50 jumped, the throughput held: the median moved between the
	// humps of the per-request times (rounds of a packed haproxy hop).
	if c := likelyCause("packed", map[string]string{"client": "0", "server": "0"}, []float64{27674, 26386, 27934, 26854, 26557, 26674}); c.Kind != CauseTwoHumped || math.Round(c.Pct) != 6 {
		t.Errorf("steady tps: %+v", c)
	}
}

// A path whose rounds fall in two regimes (a placement changed between
// rounds) is flagged, with the rounds and a cause, and named among the
// verdicts; a steady one is not.
func TestAnalyzeFlagsBimodalPath(t *testing.T) {
	bimodal := pathSeries(epollTCP, 1, 200, 22, 130, 23, 128)
	bimodal.Placement = map[string]string{"client": "0", "relay": "0|1", "server": "0"}
	paths, _ := Analyze([]Series{pathSeries(directTCP, 1, 90, 10, 10.5, 10.2, 10.4), bimodal}, 1, false)
	direct, epoll := find(t, paths, directTCP), find(t, paths, epollTCP)
	if !direct.Stable || direct.Instability != nil {
		t.Errorf("steady direct path flagged: %+v", direct.Instability)
	}
	if epoll.Stable || epoll.Instability == nil || epoll.Instability.Judged == nil || epoll.Instability.Cause == nil ||
		!placed(epoll.Instability.Cause, "relay", "0|1") {
		t.Errorf("bimodal path: stable %v, reason %+v", epoll.Stable, epoll.Instability)
	}
	if len(epoll.RoundsP50Us) != 4 || epoll.RoundsP50Us[1] != 130 {
		t.Errorf("rounds_p50_us %v, want the four kept rounds in order", epoll.RoundsP50Us)
	}
	r := &Report{Paths: paths}
	found := false
	for _, f := range Findings(r) {
		u, ok := f.(Unstable)
		found = found || ok && u.Path == "epoll tcp->tcp"
	}
	if !found {
		t.Errorf("findings %+v do not name the unstable path", Findings(r))
	}
}

// A difference whose interval spans zero gets one sentence, "no
// measurable difference", and no verb that claims a direction.
func TestNoVerdictForADifferenceWithinTheNoise(t *testing.T) {
	paths, _ := Analyze([]Series{
		pathSeries(directTCP, 1, 90, 20, 22, 19, 21),
		pathSeries(directUNIX, 1, 90, 21, 20, 21, 20),
		pathSeries(epollTCP, 1, 90, 20.5, 21.5, 19.5, 20.5),
	}, 1, false)
	var leg, costs bool
	for _, f := range Findings(&Report{Paths: paths}) {
		switch f := f.(type) {
		case UnixLeg:
			leg = f.Relay == Direct && !f.Measurable
			if f.Measurable {
				t.Errorf("UNIX leg %+v measurable within the noise", f)
			}
		case HopCosts:
			costs = len(f.Hops) == 0 && len(f.Unmeasurable) == 1 && f.Unmeasurable[0] == Epoll
			if len(f.Hops) > 0 {
				t.Errorf("hop costs %+v claim a difference within the noise", f)
			}
		}
	}
	if !leg || !costs {
		t.Errorf("findings %+v: want direct's UNIX leg and epoll's hop, neither measurable", Findings(&Report{Paths: paths}))
	}
}

// Rounds that moved with the direct path measured beside them, cycle by
// cycle, name the machine as their cause: the figures of one default run
// on the 2-vCPU AMD guest, every component on CPU 0. Rounds that moved
// alone keep the placement's or the tenant's cause.
func TestAnalyzeNamesASharedState(t *testing.T) {
	// The host ran at two speeds (direct tcp 21-22 µs and 28-32), epoll
	// with it: the states are the machine's, and no path is flagged for
	// them; epoll's hop is paired with direct tcp's round of each cycle.
	direct := pathSeries(directTCP, 1, 90, 22, 29, 29, 21, 21, 28, 22, 29, 30, 32)
	epoll := pathSeries(epollTCP, 1, 200, 52, 69, 71, 50, 51, 68, 53, 69, 73, 78)
	unix := pathSeries(directUNIX, 1, 90, 14, 18, 18, 14, 14, 18, 14, 19, 19, 20)
	for _, all := range [][]Series{{direct, epoll}, {direct, unix, epoll}} {
		paths, _ := Analyze(all, 1, false)
		for _, p := range paths {
			if !p.Stable {
				t.Errorf("%d paths: %s flagged for the host's states: %q", len(all), p.Name, p.UnstableReason)
			}
		}
		if p := find(t, paths, epollTCP); p.AddedUs == nil || p.AddedUs.Method != "paired" || len(p.AddedUs.States) != 2 {
			t.Errorf("%d paths: epoll's added_us %+v, want method paired, two states", len(all), p.AddedUs)
		}
		if st := States(paths); len(st) != 2 || !slices.Equal(st[0].Rounds, []int{1, 4, 5, 7}) {
			t.Errorf("%d paths: states %+v, want fast rounds 1, 4, 5, 7", len(all), st)
		}
	}
	// Where the UNIX control did not move with direct tcp, the host did
	// not change: the states are not named, nor the hops paired.
	apart := pathSeries(directUNIX, 1, 90, 14, 14, 14, 19, 14, 18, 19, 14, 18, 14)
	paths, _ := Analyze([]Series{direct, apart, epoll}, 1, false)
	if States(paths) != nil {
		t.Errorf("controls apart: states %+v", States(paths))
	}
	if p := find(t, paths, epollTCP); p.AddedUs.Method != "" {
		t.Errorf("controls apart: epoll's added_us method %q", p.AddedUs.Method)
	}
	// The same epoll rounds beside a steady direct path: their own.
	paths, _ = Analyze([]Series{pathSeries(directTCP, 1, 90, 22, 22, 21, 21, 22, 21, 22, 21, 22, 22), epoll}, 1, false)
	steady := pathSeries(directTCP, 1, 90, 22, 22, 21, 21, 22, 21, 22, 21, 22, 22)
	if p := find(t, paths, epollTCP); p.Stable || byMachine(p) {
		t.Errorf("epoll beside a steady direct path: stable %v, %q", p.Stable, p.UnstableReason)
	}
	// Its client's CPU time per request moved with its rounds (0.58 of
	// the p50, a 150 ms round's start-up aside): the machine again, seen
	// inside each round. A client whose CPU time held does not say so.
	slower := epoll
	slower.Samples = slices.Clone(epoll.Samples)
	held := epoll
	held.Samples = slices.Clone(epoll.Samples)
	for i, smp := range epoll.Samples {
		requests := smp.TPS * 0.15
		for _, s := range []*Sample{&slower.Samples[i], &held.Samples[i]} {
			s.Latency.Count, s.Latency.Avg = int64(requests), 1.1*smp.Latency.P50
		}
		slower.Samples[i].CPU = time.Duration((3e6 + requests*0.58*smp.Latency.P50*1e3) * (1 + 0.02*float64(i%2)))
		held.Samples[i].CPU = time.Duration(3e6 + requests*0.58*60*1e3)
	}
	paths, _ = Analyze([]Series{steady, slower}, 1, false)
	if p := find(t, paths, epollTCP); p.Instability == nil || p.Instability.Cause == nil || p.Instability.Cause.Kind != CauseClientCPU {
		t.Errorf("client CPU in proportion: %+v", p.Instability)
	}
	// A client that spun for the whole round says nothing of the machine.
	spun := slower
	spun.Samples = slices.Clone(slower.Samples)
	for i := range spun.Samples {
		spun.Samples[i].CPU = time.Duration(float64(spun.Samples[i].Latency.Count) * spun.Samples[i].Latency.Avg * 1e3)
	}
	paths, _ = Analyze([]Series{steady, spun}, 1, false)
	if p := find(t, paths, epollTCP); byMachine(p) {
		t.Errorf("spinning client: %+v", p.Instability)
	}
	paths, _ = Analyze([]Series{steady, held}, 1, false)
	if p := find(t, paths, epollTCP); byMachine(p) {
		t.Errorf("client CPU held: %+v", p.Instability)
	}
}

// make bench's packed stage on the 2-vCPU AMD guest: direct unix ran
// three rounds in a slower state of the machine and three in a faster one
// (its client's CPU time per request with it); splice unix->tcp, in the
// same cycles, spread 1.299×, under the 1.3 every path is held to. It is
// flagged with the machine as its cause; a path that kept within 15%
// beside it, or the same rounds beside a steady baseline, are not.
func TestAnalyzeFlagsAPathMeasuredAcrossMachineStates(t *testing.T) {
	withCPU := func(s Series, perP50 float64) Series {
		s.Samples = slices.Clone(s.Samples)
		for i := range s.Samples {
			smp := &s.Samples[i]
			requests := smp.TPS * 0.35
			smp.Latency.Count, smp.Latency.Avg = int64(requests), 1.1*smp.Latency.P50
			smp.CPU = time.Duration(requests * perP50 * smp.Latency.P50 * 1e3)
		}
		return s
	}
	direct := withCPU(pathSeries(directUNIX, 1, 28, 27.1, 29.4, 25.7, 18.2, 17.6, 18.1), 0.8)
	splice := pathSeries(spliceUNIX, 1, 80, 78.9, 82.8, 83.8, 68.3, 64.5, 66.6)
	steadyRelay := pathSeries(epollUNIX, 1, 60, 60, 62, 63, 57, 56, 58)
	// The two speeds are states of the host (both relay paths slower in
	// the same rounds): splice's hop, 46.9-58.1 µs over direct unix in
	// every cycle, is paired, not flagged.
	paths, _ := Analyze([]Series{direct, splice, steadyRelay}, 1, false)
	for _, p := range paths {
		if !p.Stable {
			t.Errorf("%s flagged for the host's states: %q", p.Name, p.UnstableReason)
		}
	}
	if p := find(t, paths, spliceUNIX); p.AddedUs == nil || p.AddedUs.Method != "paired" {
		t.Errorf("splice: added_us %+v, want method paired", p.AddedUs)
	}
	// The same splice rounds beside a direct path that moved alone
	// (epoll did not follow it) spread less than the direct path did:
	// the host's noise, said once, not the path's flag.
	still := pathSeries(epollUNIX, 1, 60, 58, 60, 57, 59, 60, 58)
	stiller := pathSeries(Path{Relay: Goroutine, Client: UNIX, Upstream: TCP, Hops: 1}, 1, 60, 58, 60, 57, 59, 60, 58)
	paths, _ = Analyze([]Series{direct, splice, still, stiller}, 1, false)
	if p := find(t, paths, spliceUNIX); !p.Stable {
		t.Errorf("splice, within the direct path's spread: flagged %q", p.UnstableReason)
	}
	if d := find(t, paths, directUNIX); !d.Stable {
		t.Errorf("direct unix, the yardstick: flagged %q", d.UnstableReason)
	}
	if e := find(t, paths, epollUNIX); !e.Stable {
		t.Errorf("epoll within 15%%: flagged %q", e.UnstableReason)
	}
	// A path that spreads 1.16× for its own reasons, its slowest round in
	// one of the machine's faster cycles, is a median over one state.
	socat := Path{Relay: Socat, Client: UNIX, Upstream: TCP, Hops: 1}
	wobbly := pathSeries(socat, 1, 60, 60, 57, 61, 66, 58, 62)
	paths, _ = Analyze([]Series{direct, splice, still, stiller, wobbly}, 1, false)
	if w := find(t, paths, socat); !w.Stable {
		t.Errorf("socat, spread across the machine's fast cycles alone: flagged %q", w.UnstableReason)
	}

	steady := withCPU(pathSeries(directUNIX, 1, 20, 20, 21, 20, 19, 20, 20), 0.8)
	paths, _ = Analyze([]Series{steady, splice}, 1, false)
	if p := find(t, paths, spliceUNIX); !p.Stable {
		t.Errorf("splice beside a steady baseline: flagged %q", p.UnstableReason)
	}
}
