package main

import (
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/analysis/history"
	"github.com/hoplat/hoplat/analysis/hop"
)

// A run keeps its figures in --history, keyed by the flags that set what
// it measures (not those that set how it is shown), and a run of the same
// command after two earlier ones is judged against them: here the earlier
// runs are the first one's figures made a hundred times dearer, and the
// second run's epoll hop is flagged as having moved between runs. Where
// the earlier runs' direct path was a hundred times slower too, the host
// moved, not the hop: a third run says so and judges epoll at the host's
// speed, and keeps it where its hop is what the first run measured.
//
// The factor is far beyond what a loaded machine moves a hop between two
// runs (four times, beside five concurrent builds); whether the third
// run's hop is the first's is read from the two runs themselves.
func TestIntegrationHistory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "history.jsonl")
	args := []string{"--paths", "direct,epoll", "--transports", "tcp", "--placement", "same-core", "--trace=false",
		"--time", "100ms", "--warmup", "20ms", "--runs", "3", "--discard", "1", "--history", file}
	rep, _ := runJSON(t, args...)
	if rep.History == nil || rep.History.PastRuns != 0 || rep.History.Judged != 0 {
		t.Fatalf("first run: history %+v, want no earlier run", rep.History)
	}
	entries, bad, err := history.Load(file)
	if err != nil || bad != 0 || len(entries) != 1 {
		t.Fatalf("after one run: %d entries, %d bad, %v", len(entries), bad, err)
	}
	e := entries[0]
	if !strings.Contains(e.Command, "--paths=direct,epoll") || strings.Contains(e.Command, "history") ||
		strings.Contains(e.Command, "format") || len(e.Added) != 1 || len(e.Control) != 1 {
		t.Fatalf("entry %+v: want the measuring flags, epoll's added p50 and direct's p50", e)
	}
	first := e
	first.Added = maps.Clone(e.Added)
	for k, v := range e.Added {
		e.Added[k] = dearer * v
	}
	for range 2 {
		if err := history.Append(file, e); err != nil {
			t.Fatal(err)
		}
	}
	// --out only says where the files go: the same command still.
	rep, _ = runJSON(t, append(args, "--out", t.TempDir())...)
	if h := rep.History; h == nil || h.PastRuns != 3 || h.Judged != 1 || h.File != file {
		t.Fatalf("second run: history %+v, want 3 earlier runs, epoll judged", rep.History)
	}
	// The earlier runs' direct path is the first run's: where this run's
	// ran at another speed (a machine loaded by others, measured here as
	// the history's HostMoved), the hop is judged at that speed, and the
	// third part below holds that judgement; here only a steady host is
	// held to the flag.
	if h := rep.History; len(h.HostMoved) > 0 {
		t.Logf("second run: the host moved since the first (%+v): its flag is not asserted", h.HostMoved)
	} else {
		for _, p := range rep.Paths {
			if p.Relay != hop.Epoll {
				continue
			}
			if a := p.AcrossRuns; p.Stable || !strings.Contains(p.UnstableReason, "moved between runs") || a == nil || a.Runs != 4 || a.OffPct > -50 {
				t.Errorf("epoll: stable %v %q, across runs %+v; want flagged, far under the median of 4", p.Stable, p.UnstableReason, a)
			}
		}
	}
	if entries, _, _ := history.Load(file); len(entries) != 4 {
		t.Errorf("%d runs in the history, want 4", len(entries))
	}

	// Earlier runs on a host a hundred times slower, direct path and hop
	// alike: the host moved, the hop kept its share of it.
	slow := history.Entry{Time: first.Time, Command: first.Command, Machine: first.Machine,
		Added: map[string]float64{}, Control: map[string]float64{}}
	for k, v := range first.Added {
		slow.Added[k] = dearer * v
	}
	for k, v := range first.Control {
		slow.Control[k] = dearer * v
	}
	for range 4 {
		if err := history.Append(file, slow); err != nil {
			t.Fatal(err)
		}
	}
	rep, _ = runJSON(t, args...)
	if h := rep.History; h == nil || h.Judged != 1 || len(h.HostMoved) != 1 || h.HostMoved[0].Control != "direct tcp" {
		t.Fatalf("after runs on a slower host: history %+v, want epoll judged at the host's speed, the move said", rep.History)
	}
	for _, p := range rep.Paths {
		if p.Relay != hop.Epoll {
			continue
		}
		a := p.AcrossRuns
		if a == nil || a.HostScale > 10.0/dearer || a.ScaledOffPct == nil {
			t.Fatalf("epoll: across runs %+v; want it judged at the host's speed", a)
		}
		if p.AddedUs == nil || len(first.Added) != 1 {
			t.Fatalf("epoll: added %+v, first run's %v", p.AddedUs, first.Added)
		}
		var was, direct, directWas float64
		for _, v := range first.Added {
			was = v
		}
		for _, v := range first.Control {
			directWas = v
		}
		for _, q := range rep.Paths {
			if q.Relay == hop.Direct {
				direct = q.LatencyUs.P50
			}
		}
		// Judged at the host's speed: the hop against the first run's,
		// each over its own run's direct path, as these two runs measured
		// them: the machine may move the direct path between invocations,
		// and the code judges the hop against that move. Kept where the
		// hop is within a tenth of the first's at that speed;
		// a machine that moved the hop further moved the hop itself, and
		// a flag is then the right answer.
		moved := strings.Contains(p.UnstableReason, "between runs")
		off := p.AddedUs.P50/was/(direct/directWas) - 1
		t.Logf("epoll: %.1f µs against %.1f in the first run, direct %.1f against %.1f: %+.0f%% at the host's speed; %q",
			p.AddedUs.P50, was, direct, directWas, 100*off, p.UnstableReason)
		if moved != (rep.History.Flagged == 1) {
			t.Errorf("epoll: %q, yet the history counts %d flagged", p.UnstableReason, rep.History.Flagged)
		}
		if direct <= 0 || directWas <= 0 {
			t.Fatalf("direct p50 %.1f µs, %.1f in the first run: want both measured", direct, directWas)
		}
		if off < 0.1 && off > -0.1 && moved {
			t.Errorf("epoll: %+.0f%% from the first run at the host's speed, yet %q; want kept (%+v)", 100*off, p.UnstableReason, a)
		}
	}
}

// dearer is how many times dearer the made-up earlier runs are.
const dearer = 100
