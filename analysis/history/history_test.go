package history

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/analysis/hop"
)

func entry(cmd, machine string, added float64) Entry {
	return Entry{Time: time.Unix(0, 0).UTC(), Command: cmd, Machine: machine, Added: map[string]float64{"epoll": added},
		Control: map[string]float64{"direct": added / 2}}
}

// A run is kept as its relay paths' added p50s and its controls' p50s; a
// path with no kept round is not kept.
func TestEntryOf(t *testing.T) {
	kept := []hop.Round{{Index: 1, Kept: true}}
	direct := hop.PathResult{Name: "direct tcp", Relay: hop.Direct, Regime: "spread", Threads: 1, Rounds: kept,
		LatencyUs: hop.Latency{P50: 19.2}, AddedUs: &hop.Added{}}
	epoll := hop.PathResult{Name: "epoll tcp->tcp", Relay: hop.Epoll, Hops: 1, Regime: "spread", Threads: 1, Rounds: kept,
		LatencyUs: hop.Latency{P50: 51.5}, AddedUs: &hop.Added{P50: 32.3}}
	idle := epoll
	idle.Name, idle.Relay, idle.Rounds = "splice tcp->tcp", hop.Splice, nil
	e := EntryOf(&hop.Report{Paths: []hop.PathResult{direct, epoll, idle}}, "hopbench", time.Unix(0, 0))
	if len(e.Added) != 1 || e.Added[hop.PathKey(epoll)] != 32.3 || len(e.Control) != 1 || e.Control[hop.PathKey(direct)] != 19.2 {
		t.Errorf("entry %+v: want epoll's added p50 and direct's p50 alone", e)
	}
}

// The file keeps every run, newest last, up to maxLines; a line cut short
// is skipped and counted, and the runs around it are still read.
func TestAppendAndLoad(t *testing.T) {
	file := filepath.Join(t.TempDir(), "sub", "history.jsonl")
	if entries, bad, err := Load(file); err != nil || entries != nil || bad != 0 {
		t.Fatalf("a history not there yet: %v, %d, %v; want empty", entries, bad, err)
	}
	for i := range maxLines + 3 {
		if err := Append(file, entry("hopbench", "m", float64(i))); err != nil {
			t.Fatal(err)
		}
	}
	entries, bad, err := Load(file)
	if err != nil || bad != 0 || len(entries) != maxLines {
		t.Fatalf("%d entries, %d bad, %v; want %d", len(entries), bad, err, maxLines)
	}
	if entries[0].Added["epoll"] != 3 || entries[maxLines-1].Added["epoll"] != maxLines+2 {
		t.Errorf("kept %v to %v, want the newest %d", entries[0].Added, entries[maxLines-1].Added, maxLines)
	}
	data, _ := os.ReadFile(file)
	if err := os.WriteFile(file, append(data, []byte(`{"time":"2026-12-05T09:00:00Z","comm`)...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Append(file, entry("hopbench", "m", -1)); err != nil {
		t.Fatal(err)
	}
	entries, bad, _ = Load(file)
	if bad != 1 || entries[len(entries)-1].Added["epoll"] != -1 {
		t.Errorf("after a cut line: %d bad, last %v; want 1 and the run appended after it", bad, entries[len(entries)-1])
	}
	if left, _ := os.ReadDir(filepath.Dir(file)); len(left) != 1 {
		t.Errorf("files beside the history: %v, want it alone", left)
	}
}

// A run is judged against the latest four runs of the same command on the
// same machine, oldest first; other commands and machines are not its.
func TestPast(t *testing.T) {
	var entries []Entry
	for i := range 6 {
		entries = append(entries, entry("hopbench", "amd", float64(i)))
		entries = append(entries, entry("hopbench --runs=11", "amd", 100))
		entries = append(entries, entry("hopbench", "intel", 200))
	}
	past, n := Past(entries, "hopbench", "amd")
	if n != 4 || !slices.Equal(past.Added["epoll"], []float64{2, 3, 4, 5}) || !slices.Equal(past.Control["direct"], []float64{1, 1.5, 2, 2.5}) {
		t.Errorf("past %v from %d runs, want 2, 3, 4, 5 from 4", past, n)
	}
	if past, n := Past(entries, "hopbench --paths=epoll", "amd"); n != 0 || len(past.Added) != 0 || len(past.Control) != 0 {
		t.Errorf("another command: %v from %d runs, want none", past, n)
	}
}

func FuzzParse(f *testing.F) {
	line, _ := json.Marshal(entry("hopbench", "m", 30.5))
	f.Add(line)
	f.Add([]byte("{}\n\n{\"command\":\"x\",\"added_p50_us\":{\"a\":1}}\nnot json"))
	f.Add([]byte(strings.Repeat("{", 100)))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, bad := Parse(data)
		if bad < 0 || len(entries) > bytes.Count(data, []byte("\n"))+1 {
			t.Fatalf("%d entries, %d bad from %d lines", len(entries), bad, bytes.Count(data, []byte("\n"))+1)
		}
		for _, e := range entries {
			if e.Command == "" || e.Added == nil {
				t.Fatalf("an entry without a command or figures: %+v", e)
			}
			// What Parse read, Append writes as a line Parse reads back,
			// and writes the same again.
			line, _ := json.Marshal(e)
			back, bad := Parse(line)
			if bad != 0 || len(back) != 1 {
				t.Fatalf("%+v does not survive a write: %+v, %d bad", e, back, bad)
			}
			if again, _ := json.Marshal(back[0]); !bytes.Equal(again, line) {
				t.Fatalf("written twice: %s, then %s", line, again)
			}
		}
	})
}
