package present

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/analysis/compare"
	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/series"
)

// comparedRun is a report of a direct TCP path and an epoll hop in front
// of it, one discarded round then each kept round's p50 shifted by shift
// (direct) and hopUs (what the relay adds), as compare's own tests build.
func comparedRun(name string, shift, hopUs float64) compare.Run {
	base := []float64{20, 22, 21, 23, 20.5, 22.5, 21.5, 20.8}
	mk := func(name string, relay hop.Relay, p50s []float64) hop.PathResult {
		p := hop.PathResult{Name: name, Relay: relay, ClientTransport: hop.TCP, UpstreamTransport: hop.TCP, Threads: 1, Regime: "packed",
			Placement: map[string]string{"client": "0", "server": "0"}, Stable: true, RoundsP50Us: p50s}
		p.Rounds = append(p.Rounds, hop.Round{Index: 0, Kept: false, P50: 999})
		for i, v := range p50s {
			p.Rounds = append(p.Rounds, hop.Round{Index: i + 1, Kept: true, P50: v})
		}
		return p
	}
	d, e, diffs := make([]float64, len(base)), make([]float64, len(base)), make([]float64, len(base))
	for i, v := range base {
		d[i] = v + shift
		e[i] = v + shift + hopUs + float64(i%3)
		diffs[i] = e[i] - d[i]
	}
	direct := mk("direct tcp", hop.Direct, d)
	direct.AddedUs = &hop.Added{Baseline: "direct tcp"}
	epoll := mk("epoll tcp->tcp", hop.Epoll, e)
	epoll.AddedUs = &hop.Added{Baseline: direct.Name, P50: series.Analyze(diffs, 0).Median, Pairs: len(diffs)}
	rep := &hop.Report{Schema: hop.Schema, Env: affinity.Env{CPUModel: "AMD EPYC", Cores: 2, GOMAXPROCS: 2, Kernel: "6.1"},
		Config: hop.ReportConfig{Backend: "embedded", Proto: "mysql", Threads: []int{1}}, Paths: []hop.PathResult{direct, epoll}}
	return compare.Run{Name: name, Report: rep}
}

func comparison(t *testing.T, opts compare.Options, runs ...compare.Run) string {
	t.Helper()
	c, err := compare.Compare(runs, opts)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteComparison(&b, c); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A run against an equal one: "~" on every row, within 100 columns.
func TestWriteComparisonSameRuns(t *testing.T) {
	out := comparison(t, compare.Options{}, comparedRun("a", 0, 30), comparedRun("b", 0, 30))
	rows := 0
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "direct tcp") || strings.HasPrefix(strings.TrimSpace(l), "epoll") {
			rows++
			if !strings.Contains(l, " ~ ") && !strings.HasSuffix(l, " ~") {
				t.Errorf("no ~ in %q", l)
			}
		}
		if len([]rune(l)) > 100 {
			t.Errorf("wider than 100 columns: %q", l)
		}
	}
	if rows != 2 {
		t.Errorf("%d path rows, want 2:\n%s", rows, out)
	}
}

// The text says when the machine moved (a direct path moved with nothing
// recorded changed) and what that does to the added columns.
func TestWriteComparisonNamesTheMachine(t *testing.T) {
	// A server 20 µs slower: direct moved, the hop held.
	out := comparison(t, compare.Options{}, comparedRun("a", 0, 30), comparedRun("b", 20, 30))
	if !strings.Contains(out, "something outside the runs did") || !strings.Contains(out, "cancel it") {
		t.Errorf("direct path moved, the hop held, no word of the machine or of the added columns:\n%s", out)
	}
	// The machine slower throughout the second run: direct and the hop
	// both moved (two invocations on the 2-vCPU AMD guest: direct tcp
	// 27.4 -> 20.6 µs, epoll's added p50 49.5 -> 35.8). The added
	// columns cancel nothing then, and the text must not say they do.
	out = comparison(t, compare.Options{}, comparedRun("a", 0, 30), comparedRun("b", 7, 50))
	if !strings.Contains(out, "something outside the runs did") || strings.Contains(out, "cancel it") || !strings.Contains(out, "neither column compares") {
		t.Errorf("direct and hop both moved:\n%s", out)
	}
	// The hop itself 10 µs dearer, direct unchanged: the machine did not move.
	out = comparison(t, compare.Options{}, comparedRun("a", 0, 30), comparedRun("b", 0, 40))
	if strings.Contains(out, "something outside the runs did") {
		t.Errorf("direct path unchanged, yet the machine is said to have moved:\n%s", out)
	}
}

// Runs that differ, compared as allowed: the differences come first.
func TestWriteComparisonDifferencesFirst(t *testing.T) {
	b := comparedRun("b", 0, 30)
	b.Report.Env.CPUModel = "Intel Xeon"
	b.Report.Config.ServiceTimesUs = []float64{20}
	b.Report.Paths[1].Placement = map[string]string{"client": "0", "relay": "1", "server": "0"}
	out := comparison(t, compare.Options{AllowDifferent: true}, comparedRun("a", 0, 30), b)
	if !strings.HasPrefix(out, "the runs differ (3):\n  machine env.cpu_model: AMD EPYC -> Intel Xeon (b)") {
		t.Errorf("differences not first:\n%s", out)
	}
}

// A degraded side is marked on its row and named under the table, a line
// per side and reason; no change is called there.
func TestWriteComparisonNamesDegradedSides(t *testing.T) {
	bad := comparedRun("b", 0, 60)
	e := &bad.Report.Paths[1]
	e.Failed, e.Stable, e.UnstableReason = 2, false, "round p50s 80, 81, 130 µs: two clusters"
	out := comparison(t, compare.Options{}, comparedRun("a", 0, 30), bad)
	row := lineOf(out, "epoll tcp->tcp")
	if !strings.HasPrefix(row, "! ") || strings.Count(row, "~") != 2 {
		t.Errorf("degraded row not marked, or a change called on it: %q\n%s", row, out)
	}
	for _, want := range []string{"! epoll tcp->tcp: new: 2 failed rounds\n",
		"! epoll tcp->tcp: new: unstable: round p50s 80, 81, 130 µs: two clusters\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.HasPrefix(lineOf(out, "direct tcp"), "!") {
		t.Errorf("clean row marked:\n%s", out)
	}
	out = comparison(t, compare.Options{AllowDegraded: true}, comparedRun("a", 0, 30), bad)
	if row := lineOf(out, "epoll tcp->tcp"); !strings.HasPrefix(row, "! ") || strings.Contains(row, "~") {
		t.Errorf("--allow-degraded: %q", row)
	}
}

// lineOf is the table row of the path name, its mark kept.
func lineOf(text, name string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, " !"), name+" ") {
			return l
		}
	}
	return ""
}

// --within prints the same table, and says why no noise holds it.
func TestWriteComparisonWithin(t *testing.T) {
	c, err := compare.Within(comparedRun("a.json", 0, 30), "direct tcp", "epoll tcp->tcp", compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteComparison(&b, c); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "two paths of one run, a.json") || !strings.Contains(lineOf(out, "direct tcp vs epoll tcp->tcp"), "0.0%") {
		t.Errorf("within:\n%s", out)
	}
}
