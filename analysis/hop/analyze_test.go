package hop

import (
	"math"
	"slices"
	"testing"

	"github.com/hoplat/hoplat/probe/machine"
	"github.com/hoplat/hoplat/stats"
	"github.com/hoplat/hoplat/tracer/split"
)

var (
	directTCP  = DirectPath(TCP)
	directUNIX = DirectPath(UNIX)
	epollTCP   = Path{Relay: Epoll, Client: TCP, Upstream: TCP, Hops: 1}
	epollUNIX  = Path{Relay: Epoll, Client: UNIX, Upstream: TCP, Hops: 1}
	spliceUNIX = Path{Relay: Splice, Client: UNIX, Upstream: TCP, Hops: 1}
)

// series builds a synthetic series whose round i has p50 p50s[i] (p99 at
// twice that) and 1e6/p50 tps.
func pathSeries(p Path, threads int, p50s ...float64) Series {
	s := Series{Setting: Setting{Threads: threads}, Path: p}
	for _, v := range p50s {
		s.Samples = append(s.Samples, Sample{Latency: stats.Latency{P50: v, P95: 1.5 * v, P99: 2 * v}, TPS: 1e6 / v})
	}
	return s
}

func histogram(values ...int64) *stats.Histogram {
	h := stats.NewHistogram()
	for _, v := range values {
		h.Record(v)
	}
	return h
}

func find(t *testing.T, rs []PathResult, p Path) PathResult {
	t.Helper()
	for _, r := range rs {
		if r.path == p {
			return r
		}
	}
	t.Fatalf("no result for %s", p.Name())
	return PathResult{}
}

// The added latency pairs each round with the same round of the baseline,
// so a drift common to both (round 3 is slow for everyone) cancels, and the
// warm-up round (discard 1) is left out.
func TestAnalyzeAddedIsPairedByRound(t *testing.T) {
	all := []Series{
		pathSeries(directTCP, 1, 500, 25, 26, 50),
		pathSeries(directUNIX, 1, 500, 18, 19, 43),
		pathSeries(epollTCP, 1, 900, 65, 66, 90),
		pathSeries(epollUNIX, 1, 900, 55, 57, 80),
	}
	rs, chains := Analyze(all, 1, false)
	if chains != nil {
		t.Errorf("chains without --hops: %v", chains)
	}
	e := find(t, rs, epollTCP)
	if e.AddedUs == nil || e.AddedUs.P50 != 40 || e.AddedUs.CI95P50 != [2]float64{40, 40} || e.AddedUs.Baseline != "direct tcp" || e.AddedUs.Pairs != 3 {
		t.Errorf("epoll tcp added %+v", e.AddedUs)
	}
	if e.AddedUs.P99 != 80 {
		t.Errorf("added p99 %v, want 80", e.AddedUs.P99)
	}
	u := find(t, rs, epollUNIX)
	// Differences 37, 38, 37: their median, and with three pairs the
	// interval [min, max], which covers the median 75% of the time.
	if u.AddedUs.Baseline != "direct unix" || u.AddedUs.P50 != 37 {
		t.Errorf("epoll unix added %+v", u.AddedUs)
	}
	if u.AddedUs.CI95P50 != [2]float64{37, 38} || math.Abs(u.AddedUs.CILevel-0.75) > 1e-12 {
		t.Errorf("CI %v at %v, want [37 38] at 0.75", u.AddedUs.CI95P50, u.AddedUs.CILevel)
	}
	d := find(t, rs, directTCP)
	if d.AddedUs.P50 != 0 || d.AddedUs.Baseline != "direct tcp" {
		t.Errorf("direct against itself: %+v", d.AddedUs)
	}
	if !d.Rounds[1].Kept || d.Rounds[0].Kept {
		t.Errorf("rounds %+v", d.Rounds)
	}
	// No histograms: the summary is the mean of the kept rounds.
	if want := (25 + 26 + 50) / 3.0; math.Abs(d.LatencyUs.P50-want) > 1e-9 {
		t.Errorf("direct p50 %v, want %v", d.LatencyUs.P50, want)
	}
}

func TestAnalyzeFailedRoundsArePairedOut(t *testing.T) {
	relay := pathSeries(epollTCP, 1, 60, 65, 70)
	relay.Samples[1] = Sample{Failed: "pingpong: connection refused"}
	rs, _ := Analyze([]Series{pathSeries(directTCP, 1, 20, 25, 30), relay}, 0, false)
	e := find(t, rs, epollTCP)
	if e.Failed != 1 || e.AddedUs.Pairs != 2 || e.AddedUs.P50 != 40 {
		t.Errorf("failed %d, added %+v", e.Failed, e.AddedUs)
	}
}

// A real server with no UNIX socket has no direct unix path: UNIX client
// legs are then measured against direct tcp, and the report says so.
func TestAnalyzeBaselineFallback(t *testing.T) {
	rs, _ := Analyze([]Series{pathSeries(directTCP, 1, 20, 20), pathSeries(epollUNIX, 1, 50, 50)}, 0, false)
	if a := find(t, rs, epollUNIX).AddedUs; a == nil || a.Baseline != "direct tcp" || a.P50 != 30 {
		t.Errorf("added %+v", a)
	}
}

func TestAnalyzeMergesHistograms(t *testing.T) {
	s := pathSeries(directTCP, 1, 1, 1)
	h0, h1 := histogram(10000, 10000, 10000), histogram(30000)
	s.Samples[0].Hist, s.Samples[1].Hist = h0, h1
	rs, _ := Analyze([]Series{s}, 0, false)
	r := rs[0]
	if r.Hist == nil || r.Hist.Count() != 4 {
		t.Fatalf("merged %v", r.Hist)
	}
	if math.Abs(r.LatencyUs.P50-10) > 0.05 || math.Abs(r.LatencyUs.Max-30) > 0.05 {
		t.Errorf("latency %+v from the merged histogram", r.LatencyUs)
	}
}

func TestAnalyzeChains(t *testing.T) {
	chain := func(n int, p50s ...float64) Series {
		return pathSeries(Path{Relay: Epoll, Client: TCP, Upstream: TCP, Hops: n}, 1, p50s...)
	}
	all := []Series{
		pathSeries(directTCP, 1, 25, 27),
		chain(1, 65, 67),
		chain(2, 105, 107),
		chain(3, 145, 147),
	}
	_, chains := Analyze(all, 0, true)
	if len(chains) != 1 {
		t.Fatalf("chains %+v", chains)
	}
	c := chains[0]
	if math.Abs(c.PerHopUs-40) > 1e-9 || math.Abs(c.InterceptUs-26) > 1e-9 || c.R2 < 0.99 || c.Points != 8 {
		t.Errorf("chain %+v", c)
	}
	if len(c.Hops) != 4 || c.Hops[0] != 0 || c.Hops[3] != 3 || c.Relay != Epoll || c.Transport != TCP {
		t.Errorf("chain hops %v", c.Hops)
	}
}

func TestAnalyzeRelayResidence(t *testing.T) {
	relay := pathSeries(epollTCP, 1, 60, 60)
	r := 6.0
	relay.RelayUs = &r
	rs, _ := Analyze([]Series{pathSeries(directTCP, 1, 20, 20), relay}, 0, false)
	e := find(t, rs, epollTCP)
	if e.RelayUs == nil || *e.RelayUs != 6 || e.KernelUs == nil || *e.KernelUs != 34 {
		t.Errorf("relay %v kernel %v", e.RelayUs, e.KernelUs)
	}
}

// A residence longer than the hop (requests queued in the relay, as under
// many connections) leaves the kernel no remainder, and the verdict says
// the hop does not split rather than giving the kernel a negative share.
func TestAnalyzeResidenceLongerThanTheHop(t *testing.T) {
	relay := pathSeries(epollTCP, 128, 60, 60)
	r := 1580.0
	relay.RelayUs = &r
	rs, _ := Analyze([]Series{pathSeries(directTCP, 128, 30, 30), relay}, 0, false)
	e := find(t, rs, epollTCP)
	if e.KernelUs != nil {
		t.Errorf("kernel %v, want none", *e.KernelUs)
	}
	fs := residences(map[Path]PathResult{epollTCP: e})
	if len(fs) != 1 || fs[0].Decomposition != nil || fs[0].KernelUs != nil || fs[0].RelayUs != 1580 {
		t.Errorf("findings %+v, want the residence without a kernel share", fs)
	}
}

// A traced request is one statement; a path whose events are transactions
// of 16 statements has its traced split taken 16 times before it is set
// against the added p50: the relay code as traced, the rest sharing what
// is left.
func TestDecomposeTraceScalesStatements(t *testing.T) {
	direct := PathResult{Trace: &Trace{P50Split: split.Split{Endpoints: 30, Legs: 5}}}
	relay := PathResult{Relay: Epoll, AddedUs: &Added{P50: 680},
		Trace: &Trace{StatementsPerEvent: 16, P50Split: split.Split{RelayUser: 10, RelayKernel: 10, Endpoints: 30, Legs: 15, Runnable: 5}}}
	d, ok := decomposeTrace(relay, &direct)
	if !ok || d.Method != "trace" {
		t.Fatalf("decomposition %+v, %v", d, ok)
	}
	// 16 × 20 relay = 320 as traced; 16 × (10 legs + 5 runnable) = 240
	// share the 360 left of 680.
	if d.RelayCode != 320 || math.Abs(d.Kernel-240) > 1e-9 || math.Abs(d.Wakeups-120) > 1e-9 ||
		math.Abs(d.Residual) > 1e-9 || d.Split == nil || d.Split.NotSplit {
		t.Errorf("decomposition %+v", d)
	}
}

// A hop's idle exits are a part of its wake-ups, shared out as they are,
// by whose CPU left idle; the verdict names them and what removes them.
func TestDecomposeTraceIdleExits(t *testing.T) {
	direct := PathResult{Trace: &Trace{P50Split: split.Split{Endpoints: 10, Legs: 4}}}
	relay := PathResult{Relay: Epoll, AddedUs: &Added{P50: 60},
		Trace: &Trace{P50Split: split.Split{RelayUser: 5, RelayKernel: 5, Endpoints: 10, Legs: 14,
			Runnable: 10, IdleExit: 30, IdleExitRelay: 6}}}
	d, ok := decomposeTrace(relay, &direct)
	if !ok || d.IdleExit == nil {
		t.Fatalf("decomposition %+v, %v: want idle exits", d, ok)
	}
	// 10 relay code as traced; wake-ups 40 and kernel 10 share the 50
	// left: wake-ups 40, of which idle exits 30 (6 the relay's CPU's).
	if math.Abs(d.Wakeups-40) > 1e-9 || math.Abs(d.IdleExit.Relay-6) > 1e-9 || math.Abs(d.IdleExit.Endpoints-24) > 1e-9 {
		t.Errorf("decomposition %+v, idle exits %+v", d, *d.IdleExit)
	}
	relay.Decomposition = &d
	f, ok := idleExits(map[Path]PathResult{epollTCP: relay})
	want := []IdleExitHop{{Relay: Epoll, IdleUs: 30, RelayCPUUs: 6, AddedUs: 60}}
	if !ok || len(f.Hops) != 1 || math.Abs(f.Hops[0].IdleUs-30) > 1e-9 || math.Abs(f.Hops[0].RelayCPUUs-6) > 1e-9 ||
		f.Hops[0].AddedUs != 60 || f.Hops[0].Relay != Epoll || f.MostOnRelay {
		t.Errorf("finding %+v, %v; want %+v, most on the client's and server's CPU", f, ok, want)
	}
	// Mostly the relay's CPU: polling there is the remedy.
	d.IdleExit = &IdleExits{Relay: 24, Endpoints: 6}
	if f, ok := idleExits(map[Path]PathResult{epollTCP: relay}); !ok || !f.MostOnRelay {
		t.Errorf("finding %+v, %v; want most on the relay's CPU", f, ok)
	}
	// Below a fifth of the hop, nothing is found.
	d.IdleExit = &IdleExits{Relay: 5, Endpoints: 6}
	if f, ok := idleExits(map[Path]PathResult{epollTCP: relay}); ok {
		t.Errorf("idle exits 11 of 60 µs: finding %+v, want none", f)
	}
}

// Under many threads a relay path can wait runnable less than its
// baseline: the saving is netted out of the parts that grew, no part is
// below 0, the parts add up to the untraced added p50, and the note names
// the saving. A traced hop far from the untraced one still gives shares.
func TestDecomposeTraceNetsSavings(t *testing.T) {
	direct := PathResult{Trace: &Trace{P50Split: split.Split{Endpoints: 500, Runnable: 400, Legs: 50}}}
	relay := PathResult{Relay: Epoll, AddedUs: &Added{P50: 1450},
		Trace: &Trace{P50Split: split.Split{RelayUser: 200, RelayKernel: 165, Runnable: 90, Legs: 599, Endpoints: 1348}}}
	d, ok := decomposeTrace(relay, &direct)
	if !ok {
		t.Fatal("not decomposed")
	}
	ends := *d.Endpoints
	for name, v := range map[string]float64{"relay code": d.RelayCode, "wake-ups": d.Wakeups, "kernel": d.Kernel, "endpoints": ends, "residual": d.Residual} {
		if v < 0 {
			t.Errorf("%s %.1f < 0: %+v", name, v, d)
		}
	}
	if sum := d.RelayCode + d.Wakeups + d.Kernel + ends + d.Residual; math.Abs(sum-1450) > 1e-6 {
		t.Errorf("parts add up to %.1f, want the added 1450", sum)
	}
	// Grew: relay 365 (as traced), kernel 549, endpoints 848 (sharing the
	// 1085 left); saved: wake-ups 310.
	if d.Wakeups != 0 || d.RelayCode != 365 || math.Abs(d.Kernel-1085*549/1397.0) > 1e-6 || !slices.ContainsFunc(d.Split.Savings, func(v Saving) bool { return v.Part == "wake-ups" && math.Round(v.Us) == 310 }) {
		t.Errorf("decomposition %+v", d)
	}
	relay.AddedUs = &Added{P50: 400}
	if d, _ := decomposeTrace(relay, &direct); d.Split.TracedRatio == 0 || d.RelayCode != 365 {
		t.Errorf("traced hop 3.6× the untraced: %+v", d)
	}
	// The relays' traced time above the untraced hop is the whole hop.
	relay.AddedUs = &Added{P50: 300}
	if d, _ := decomposeTrace(relay, &direct); d.RelayCode != 300 || d.Kernel != 0 || d.Residual != 0 || d.Split.RelayOverUs == 0 {
		t.Errorf("relays' time above the hop: %+v", d)
	}
	// A traced hop with nothing that grew is not split.
	relay.Trace.P50Split = direct.Trace.P50Split
	if d, _ := decomposeTrace(relay, &direct); d.RelayCode != 0 || d.Residual != 300 || !d.Split.NotSplit {
		t.Errorf("no growth: %+v", d)
	}
}

// The tracer's cost is the traced round against the untraced rounds run
// beside it when there are some, else against the kept rounds' median.
func TestAnalyzeOverheadAgainstCompanionRounds(t *testing.T) {
	relay := pathSeries(epollTCP, 1, 50, 50, 50)
	relay.Trace = &Trace{TracedP50Us: 66, UntracedP50Us: 60}
	plain := pathSeries(epollTCP, 1, 50, 50, 50)
	plain.Trace = &Trace{TracedP50Us: 66}
	for _, c := range []struct {
		s    Series
		want float64
	}{{relay, 10}, {plain, 32}} {
		rs, _ := Analyze([]Series{pathSeries(directTCP, 1, 30, 30, 30), c.s}, 0, false)
		if got := find(t, rs, epollTCP).Trace.OverheadPct; math.Abs(got-c.want) > 1e-9 {
			t.Errorf("overhead %.2f%% (untraced beside it %v), want %.0f%%", got, c.s.Trace.UntracedP50Us, c.want)
		}
	}
}

// A traced round that fell in a slower state of the machine than the kept
// rounds (its untraced companions ran a third slower) is set to their
// pace before it is split: its relay code is the kept rounds' machine's,
// and the baseline's is set by its own pace. Pace is reported.
func TestDecomposeTraceAtTheKeptRoundsPace(t *testing.T) {
	direct := pathSeries(directTCP, 1, 20, 20, 20)
	direct.Trace = &Trace{TracedP50Us: 23, UntracedP50Us: 20, P50Split: split.Split{Endpoints: 16, Legs: 4}}
	relay := pathSeries(epollTCP, 1, 60, 60, 60)
	// Every part a third slower than the kept rounds' machine ran it.
	relay.Trace = &Trace{TracedP50Us: 92, UntracedP50Us: 80,
		P50Split: split.Split{RelayUser: 12, RelayKernel: 24, Runnable: 8, Legs: 12, Endpoints: 24}}
	rs, _ := Analyze([]Series{direct, relay}, 0, false)
	Explain(rs, &machine.Machine{})
	p := find(t, rs, epollTCP)
	if math.Abs(p.Trace.Pace-0.75) > 1e-9 || math.Abs(find(t, rs, directTCP).Trace.Pace-1) > 1e-9 {
		t.Fatalf("pace %v, direct's %v; want 0.75 and 1", p.Trace.Pace, find(t, rs, directTCP).Trace.Pace)
	}
	d := p.Decomposition
	if d == nil || d.Method != "trace" {
		t.Fatalf("decomposition %+v", d)
	}
	// 0.75 × 36 of relay time; 0.75 × (8 runnable, 12 legs, 24 ends)
	// less the baseline's (0, 4, 16) share the 13 µs left of 40.
	if math.Abs(d.RelayCode-27) > 1e-9 {
		t.Errorf("relay code %.2f, want 27 (36 traced at pace 0.75): %+v", d.RelayCode, d)
	}
	if sum := d.RelayCode + d.Wakeups + d.Kernel + *d.Endpoints + d.Residual; math.Abs(sum-40) > 1e-9 {
		t.Errorf("parts add up to %.2f, want the added 40", sum)
	}
	// Out of bounds, the pace is not applied.
	relay.Trace.UntracedP50Us = 200
	rs, _ = Analyze([]Series{direct, relay}, 0, false)
	Explain(rs, &machine.Machine{})
	if d := find(t, rs, epollTCP).Decomposition; math.Abs(d.RelayCode-36) > 1e-9 {
		t.Errorf("pace 0.3 applied: relay code %.2f, want 36 as traced", d.RelayCode)
	}
}

// A UNIX leg within the noise, as in a quiet default run on the AMD guest,
// is found and marked not measurable (present says it in the one-screen
// line).
func TestUnixLegSummaryNothingMeasurable(t *testing.T) {
	paths, _ := Analyze([]Series{
		pathSeries(directTCP, 1, 20, 20.1, 19.9, 20.0, 20.2, 19.8),
		pathSeries(directUNIX, 1, 20, 19.9, 20.2, 20.0, 19.8, 20.1),
	}, 1, false)
	got := UnixLegsByRegime(&Report{Paths: paths})
	if len(got) != 1 || len(got[0]) != 1 || got[0][0].Relay != Direct || got[0][0].Measurable {
		t.Errorf("got %+v, want direct's UNIX leg, not measurable", got)
	}
}
