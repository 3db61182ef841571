package main

import (
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/results/history"
	"github.com/hoplat/hoplat/results/hop"
)

// A run keeps its figures in --history, keyed by the flags that set what
// it measures (not those that set how it is shown), and a run of the same
// command after two earlier ones is judged against them: here the earlier
// runs are the first one's figures made ten times dearer, and the second
// run's epoll hop is flagged as having moved between runs. Where the
// earlier runs' direct path was ten times slower too, the host moved, not
// the hop: a third run says so and keeps epoll.
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
		e.Added[k] = 10 * v
	}
	for range 2 {
		if err := history.Append(file, e); err != nil {
			t.Fatal(err)
		}
	}
	// --out only says where the files go: the same command still.
	rep, _ = runJSON(t, append(args, "--out", t.TempDir())...)
	if h := rep.History; h == nil || h.PastRuns != 3 || h.Judged != 1 || h.Flagged != 1 || h.File != file {
		t.Fatalf("second run: history %+v, want 3 earlier runs, epoll judged and flagged", rep.History)
	}
	for _, p := range rep.Paths {
		if p.Relay != hop.Epoll {
			continue
		}
		// The history is the first run and three at ten times its figures:
		// this run sits about 90% under their median, and is flagged while
		// it stays within five times the first, whatever the machine.
		if a := p.AcrossRuns; p.Stable || !strings.Contains(p.UnstableReason, "moved between runs") || a == nil || a.Runs != 4 || a.OffPct > -50 {
			t.Errorf("epoll: stable %v %q, across runs %+v; want flagged, far under the median of 4", p.Stable, p.UnstableReason, a)
		}
	}
	if entries, _, _ := history.Load(file); len(entries) != 4 {
		t.Errorf("%d runs in the history, want 4", len(entries))
	}

	// Earlier runs on a host ten times slower, direct path and hop alike:
	// the host moved, the hop kept its share of it.
	slow := history.Entry{Time: first.Time, Command: first.Command, Machine: first.Machine,
		Added: map[string]float64{}, Control: map[string]float64{}}
	for k, v := range first.Added {
		slow.Added[k] = 10 * v
	}
	for k, v := range first.Control {
		slow.Control[k] = 10 * v
	}
	for range 4 {
		if err := history.Append(file, slow); err != nil {
			t.Fatal(err)
		}
	}
	rep, _ = runJSON(t, args...)
	if h := rep.History; h == nil || h.Judged != 1 || h.Flagged != 0 || len(h.HostMoved) != 1 || h.HostMoved[0].Control != "direct tcp" {
		t.Fatalf("after runs on a slower host: history %+v, want epoll judged at the host's speed and kept, the move said", rep.History)
	}
	for _, p := range rep.Paths {
		// The test made the earlier host ten times slower: the scale is
		// about 0.1, and under 0.5 unless this run's direct path came out
		// five times slower than the first's, far past what an invocation
		// moves on any machine. An unmoved host scales 1.
		if a := p.AcrossRuns; p.Relay == hop.Epoll && (!p.Stable || a == nil || a.HostScale > 0.5 || a.ScaledOffPct == nil) {
			t.Errorf("epoll: stable %v %q, across runs %+v; want kept at the host's speed", p.Stable, p.UnstableReason, a)
		}
	}
}
