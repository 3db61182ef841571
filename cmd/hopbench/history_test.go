package main

import (
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
// run's epoll hop is flagged as having moved between runs.
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
		strings.Contains(e.Command, "format") || len(e.Added) != 1 {
		t.Fatalf("entry %+v: want the measuring flags and epoll's figure", e)
	}
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
		if a := p.AcrossRuns; p.Stable || !strings.Contains(p.UnstableReason, "moved between runs") || a == nil || a.Runs != 4 || a.OffPct > -50 {
			t.Errorf("epoll: stable %v %q, across runs %+v; want flagged, far under the median of 4", p.Stable, p.UnstableReason, a)
		}
	}
	if entries, _, _ := history.Load(file); len(entries) != 4 {
		t.Errorf("%d runs in the history, want 4", len(entries))
	}
}
