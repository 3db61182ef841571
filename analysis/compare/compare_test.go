package compare

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/series"
)

// path is a path result with the given kept round p50s (one discarded
// round before them) and, for a relay path, the added p50 as hop computes
// it from baseline's rounds.
func path(name string, relay hop.Relay, client hop.Transport, p50s []float64, baseline *hop.PathResult) hop.PathResult {
	p := hop.PathResult{Name: name, Relay: relay, ClientTransport: client, UpstreamTransport: hop.TCP, Threads: 1, Regime: "packed",
		Placement: map[string]string{"client": "0", "server": "0"}, Stable: true, RoundsP50Us: p50s}
	p.Rounds = append(p.Rounds, hop.Round{Index: 0, Kept: false, P50: 999})
	for i, v := range p50s {
		p.Rounds = append(p.Rounds, hop.Round{Index: i + 1, Kept: true, P50: v})
	}
	if baseline != nil {
		var diffs []float64
		for i, v := range p50s {
			diffs = append(diffs, v-baseline.RoundsP50Us[i])
		}
		s := series.Analyze(diffs, 0)
		p.AddedUs = &hop.Added{Baseline: baseline.Name, P50: s.Median, Pairs: len(diffs)}
	}
	return p
}

// run is a report of a direct TCP path and an epoll hop in front of it,
// each round's p50 shifted by shift (direct) and hop (what the relay adds).
func run(name string, base []float64, shift, hopUs float64) Run {
	d := make([]float64, len(base))
	e := make([]float64, len(base))
	for i, v := range base {
		d[i] = v + shift
		e[i] = v + shift + hopUs + float64(i%3)
	}
	direct := path("direct tcp", hop.Direct, hop.TCP, d, nil)
	direct.AddedUs = &hop.Added{Baseline: "direct tcp"}
	epoll := path("epoll tcp->tcp", hop.Epoll, hop.TCP, e, &direct)
	rep := &hop.Report{Schema: hop.Schema, Env: affinity.Env{CPUModel: "AMD EPYC", Cores: 2, GOMAXPROCS: 2, Kernel: "6.1"},
		Config: hop.ReportConfig{Backend: "embedded", Proto: "mysql", Threads: []int{1}}, Paths: []hop.PathResult{direct, epoll}}
	return Run{Name: name, Report: rep}
}

var rounds = []float64{20, 22, 21, 23, 20.5, 22.5, 21.5, 20.8}

func TestSameRunsAreNotSignificant(t *testing.T) {
	c, err := Compare([]Run{run("a", rounds, 0, 30), run("b", rounds, 0, 30)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 2 {
		t.Fatalf("%d rows", len(c.Rows))
	}
	for _, r := range c.Rows {
		if r.Significant || r.PValue < 0.5 || r.DeltaPct != 0 || r.NOld != 8 || r.NNew != 8 {
			t.Errorf("%s: %+v", r.Name, r)
		}
	}
}

// A server 20 µs slower (a workload that differs, so no direct path is
// a control) moves both paths' round trips, significantly, and leaves
// what the hop adds where it was.
func TestShiftIsSignificantAddedIsNot(t *testing.T) {
	slower := run("b", rounds, 20, 30)
	slower.Report.Config.ServiceTimesUs = []float64{20}
	c, err := Compare([]Run{run("a", rounds, 0, 30), slower}, Options{AllowDifferent: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range c.Rows {
		if !r.Significant || r.PValue > 0.001 || math.Abs(r.NewP50Us-r.OldP50Us-20) > 1e-9 {
			t.Errorf("%s: p %v, %v -> %v", r.Name, r.PValue, r.OldP50Us, r.NewP50Us)
		}
	}
	e := c.Rows[1]
	if e.OldAddedP50Us == nil || *e.OldAddedP50Us != *e.NewAddedP50Us || *e.AddedSignificant || *e.AddedDeltaPct != 0 {
		t.Errorf("added: %+v", e)
	}
	// The hop itself 10 µs dearer: its added p50 moves, significantly.
	c, _ = Compare([]Run{run("a", rounds, 0, 30), run("b", rounds, 0, 40)}, Options{})
	if e := c.Rows[1]; !*e.AddedSignificant || math.Abs(*e.NewAddedP50Us-*e.OldAddedP50Us-10) > 1e-9 {
		t.Errorf("dearer hop: %+v", e)
	}
	if c.Rows[0].Significant {
		t.Errorf("direct path unchanged, yet significant: %+v", c.Rows[0])
	}
}

func TestDifferentRunsAreRefused(t *testing.T) {
	b := run("b", rounds, 0, 30)
	b.Report.Env.CPUModel = "Intel Xeon"
	b.Report.Config.ServiceTimesUs = []float64{20}
	b.Report.Paths[1].Placement = map[string]string{"client": "0", "relay": "1", "server": "0"}
	c, err := Compare([]Run{run("a", rounds, 0, 30), b}, Options{})
	if !errors.Is(err, ErrDifferent) || len(c.Rows) != 0 {
		t.Fatalf("err %v, %d rows", err, len(c.Rows))
	}
	var fields []string
	for _, d := range c.Differences {
		fields = append(fields, d.Kind+" "+d.Field)
	}
	want := "machine env.cpu_model,workload config.service_times_us,placement placement of epoll tcp->tcp packed"
	if strings.Join(fields, ",") != want {
		t.Errorf("differences %v, want %s", fields, want)
	}
	c, err = Compare([]Run{run("a", rounds, 0, 30), b}, Options{AllowDifferent: true})
	if err != nil || len(c.Rows) != 2 || len(c.Differences) != 3 {
		t.Fatalf("allowed: %v, %d rows, %d differences", err, len(c.Rows), len(c.Differences))
	}
}

func TestUnmatchedAndFewRounds(t *testing.T) {
	b := run("b", rounds[:3], 0, 30)
	b.Report.Paths = append(b.Report.Paths, path("socat tcp->tcp", hop.Socat, hop.TCP, rounds[:3], nil))
	c, err := Compare([]Run{run("a", rounds[:3], 0, 30), b}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Alone) != 1 || c.Alone[0] != (Alone{Label: "socat tcp->tcp packed", Run: "b"}) {
		t.Errorf("unmatched %v", c.Alone)
	}
	if len(c.Rows[0].Warnings) == 0 {
		t.Errorf("3 rounds a side: no warning that U cannot reach alpha")
	}
	// A shift the test cannot see with 3 rounds a side is "~".
	c, _ = Compare([]Run{run("a", rounds[:3], 0, 30), run("b", rounds[:3], 50, 30)}, Options{})
	if c.Rows[0].Significant {
		t.Errorf("3 rounds a side significant at 0.05: p %v", c.Rows[0].PValue)
	}
}

// The JSON carries the names DESIGN.md gives hoplat.compare.v1, and no
// added fields on a direct path.
func TestJSONFields(t *testing.T) {
	c, _ := Compare([]Run{run("a", rounds, 0, 30), run("b", rounds, 5, 30)}, Options{Alpha: 0.01})
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Schema      string           `json:"schema"`
		Rows        []map[string]any `json:"rows"`
		Differences []any            `json:"differences"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Schema != "hoplat.compare.v1" || doc.Differences == nil {
		t.Errorf("schema %q, differences %v", doc.Schema, doc.Differences)
	}
	for _, k := range []string{"name", "regime", "old_p50_us", "new_p50_us", "delta_pct", "p_value", "significant", "n_old", "n_new"} {
		for _, r := range doc.Rows {
			if _, ok := r[k]; !ok {
				t.Errorf("row %v lacks %s", r["name"], k)
			}
		}
	}
	for _, k := range []string{"old_added_p50_us", "new_added_p50_us", "added_delta_pct", "added_significant"} {
		if _, ok := doc.Rows[0][k]; ok {
			t.Errorf("direct row has %s", k)
		}
		if _, ok := doc.Rows[1][k]; !ok {
			t.Errorf("relay row lacks %s", k)
		}
	}
}

func TestAlphaChecked(t *testing.T) {
	for _, a := range []float64{-1, 1, 2} {
		if _, err := Compare([]Run{run("a", rounds, 0, 30), run("b", rounds, 0, 30)}, Options{Alpha: a}); err == nil {
			t.Errorf("alpha %v accepted", a)
		}
	}
	if _, err := Compare([]Run{run("a", rounds, 0, 30)}, Options{}); err == nil {
		t.Error("one run accepted")
	}
}

// tight are round p50s close enough that a shift of a microsecond
// separates two runs completely: the U test alone calls it at p 0.0002.
var tight = []float64{20, 20.1, 20.2, 20.05, 20.15, 20.12, 20.08, 20.18}

// Three runs of one configuration, the machine a little faster or
// slower in each: the direct path (the control) moved by X% between two
// runs and the relay path by less, so no row is significant, though the
// U test alone finds every such separation.
func TestThreeRunsOfOneConfigurationPairwise(t *testing.T) {
	runs := []Run{run("a", tight, 0, 30), run("b", tight, 1, 30), run("c", tight, -0.6, 30)}
	uAlone := 0
	for i := range runs {
		for j := i + 1; j < len(runs); j++ {
			c, err := Compare([]Run{runs[i], runs[j]}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			control := c.Rows[0]
			for _, r := range c.Rows {
				uAlone += btoi(r.PValue <= c.Alpha)
				if r.Significant || r.AddedSignificant != nil && *r.AddedSignificant {
					t.Errorf("%s against %s: %s significant: %+v", runs[j].Name, runs[i].Name, r.Name, r)
				}
				// One run a side: the control's move or the floor, the larger.
				want, from := math.Abs(control.DeltaPct), NoiseSource{Kind: NoiseControl, Of: "direct tcp packed", Pct: math.Abs(control.DeltaPct)}
				floor := float64(SingleRunFloorPct)
				if r.Name != "direct tcp" {
					floor = SingleRunHopFloorPct
				}
				if want < floor {
					want, from = floor, NoiseSource{Kind: NoiseFloor, Pct: floor, Hop: r.Name != "direct tcp"}
				}
				if math.Abs(r.NoisePct-want) > 1e-9 || r.Noise != from {
					t.Errorf("%s: noise %.2f%% from %+v, want %.2f%% from %+v", r.Name, r.NoisePct, r.Noise, want, from)
				}
				if r.Name != "direct tcp" && math.Abs(r.DeltaPct) >= r.NoisePct {
					t.Errorf("%s moved %.2f%%, not less than the control's %.2f%%: the fixture is wrong", r.Name, r.DeltaPct, r.NoisePct)
				}
			}
		}
	}
	if uAlone < 3 {
		t.Errorf("the U test alone calls %d rows: the fixture does not show the rule at work", uAlone)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A hop 10 µs dearer is called through the noise the control measured.
func TestChangeBeyondTheNoise(t *testing.T) {
	c, err := Compare([]Run{run("a", tight, 0, 30), run("b", tight, 0.3, 40)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, e := c.Rows[0], c.Rows[1]
	if d.Significant || d.NoisePct < 1 {
		t.Errorf("direct: %+v", d)
	}
	if !e.Significant || !*e.AddedSignificant || *e.AddedNoisePct != SingleRunHopFloorPct {
		t.Errorf("epoll 10 µs dearer, noise %.1f%%: %+v", d.NoisePct, e)
	}
}

// pace: a direct path whose kept rounds ran 18% slower than the untraced
// rounds around its traced one holds every row of its regime to 18%.
func TestPaceIsNoise(t *testing.T) {
	a, b := run("a", tight, 0, 30), run("b", tight, 0, 33)
	b.Report.Paths[0].Trace = &hop.Trace{Pace: 1.18}
	c, err := Compare([]Run{a, b}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := c.Rows[1]
	if math.Abs(e.NoisePct-18) > 1e-9 || e.Noise != (NoiseSource{Kind: NoisePace, Of: "direct tcp packed", Run: "b", Pace: 1.18}) {
		t.Errorf("noise %v from %+v", e.NoisePct, e.Noise)
	}
	if e.PValue > c.Alpha || e.Significant || *e.AddedSignificant {
		t.Errorf("epoll %.1f%% slower (added %.1f%%), inside 18%%: %+v", e.DeltaPct, *e.AddedDeltaPct, e)
	}
	// Runs that differ leave pace as the only measure.
	b.Report.Config.Nice = 5
	c, _ = Compare([]Run{a, b}, Options{AllowDifferent: true})
	if e := c.Rows[1]; e.Noise != (NoiseSource{Kind: NoisePace, Of: "direct tcp packed", Run: "b", Pace: 1.18}) {
		t.Errorf("differing runs: noise from %+v", e.Noise)
	}
	b.Report.Paths[0].Trace = nil
	c, _ = Compare([]Run{a, b}, Options{AllowDifferent: true})
	// Untraced, the floor of one run a side stands alone: the epoll path
	// 5.9% slower is inside it.
	if e := c.Rows[1]; e.Noise.Kind != NoiseFloor || e.NoisePct != SingleRunHopFloorPct || e.Significant {
		t.Errorf("differing runs, untraced: %+v", e)
	}
}

// withPeer is r with a HAProxy hop beside its epoll one, hopUs dearer
// than the direct path in every round.
func withPeer(r Run, hopUs float64) Run {
	direct := r.Report.Paths[0]
	p50s := make([]float64, len(direct.RoundsP50Us))
	for i, v := range direct.RoundsP50Us {
		p50s[i] = v + hopUs + float64(i%2)
	}
	r.Report.Paths = append(r.Report.Paths, path("haproxy tcp->tcp", hop.HAProxy, hop.TCP, p50s, &direct))
	return r
}

// The outside relays are controls for every hop of their regime: with
// HAProxy's hop 18.4% dearer in the new run and the direct path unmoved,
// an epoll hop 16% dearer is the machine, and HAProxy's own row too;
// 32% dearer is called. Between runs that differ, HAProxy is no control.
func TestPeersAreControls(t *testing.T) {
	old := withPeer(run("a", tight, 0, 30), 30)
	for _, c := range []struct {
		epoll  float64
		called bool
	}{{35, false}, {40, true}} {
		nw := withPeer(run("b", tight, 0, c.epoll), 35.5)
		cmp, err := Compare([]Run{old, nw}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		e, h := cmp.Rows[1], cmp.Rows[2]
		if e.AddedPValue == nil || *e.AddedPValue > cmp.Alpha || h.PValue > cmp.Alpha {
			t.Fatalf("the U test alone does not call epoll %+.1f%% or haproxy %+.1f%%: the fixture is wrong", *e.AddedDeltaPct, *h.AddedDeltaPct)
		}
		if *e.AddedSignificant != c.called || (e.Noise.Kind != NoisePeer || e.Noise.Of != "haproxy tcp->tcp packed" || math.Floor(e.Noise.Pct) != 18) {
			t.Errorf("epoll %+.1f%%: called %v, want %v; noise %.1f%% from %+v", *e.AddedDeltaPct, *e.AddedSignificant, c.called, *e.AddedNoisePct, e.Noise)
		}
		if h.Significant || *h.AddedSignificant {
			t.Errorf("haproxy, the same program in both runs, called: %+v", h)
		}
	}
	nw := withPeer(run("b", tight, 0, 35), 35.5)
	nw.Report.Config.Nice = 5
	cmp, err := Compare([]Run{old, nw}, Options{AllowDifferent: true})
	if err != nil {
		t.Fatal(err)
	}
	if e := cmp.Rows[1]; e.Noise.Kind == NoisePeer || e.NoisePct != SingleRunHopFloorPct {
		t.Errorf("runs that differ: noise %.1f%% from %+v, want the floor alone", e.NoisePct, e.Noise)
	}
}

// Repeated runs a side (OLD1 OLD2 -- NEW1 NEW2): the rounds pooled, and
// the row held to how far a side's runs lie apart.
func TestRepeatedRuns(t *testing.T) {
	old := []Run{run("a1", tight, 0, 30), run("a2", tight, 1.5, 30)}
	same := []Run{run("b1", tight, 0.5, 30), run("b2", tight, 1, 30)}
	c, err := CompareRepeated(old, same, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Old != "a1 + a2" || len(c.New) != 1 || c.New[0] != "b1 + b2" || len(c.Rows) != 2 {
		t.Fatalf("sides %q %q, %d rows", c.Old, c.New, len(c.Rows))
	}
	for _, r := range c.Rows {
		if r.NOld != 16 || r.NNew != 16 || r.Significant {
			t.Errorf("%s: %+v", r.Name, r)
		}
	}
	if d := c.Rows[0]; (d.Noise.Kind != NoiseRepeated || d.Noise.Runs != 2 || d.Noise.Of != "a1 + a2") || d.NoisePct < 7 {
		t.Errorf("direct: noise %.1f%% from %+v", d.NoisePct, d.Noise)
	}
	dearer := []Run{run("b1", tight, 0.5, 45), run("b2", tight, 1, 45)}
	c, _ = CompareRepeated(old, dearer, Options{})
	if e := c.Rows[1]; !e.Significant || !*e.AddedSignificant {
		t.Errorf("15 µs dearer: %+v", e)
	}
}

// A side with failed rounds, errors or an unstable path is named on its
// row, and no change is called there unless allowed.
func TestDegradedSideIsNamed(t *testing.T) {
	bad := run("b", tight, 0, 40)
	e := &bad.Report.Paths[1]
	e.Failed, e.Stable, e.UnstableReason = 1, false, "round p50s 61, 62, 90 µs: two clusters"
	e.Rounds[3].Failed = "pingpong: exit status 1\nstderr: ..."
	bad.Report.Paths[0].Errors = 3
	c, err := Compare([]Run{run("a", tight, 0, 30), bad}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]Degraded{
		{{Side: "new", Trouble: Trouble{Kind: TroubleErrors, N: 3}}},
		{{Side: "new", Trouble: Trouble{Kind: TroubleFailed, N: 1, Round: 3, InRound: true, Text: "pingpong: exit status 1\nstderr: ..."}},
			{Side: "new", Trouble: Trouble{Kind: TroubleUnstable, Text: "round p50s 61, 62, 90 µs: two clusters"}}},
	}
	for i, r := range c.Rows {
		if !slices.Equal(r.Degraded, want[i]) {
			t.Errorf("%s: degraded %v, want %v", r.Name, r.Degraded, want[i])
		}
	}
	if e := c.Rows[1]; e.PValue > c.Alpha || e.Significant || *e.AddedSignificant {
		t.Errorf("degraded row called: %+v", e)
	}
	c, _ = Compare([]Run{run("a", tight, 0, 30), bad}, Options{AllowDegraded: true})
	if e := c.Rows[1]; !e.Significant || !*e.AddedSignificant || len(e.Degraded) != 2 {
		t.Errorf("--allow-degraded: %+v", e)
	}
}

// --within: two paths of one run, in the same table, held to no noise.
func TestWithin(t *testing.T) {
	a := run("a.json", tight, 0, 30)
	c, err := Within(a, "direct tcp", "epoll tcp->tcp", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 1 || c.Within != "a.json" || c.Method == nil || !c.Method.Within {
		t.Fatalf("%+v", c)
	}
	r := c.Rows[0]
	if r.Name != "direct tcp vs epoll tcp->tcp" || !r.Significant || r.NoisePct != 0 || r.OldAddedP50Us != nil {
		t.Errorf("%+v", r)
	}
	// Named with the regime, as a run of several regimes names them.
	if c, err := Within(a, "direct tcp packed", "epoll tcp->tcp", Options{}); err == nil {
		t.Errorf("a name the run lacks: %+v", c.Rows)
	}
	if _, err := Within(a, "direct tcp", "splice tcp->tcp", Options{}); err == nil || !strings.Contains(err.Error(), `"splice tcp->tcp"`) {
		t.Errorf("no such path: %v", err)
	}
}

// A folder, as hopbench --out writes one, is read by its report.json.
func TestLoadFolder(t *testing.T) {
	dir := t.TempDir()
	b, err := json.Marshal(run("a", tight, 0, 30).Report)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Load(dir)
	if err != nil || r.Name != filepath.Join(dir, "report.json") || len(r.Report.Paths) != 2 {
		t.Fatalf("%v, %q", err, r.Name)
	}
	if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "report.json") {
		t.Errorf("empty folder: %v", err)
	}
}

// One run a side, direct unmoved: a relay path 2.5 µs slower in every
// round (about 5% of its p50, 8% of its added p50, which the U test
// alone calls) stays inside the floor of one run a side for its p50;
// 9 µs slower (about 18%) is called. Two runs a side
// measure the noise instead, and the floor goes.
func TestSingleRunFloor(t *testing.T) {
	for _, c := range []struct {
		hop    float64
		called bool
	}{{32.5, false}, {39, true}} {
		cmp, err := Compare([]Run{run("a", tight, 0, 30), run("b", tight, 0, c.hop)}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		e := cmp.Rows[1]
		if e.PValue > cmp.Alpha {
			t.Fatalf("epoll %+.1f%%: p %.3f, the U test alone does not call it: the fixture is wrong", e.DeltaPct, e.PValue)
		}
		if e.Significant != c.called || e.NoisePct != SingleRunHopFloorPct || e.Noise.Kind != NoiseFloor {
			t.Errorf("epoll %+.1f%%: called %v, want %v; noise %.1f%% from %+v", e.DeltaPct, e.Significant, c.called, e.NoisePct, e.Noise)
		}
	}
	rep, err := CompareRepeated([]Run{run("a1", tight, 0, 30), run("a2", tight, 0, 30)}, []Run{run("b1", tight, 0, 31), run("b2", tight, 0, 31)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if e := rep.Rows[1]; e.Noise.Kind == NoiseFloor {
		t.Errorf("two runs a side held to the floor of one: %+v", e)
	}
}
