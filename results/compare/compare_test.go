package compare

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/results/hop"
	"github.com/hoplat/hoplat/results/stats/series"
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

// A server 20 µs slower moves both paths' round trips, significantly,
// and leaves what the hop adds where it was.
func TestShiftIsSignificantAddedIsNot(t *testing.T) {
	c, err := Compare([]Run{run("a", rounds, 0, 30), run("b", rounds, 20, 30)}, Options{})
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
	if len(c.Unmatched) != 1 || c.Unmatched[0] != "socat tcp->tcp packed only in b" {
		t.Errorf("unmatched %v", c.Unmatched)
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
