package present

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/present/phrase"
	"github.com/hoplat/hoplat/probe/machine"
	"github.com/hoplat/hoplat/stats"
)

// defaultRun is hopbench's default paths in its two regimes, seven
// rounds each (the first discarded); slow says which rounds ran on a
// slower host (every round trip 1.46 times longer).
func defaultRun(slow func(round int) bool) *hop.Report {
	relays := []hop.Relay{hop.Goroutine, hop.Epoll, hop.Splice, hop.Sockmap, hop.Socat, hop.HAProxy}
	var all []hop.Series
	for ri, regime := range []string{"packed", "spread"} {
		paths := []hop.Path{hop.DirectPath(hop.TCP), hop.DirectPath(hop.UNIX)}
		for _, r := range relays {
			paths = append(paths, hop.Path{Relay: r, Client: hop.TCP, Upstream: hop.TCP, Hops: 1})
			if r != hop.Sockmap && r != hop.HAProxy {
				paths = append(paths, hop.Path{Relay: r, Client: hop.UNIX, Upstream: hop.TCP, Hops: 1})
			}
		}
		for pi, p := range paths {
			s := hop.Series{Setting: hop.Setting{Threads: 1, Regime: regime}, Path: p,
				Placement: map[string]string{"client": "0", "relay": "0", "server": "0"}}
			base := 20 + 30*float64(p.Hops) + float64(pi) + 10*float64(ri)
			if p.Client == hop.UNIX {
				base -= 6
			}
			for round := range 7 {
				v := base * (1 + 0.01*float64(round%3))
				if slow(round) {
					v *= 1.46
				}
				s.Samples = append(s.Samples, hop.Sample{Latency: stats.Latency{P50: v, P99: 3 * v}, TPS: 1e6 / v})
			}
			all = append(all, s)
		}
	}
	paths, _ := hop.Analyze(all, 1, false)
	m := &machine.Machine{Virtualization: "kvm", CPUIdle: machine.CPUIdle{Governor: "haltpoll", Driver: "haltpoll"},
		Wake: machine.WakeUS{SameCPU: 4, CrossCPU: 8}, Leg: machine.LegUS{TCP: 6, UNIX: 3}}
	hop.Explain(paths, m)
	m.States = hop.States(paths)
	r := &hop.Report{Schema: hop.Schema, Machine: m, Paths: paths, Regimes: []hop.RegimeInfo{
		{Name: "packed", Note: "client, relay and server on CPU 0"}, {Name: "spread", Note: "client=0 relay=1 server=0"}}}
	r.Verdicts = Verdicts(r)
	return r
}

// The default report fits one screen: at most 60 lines where the host
// kept its speed, 70 where it changed; none wider than TextWidth. The
// change of speed is said once, at the top, and flags no path.
func TestWriteBriefFitsOneScreen(t *testing.T) {
	for _, c := range []struct {
		name     string
		slow     func(int) bool
		maxLines int
		states   bool
	}{
		{"steady", func(int) bool { return false }, 60, false},
		{"two speeds", func(round int) bool { return round%2 == 1 }, 70, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := defaultRun(c.slow)
			if got := len(r.Machine.States) > 0; got != c.states {
				t.Fatalf("machine.states %+v, want states %v", r.Machine.States, c.states)
			}
			var b bytes.Buffer
			if err := WriteBrief(&b, r); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(lines) > c.maxLines {
				t.Errorf("%d lines, want at most %d:\n%s", len(lines), c.maxLines, out)
			}
			for _, l := range lines {
				if n := utf8.RuneCountInString(l); n > TextWidth {
					t.Errorf("%d columns: %q", n, l)
				}
			}
			if strings.Contains(out, "UNSTABLE") || strings.Contains(out, "unstable (") {
				t.Errorf("a path flagged:\n%s", out)
			}
			said := strings.Count(out, "the host changed speed")
			if !c.states {
				if said != 0 {
					t.Errorf("a steady host said to change speed:\n%s", out)
				}
				return
			}
			// Once, above the first table.
			if said != 1 || strings.Index(out, "the host changed speed") > strings.Index(out, "p50 µs") {
				t.Errorf("the change of speed said %d times, or below the tables:\n%s", said, out)
			}
			for _, p := range r.Paths {
				if p.Relay != hop.Direct && p.AddedUs.Method != "paired" {
					t.Errorf("%s: added_us.method %q, want paired", p.Name, p.AddedUs.Method)
				}
			}
		})
	}
}

// A run where the traced split and schedstat disagree on several paths,
// and a peer is missing, still fits the screen: the split's disagreement,
// which leaves a reader nothing to do, is left to --verbose and the
// JSON; one line names the paths a missing peer skipped; another
// warning stays.
func TestWriteBriefDropsIdleWarnings(t *testing.T) {
	r := defaultRun(func(int) bool { return false })
	warned := 0
	for i := range r.Paths {
		p := &r.Paths[i]
		if p.Relay == hop.Direct || p.Relay == hop.Sockmap {
			continue
		}
		counted := 10.0
		p.Trace = &hop.Trace{View: hop.ViewHolder, SchedstatRelayCPUUs: &counted, RelayCPUUs: 12.5}
		if w := phrase.SchedstatWarning(p.Trace, p.Name); w != "" {
			r.Warnings = append(r.Warnings, w)
			warned++
		}
	}
	if warned < 8 {
		t.Fatalf("%d paths warned, want every relay path but sockmap", warned)
	}
	r.Warnings = append(r.Warnings, "a component did not stop cleanly")
	for _, k := range []string{"socat tcp->tcp", "socat unix->tcp"} {
		r.Skipped = append(r.Skipped, hop.Skip{Path: k, Reason: "driver: socat not found on PATH"})
	}
	var b bytes.Buffer
	if err := WriteBrief(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	flat := strings.Join(strings.Fields(out), " ")
	if n := strings.Count(out, "warning: "); n != 1 {
		t.Errorf("%d warnings, want 1 (the component's):\n%s", n, out)
	}
	if strings.Contains(out, "schedstat") || strings.Contains(out, "kernel's count") {
		t.Errorf("the split's disagreement with schedstat in the brief:\n%s", out)
	}
	if !strings.Contains(flat, "skipped socat tcp->tcp, socat unix->tcp: socat not found on PATH") {
		t.Errorf("skipped paths not on one line under their reason:\n%s", out)
	}
	if !strings.Contains(flat, "warning: a component did not stop cleanly") {
		t.Errorf("another warning lost:\n%s", out)
	}
	if lines := strings.Count(out, "\n"); lines > 60 {
		t.Errorf("%d lines, want at most 60:\n%s", lines, out)
	}
}

// A run judged against earlier ones says so once, above the tables; a
// first run, with nothing to be judged against, says nothing.
func TestEventsAcrossRuns(t *testing.T) {
	r := &hop.Report{History: &hop.History{File: "/h.jsonl", PastRuns: 3, Judged: 20, Flagged: 2}}
	got := strings.Join(Events(r), "\n")
	if want := "across runs: against the last 3 runs of this command on this machine, 2 of 20 hops moved more than 15% from their median and are flagged (/h.jsonl)"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	r.History.HostMoved = []hop.HostMoved{{Stage: "spread", Control: "direct tcp spread", P50Us: 25.7, PastMedianUs: 19.1},
		{Stage: "run", Control: "direct unix", P50Us: 25, PastMedianUs: 19.5}, {Stage: "packed, 2 threads", Control: "direct tcp packed", P50Us: 30, PastMedianUs: 20}}
	got = strings.Join(Events(r), "\n")
	if want := "; the host ran at another speed than in them (direct tcp spread 25.7 µs against 19.1, direct unix 25.0 µs against 19.5, " +
		"direct tcp packed (packed, 2 threads) 30.0 µs against 20.0): a hop there is flagged only if it moved at that speed too"; !strings.HasSuffix(got, want) {
		t.Errorf("got %q\nwant it to end %q", got, want)
	}
	r.History = &hop.History{File: "/h.jsonl", PastRuns: 1}
	if got := strings.Join(Events(r), "\n"); !strings.Contains(got, "1 earlier run of this command") {
		t.Errorf("one earlier run: %q", got)
	}
	r.History = &hop.History{File: "/h.jsonl"}
	if got := Events(r); len(got) != 0 {
		t.Errorf("a first run: %q, want nothing", got)
	}
}

// The first ten lines say what ran and answer per regime, in µs; every
// row's split columns add up to its added p50; no line is cut; a direct
// path is never marked, however its rounds spread.
func TestWriteBriefOpensWithTheAnswer(t *testing.T) {
	r := defaultRun(func(int) bool { return false })
	r.Config = hop.ReportConfig{Backend: "embedded", Proto: "mysql", Command: "point-select", Threads: []int{1}, Rounds: 7, Discard: 1}
	for i := range r.Paths {
		if r.Paths[i].Relay == hop.Direct {
			r.Paths[i].Stable, r.Paths[i].UnstableReason = false, "round p50s spread" // as a report before host_noise
		}
	}
	var b bytes.Buffer
	if err := WriteBrief(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	head := strings.Join(lines[:10], "\n")
	for _, want := range []string{"workload: pingpong point-select to pongd's MySQL mock, 1 connection",
		"packed: HAProxy adds ", "spread: HAProxy adds ", " µs per round trip"} {
		if !strings.Contains(head, want) {
			t.Errorf("first 10 lines lack %q:\n%s", want, head)
		}
	}
	rows := 0
	for _, l := range lines {
		if strings.HasSuffix(l, "…") {
			t.Errorf("a line cut: %q", l)
		}
		if strings.HasPrefix(l, "!") && strings.Contains(l, "direct") {
			t.Errorf("a direct path marked: %q", l)
		}
		f := strings.Fields(l)
		if len(f) < 12 || !strings.HasPrefix(f[len(f)-7], "+") {
			continue // not a split relay row
		}
		rows++
		added := parse(t, f[len(f)-7])
		sum := 0.0
		for _, c := range f[len(f)-5:] {
			if c != "-" {
				sum += parse(t, c)
			}
		}
		if d := sum - added; d > 0.1*added || d < -0.1*added {
			t.Errorf("split %v adds to %.1f, added p50 %.1f: %q", f[len(f)-5:], sum, added, l)
		}
	}
	if rows != 20 {
		t.Errorf("%d relay rows checked, want 20:\n%s", rows, out)
	}
}

func parse(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v
}

// A run against a real backend that ran out of its bound says the
// smallest hop it could resolve and what would resolve the rest.
func TestResolutionLine(t *testing.T) {
	r := &hop.Report{Resolution: &hop.Resolution{BoundS: 600, SpentS: 410, Attempts: 3, TimeS: 0.8, Rounds: 7,
		Unresolved: 2, SmallestUs: 41.5, SuggestTimeS: 12, SuggestRuns: 40}}
	want := "unresolved: 2 relay paths' intervals hold zero after 3 runs of rounds of 0.80 s, 410 s of the 600 s bound; " +
		"the smallest hop this run could resolve is 41.5 µs; --time 12s or --runs 40 would resolve them as measured"
	if got := resolutionLine(r); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// An answer whose first hop this run could not resolve still ends its
// sentence before naming the next path.
func TestAnswerUnresolvedEndsItsSentence(t *testing.T) {
	path := func(r hop.Relay, p50, lo, hi float64) hop.PathResult {
		return hop.PathResult{Name: string(r) + " tcp->tcp", Relay: r, Hops: 1, ClientTransport: hop.TCP,
			Rounds: []hop.Round{{Kept: true}}, Stable: true, AddedUs: &hop.Added{P50: p50, CI95P50: [2]float64{lo, hi}, Pairs: 6}}
	}
	got := answer("", []hop.PathResult{path(hop.Epoll, 135, 22.5, 285), path(hop.HAProxy, 142, -19.5, 255)})
	want := "HAProxy adds no time this run resolves (142 µs, interval [-19.5, 255]). hoprelay epoll adds 135 µs."
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
