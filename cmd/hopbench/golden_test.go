package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/analysis/compare"
	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/internal/golden"
	"github.com/hoplat/hoplat/present"
	"github.com/hoplat/hoplat/present/page"
	"github.com/hoplat/hoplat/probe/machine"
	"github.com/hoplat/hoplat/stats"
)

// The outputs of a run, pinned byte for byte: every format hopbench prints
// (JSON, text, --verbose and --wide text, CSV), report.html, the files of --out (by
// digest: plots and .hgrm included) and compare's text, JSON and page.
// The inputs are fixed: three real runs' reports (testdata/golden/in-*.json,
// as hopbench --out wrote them) and a synthetic run that goes through the
// analysis (Analyze, Explain, Verdicts) too. A change to any of these files
// is a change of the outputs, to be reviewed as such.

// goldenRuns are the fixed runs by name.
func goldenRuns(t *testing.T) map[string]*hop.Report {
	t.Helper()
	runs := map[string]*hop.Report{"synthetic": syntheticRun()}
	for _, name := range []string{"run", "sweep", "chain"} {
		b, err := os.ReadFile(filepath.Join("testdata", "golden", "in-"+name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var r hop.Report
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		runs[name] = &r
	}
	return runs
}

// syntheticRun is a run of direct, goroutine and epoll paths over both
// client transports, five rounds each (the first discarded), with
// histograms, a probe's machine and placements, analysed as the driver
// does.
func syntheticRun() *hop.Report {
	hist := func(seed, base int64) *stats.Histogram {
		h := stats.NewHistogram()
		x := uint64(seed)
		for range 2000 {
			x = x*6364136223846793005 + 1442695040888963407
			v := base + int64((x>>33)%uint64(base/3))
			if (x>>20)%100 == 0 {
				v *= 4
			}
			h.Record(v)
		}
		return h
	}
	type spec struct {
		path hop.Path
		p50s []float64
	}
	specs := []spec{
		{hop.DirectPath(hop.TCP), []float64{30, 25, 26, 24, 25}},
		{hop.DirectPath(hop.UNIX), []float64{22, 18, 19, 17, 18}},
		{hop.Path{Relay: hop.Goroutine, Client: hop.TCP, Upstream: hop.TCP, Hops: 1}, []float64{80, 70, 72, 69, 71}},
		{hop.Path{Relay: hop.Goroutine, Client: hop.UNIX, Upstream: hop.TCP, Hops: 1}, []float64{66, 60, 61, 59, 62}},
		{hop.Path{Relay: hop.Epoll, Client: hop.TCP, Upstream: hop.TCP, Hops: 1}, []float64{70, 62, 63, 61, 62}},
		{hop.Path{Relay: hop.Epoll, Client: hop.UNIX, Upstream: hop.TCP, Hops: 1}, []float64{60, 52, 54, 51, 53}},
	}
	var all []hop.Series
	for i, sp := range specs {
		s := hop.Series{Setting: hop.Setting{Threads: 1, Regime: "packed"}, Path: sp.path,
			Placement: map[string]string{"client": "0", "server": "0"}}
		if sp.path.Relay != hop.Direct {
			s.Placement["relay"] = "0"
			relay, cpu := 9.5+float64(i), 11.0+float64(i)
			s.RelayUs, s.RelayCPUUs = &relay, &cpu
		}
		for r, p50 := range sp.p50s {
			h := hist(int64(10*i+r+1), int64(p50*1000*0.9))
			l := stats.LatencyOf(h)
			l.P50 = p50
			s.Samples = append(s.Samples, hop.Sample{Latency: l, TPS: 1e6 / p50, Hist: h,
				Pinning: map[string]string{"pingpong": "0"}, CPUs: "0", CPU: time.Duration(200+i) * time.Millisecond})
		}
		all = append(all, s)
	}
	paths, chains := hop.Analyze(all, 1, false)
	m := &machine.Machine{
		Wake: machine.WakeUS{SameCPU: 4.5, CrossCPU: 8}, Leg: machine.LegUS{TCP: 6, UNIX: 3},
		CPUIdle: machine.CPUIdle{Governor: "haltpoll", Driver: "haltpoll"}, Virtualization: "kvm",
		StealPct: 0.4, CPUs: []int{0, 1}, CrossRelation: "other-core",
		Figures: []machine.Figure{machine.NewFigure("pipe same-cpu", "0", []float64{4.4, 4.5, 4.6, 4.5}, 4000)},
	}
	hop.Explain(paths, m)
	r := &hop.Report{
		Schema: hop.Schema,
		Config: hop.ReportConfig{Backend: "embedded", Proto: "echo", Paths: []string{"direct", "goroutine", "epoll"},
			Threads: []int{1}, TimeS: 1, Rounds: 5, Discard: 1},
		Env: affinity.Env{Hostname: "bench1", OS: "linux", Arch: "amd64", Kernel: "6.8.0-45-generic",
			CPUModel: "Intel(R) Xeon(R) CPU @ 2.20GHz", Cores: 2, GOMAXPROCS: 2, GoVersion: "go1.26.0",
			ClockSource: "tsc", Pinning: map[string]string{"pingpong": "0", "pongd": "0"}},
		Machine:     m,
		Paths:       paths,
		Chains:      chains,
		Skipped:     []hop.Skip{{Path: "socat tcp->tcp", Reason: "driver: socat not found next to hopbench or on PATH"}},
		CommandLine: []string{"hopbench", "--paths", "direct,goroutine,epoll", "--runs", "5", "--discard", "1"},
		Version:     "v0.0.0-golden",
	}
	r.Verdicts = present.Verdicts(r)
	return r
}

func TestGoldenOutputs(t *testing.T) {
	runs := goldenRuns(t)
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range runs {
			if !yield(n) {
				return
			}
		}
	})
	for _, name := range names {
		rep := runs[name]
		t.Run(name, func(t *testing.T) {
			// txt is --verbose's text (the default's before the one-screen
			// report), brief.txt the default's.
			for _, c := range []struct {
				ext, format string
				style       present.TextStyle
			}{
				{"json", "json", present.Brief},
				{"txt", "text", present.Full},
				{"brief.txt", "text", present.Brief},
				{"wide.txt", "text", present.Wide},
				{"csv", "csv", present.Brief},
			} {
				var b bytes.Buffer
				if err := present.Write(&b, c.format, c.style, rep); err != nil {
					t.Fatalf("%s: %v", c.ext, err)
				}
				golden.Check(t, filepath.Join("golden", name+"."+c.ext), b.Bytes())
			}
			var doc bytes.Buffer
			if err := page.Write(&doc, rep); err != nil {
				t.Fatal(err)
			}
			checkPage(t, name, doc.Bytes())

			dir := t.TempDir()
			if err := present.WriteFiles(dir, rep); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("golden", name+".out.sha256"), digests(t, dir))
		})
	}
}

// headTitle is the title golden/head.html is rendered with.
const headTitle = "TITLE"

// TestGoldenHead pins the head every page opens with, once: checkPage holds
// each page's own head to what page.Head renders for its title.
func TestGoldenHead(t *testing.T) {
	var b bytes.Buffer
	if err := page.Head(&b, headTitle); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("golden", "head.html"), b.Bytes())
}

// checkPage holds a page to the golden files without storing its head
// again: the page must open with the head page.Head renders for the page's
// own title (pinned by TestGoldenHead), and its title element and the body
// after the head are held to golden/name.html.
func checkPage(t *testing.T, name string, doc []byte) {
	t.Helper()
	_, rest, ok := bytes.Cut(doc, []byte("<title>"))
	elem, _, ok2 := bytes.Cut(rest, []byte("</title>"))
	if !ok || !ok2 {
		t.Fatalf("%s: the page has no title element:\n%s", name, doc)
	}
	var head bytes.Buffer
	if err := page.Head(&head, html.UnescapeString(string(elem))); err != nil {
		t.Fatal(err)
	}
	body, ok := bytes.CutPrefix(doc, head.Bytes())
	if !ok {
		t.Fatalf("%s: the page does not open with page.Head's head; got:\n%s", name, doc)
	}
	title := "<title>" + string(elem) + "</title>\n"
	golden.Check(t, filepath.Join("golden", name+".html"), append([]byte(title), body...))
}

// digests lists every file under dir with its SHA-256, in name order.
func digests(t *testing.T, dir string) []byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%x  %s\n", sha256.Sum256(data), e.Name())
	}
	return b.Bytes()
}

// TestGoldenCompare pins compare's outputs: each fixed run against itself
// (nothing moved) and the synthetic run against a slower copy of itself.
func TestGoldenCompare(t *testing.T) {
	dir := t.TempDir()
	save := func(name string, r *hop.Report) string {
		var b bytes.Buffer
		if err := present.WriteJSON(&b, r); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, name+".json")
		if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return file
	}
	runs := goldenRuns(t)
	slower := syntheticRun()
	for i := range slower.Paths {
		p := &slower.Paths[i]
		if p.Relay != hop.Epoll {
			continue
		}
		for j := range p.RoundsP50Us {
			p.RoundsP50Us[j] *= 1.2
		}
		for j := range p.Rounds {
			p.Rounds[j].P50 *= 1.2
		}
		p.LatencyUs.P50 *= 1.2
	}
	for _, c := range []struct{ name, old, new string }{
		{"compare-run", save("run", runs["run"]), save("run", runs["run"])},
		{"compare-sweep", save("sweep", runs["sweep"]), save("sweep", runs["sweep"])},
		{"compare-synthetic", save("synthetic", runs["synthetic"]), save("slower", slower)},
	} {
		t.Run(c.name, func(t *testing.T) {
			var text, js bytes.Buffer
			if err := runCompare([]string{c.old, c.new}, &text); err != nil {
				t.Fatal(err)
			}
			if err := runCompare([]string{"--format", "json", c.old, c.new}, &js); err != nil {
				t.Fatal(err)
			}
			// The files' names are in the output; the temp dir is not.
			unDir := func(b []byte) []byte { return bytes.ReplaceAll(b, []byte(dir), []byte("DIR")) }
			golden.Check(t, filepath.Join("golden", c.name+".txt"), unDir(text.Bytes()))
			golden.Check(t, filepath.Join("golden", c.name+".json"), unDir(js.Bytes()))
			var runs []compare.Run
			for _, f := range []string{c.old, c.new} {
				r, err := compare.Load(f)
				if err != nil {
					t.Fatal(err)
				}
				runs = append(runs, r)
			}
			cmp, err := compare.Compare(runs, compare.Options{Alpha: compare.DefaultAlpha})
			if err != nil {
				t.Fatal(err)
			}
			var doc bytes.Buffer
			if err := page.WriteCompare(&doc, cmp); err != nil {
				t.Fatal(err)
			}
			checkPage(t, c.name, unDir(doc.Bytes()))
		})
	}
}
