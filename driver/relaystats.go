package driver

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/hoplat/hoplat/relay"
)

// ParseRelayStats reads one hop's residence per request in microseconds:
// the mean chunk residence times the chunks per request, counting a
// request as one chunk from the client (true of ping-pong with messages
// smaller than the relay's buffer). The file is decoded with the type
// hoprelay writes it from.
func ParseRelayStats(data []byte) (float64, error) {
	var s relay.Snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		return 0, fmt.Errorf("driver: parse relay stats: %w", err)
	}
	if s.Schema != relay.Schema {
		return 0, fmt.Errorf("driver: parse relay stats: schema %q, want %s", s.Schema, relay.Schema)
	}
	requests := s.Directions.ClientToUpstream.Chunks
	if requests <= 0 || s.Residence.Count <= 0 {
		return 0, errors.New("driver: relay stats: no timed traffic")
	}
	return s.Residence.MeanNs * float64(s.Residence.Count) / float64(requests) / 1e3, nil
}

// relayResidence sums the residence per request over a path's hops (one
// stats file each), or returns nil when any hop's stats are missing. The
// stats span the whole stage — warm-up rounds and every thread count — so
// this is the stage's mean.
func relayResidence(files []string) *float64 {
	if len(files) == 0 {
		return nil
	}
	var sum float64
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil
		}
		us, err := ParseRelayStats(data)
		if err != nil {
			return nil
		}
		sum += us
	}
	return &sum
}
