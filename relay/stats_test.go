package relay_test

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"

	"github.com/hoplat/hoplat/relay"
	"github.com/hoplat/hoplat/results"
)

// TestSnapshotHistogramDecodes: the residence histogram of a --stats file is
// results.Histogram's encoding, which the one decoder reads back to the
// counts and percentiles the snapshot states beside it.
func TestSnapshotHistogramDecodes(t *testing.T) {
	up := startUpstream(t, "tcp", echo)
	rr := startRelay(t, relay.Config{Engine: relay.EngineEpoll, Stats: true}, "tcp", up.addr)
	c := dial(t, rr.Addr())
	msg := []byte("residence")
	buf := make([]byte, len(msg))
	for range 50 {
		if _, err := c.Write(msg); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, buf); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()
	var out bytes.Buffer
	if err := rr.Stats().WriteJSON(&out); err != nil {
		t.Fatal(err)
	}
	var s relay.Snapshot
	if err := json.Unmarshal(out.Bytes(), &s); err != nil {
		t.Fatal(err)
	}
	res := s.Residence
	if res.Count < 100 { // a chunk each way per round trip
		t.Fatalf("residence count %d, want at least 100", res.Count)
	}
	h, err := results.DecodeHistogram(res.Histogram)
	if err != nil {
		t.Fatal(err)
	}
	if h.Count() != res.Count || h.Quantile(50) != res.P50Ns || h.Max() != res.MaxNs || h.Min() != res.MinNs {
		t.Errorf("decoded count %d p50 %d min %d max %d; snapshot says %+v", h.Count(), h.Quantile(50), h.Min(), h.Max(), res)
	}
}
