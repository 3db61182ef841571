package driver

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/relay"
)

const relayStats = `{"schema":"hoplat.relay.v1","directions":{"client_to_upstream":{"bytes":6400,"chunks":100},
 "upstream_to_client":{"bytes":6400,"chunks":100}},"residence":{"count":200,"mean_ns":3000}}`

func TestParseRelayStats(t *testing.T) {
	us, err := ParseRelayStats([]byte(relayStats))
	if err != nil || us != 6 { // two chunks of 3 µs per request
		t.Errorf("got %v, %v; want 6 µs", us, err)
	}
	for _, bad := range []string{`{"schema":"x"}`, `{"schema":"hoplat.relay.v1"}`, `nope`} {
		if _, err := ParseRelayStats([]byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// readAll reads each stats file's totals, as a snapshot does.
func readAll(t *testing.T, files ...string) map[string]relayTotals {
	t.Helper()
	out := map[string]relayTotals{}
	for _, f := range files {
		if tot, err := readRelayTotals(f); err == nil {
			out[f] = tot
		}
	}
	return out
}

func TestRelayResidenceSumsHops(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, n := range []string{"a", "b"} {
		f := filepath.Join(dir, n)
		os.WriteFile(f, []byte(relayStats), 0o600)
		files = append(files, f)
	}
	ends := readAll(t, files...)
	if got := relayResidence(files, ends, nil); got == nil || *got != 12 {
		t.Errorf("two hops: %v", got)
	}
	missing := append(files, filepath.Join(dir, "missing"))
	if got := relayResidence(missing, readAll(t, missing...), nil); got != nil {
		t.Errorf("missing hop counted: %v", *got)
	}
	// Snapshots taken as the timed rounds began: 40 requests of 1 µs per
	// chunk then, so the 60 timed requests held 600000-80000 ns.
	base := map[string]relayTotals{files[0]: {residenceNs: 80000, requests: 40}, files[1]: {residenceNs: 80000, requests: 40}}
	want := 2 * (600000.0 - 80000) / 60 / 1e3
	if got := relayResidence(files, ends, base); got == nil || math.Abs(*got-want) > 1e-9 {
		t.Errorf("timed rounds only: %v, want %v", got, want)
	}
	base[files[0]] = relayTotals{residenceNs: 1e9, requests: 100}
	if got := relayResidence(files, ends, base); got != nil {
		t.Errorf("a snapshot with no request since counted: %v", *got)
	}
}

func FuzzParseRelayStats(f *testing.F) {
	f.Add([]byte(relayStats))
	f.Add([]byte(strings.ReplaceAll(relayStats, "100", "0")))
	f.Fuzz(func(t *testing.T, data []byte) {
		us, err := ParseRelayStats(data)
		if err == nil && math.IsNaN(us) {
			t.Errorf("NaN residence from %q", data)
		}
	})
}

// TestParseRelayStatsReadsWhatRelayWrites: the driver reads the stats file
// with hoprelay's own type, so what Snapshot.WriteJSON writes comes back.
func TestParseRelayStatsReadsWhatRelayWrites(t *testing.T) {
	s := relay.Snapshot{Schema: relay.Schema, Residence: relay.Residence{Count: 200, MeanNs: 3000}}
	s.Directions.ClientToUpstream = relay.DirStats{Bytes: 6400, Chunks: 100}
	var b bytes.Buffer
	if err := s.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if us, err := ParseRelayStats(b.Bytes()); err != nil || us != 6 {
		t.Errorf("got %v, %v; want 6 µs", us, err)
	}
}

func TestRelayWakes(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "s")
	stamped := `{"schema":"hoplat.relay.v1","directions":{"client_to_upstream":{"chunks":100}},"residence":{"count":200,"mean_ns":3000},"wakes":{"count":200,"mean_ns":5000}}`
	os.WriteFile(f, []byte(stamped), 0o600)
	if got := relayWakes([]string{f}, readAll(t, f), nil); got == nil || *got != 10 { // two wakes of 5 µs per request
		t.Errorf("wakes %v, want 10 µs", got)
	}
	os.WriteFile(f, []byte(relayStats), 0o600) // no stamps: a UNIX leg
	if got := relayWakes([]string{f}, readAll(t, f), nil); got != nil {
		t.Errorf("unstamped relay: %v", *got)
	}
}
