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

// relayTotals is a stats snapshot's running totals: residence summed over
// every chunk, and requests (chunks from the client).
type relayTotals struct {
	residenceNs float64
	requests    int64
	wakeNs      float64 // wake-up delays from receive stamps, summed
	wakes       int64
}

func readRelayTotals(file string) (relayTotals, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return relayTotals{}, fmt.Errorf("driver: relay stats: %w", err)
	}
	var s relay.Snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		return relayTotals{}, fmt.Errorf("driver: parse relay stats %s: %w", file, err)
	}
	if s.Schema != relay.Schema {
		return relayTotals{}, fmt.Errorf("driver: parse relay stats %s: schema %q, want %s", file, s.Schema, relay.Schema)
	}
	t := relayTotals{residenceNs: s.Residence.MeanNs * float64(s.Residence.Count), requests: s.Directions.ClientToUpstream.Chunks}
	if s.Wakes != nil {
		t.wakeNs, t.wakes = s.Wakes.MeanNs*float64(s.Wakes.Count), s.Wakes.Count
	}
	return t, nil
}

// relayResidence sums the residence per request over a path's hops (one
// stats file each), from each hop's totals in ends less those in base (a
// file missing from base counts from zero); nil when any hop's totals are
// missing or hold no request.
func relayResidence(files []string, ends, base map[string]relayTotals) *float64 {
	return sumHops(files, ends, base, residencePerHop)
}

// relayWakes is the relays' measured wake-up delay per request, summed
// over a path's hops and both directions, as relayResidence reads them:
// nil unless every hop stamped (nearly) every chunk it read, which only
// TCP legs on both sides of an event-loop relay do.
func relayWakes(files []string, ends, base map[string]relayTotals) *float64 {
	return sumHops(files, ends, base, wakesPerHop)
}

func residencePerHop(end, b relayTotals) (float64, bool) {
	requests := end.requests - b.requests
	if requests <= 0 || end.residenceNs < b.residenceNs {
		return 0, false
	}
	return (end.residenceNs - b.residenceNs) / float64(requests) / 1e3, true
}

func wakesPerHop(end, b relayTotals) (float64, bool) {
	requests, wakes := end.requests-b.requests, end.wakes-b.wakes
	// Two reads per request, one each way; the first few after
	// stamping is switched on go unstamped.
	if requests <= 0 || float64(wakes) < 1.9*float64(requests) {
		return 0, false
	}
	return (end.wakeNs - b.wakeNs) / float64(wakes) * 2 / 1e3, true
}

// sumHops adds up one figure per hop of a path, each from the hop's totals
// in ends against base: nil when the path has no stats files, a hop's
// totals are missing, or perHop finds its figure missing.
func sumHops(files []string, ends, base map[string]relayTotals, perHop func(end, base relayTotals) (float64, bool)) *float64 {
	if len(files) == 0 {
		return nil
	}
	var sum float64
	for _, f := range files {
		end, ok := ends[f]
		if !ok {
			return nil
		}
		v, ok := perHop(end, base[f])
		if !ok {
			return nil
		}
		sum += v
	}
	return &sum
}
