package driver

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/analysis/hop"
)

// Every series' endpoints are the client's and the server's CPU over its
// kept rounds per request (a warm-up round and a failed one left out, each
// round's requests counted over its warm-up too); a reading missing on
// either side says so instead.
func TestEndpointsPerRequest(t *testing.T) {
	cells := []Cell{{Path: hop.DirectPath(hop.TCP), Threads: 1}, {Path: hop.Path{Relay: hop.Epoll, Client: hop.TCP, Upstream: hop.TCP, Hops: 1}, Threads: 1}}
	round := 2 * time.Second // 1.5 s timed, 0.5 s warm-up
	series := func() []CellRounds {
		out := make([]CellRounds, len(cells))
		for i, c := range cells {
			out[i] = CellRounds{Cell: c, Series: hop.Series{Samples: []hop.Sample{
				{TPS: 1, CPU: time.Second},
				{TPS: 1000, CPU: 20 * time.Millisecond},
				{TPS: 1000, CPU: 24 * time.Millisecond},
				{Failed: "stalled"},
			}}}
		}
		return out
	}
	e := &endpointRounds{roundReads[time.Duration, serverSample]{ran: [][]serverSample{
		{{cpu: time.Second, ok: true}, {cpu: 6 * time.Millisecond, ok: true}, {cpu: 6 * time.Millisecond, ok: true}, {}},
		{{cpu: time.Second, ok: true}, {cpu: 8 * time.Millisecond, ok: true}, {cpu: 10 * time.Millisecond, ok: true}, {}},
	}}}
	s := series()
	e.perRequest(s, 1, round)
	// 44 ms of client over 4000 requests; 12 and 18 ms of server.
	for i, server := range []float64{3, 4.5} {
		got := s[i].Endpoints
		if got == nil || got.Error != "" || math.Abs(got.ClientCPUUs-11) > 1e-9 || math.Abs(got.ServerCPUUs-server) > 1e-9 {
			t.Errorf("series %d: endpoints %+v, want client 11 and server %v µs", i, got, server)
		}
	}

	s = series()
	s[1].Samples[2].CPU = 0 // a round whose client was not read
	e.perRequest(s, 1, round)
	if got := s[1].Endpoints; got == nil || got.Error != "client CPU not read" || got.ClientCPUUs != 0 {
		t.Errorf("client not read: %+v", got)
	}
	e.ran[0][2].ok = false
	s = series()
	e.perRequest(s, 1, round)
	if got := s[0].Endpoints; got == nil || got.Error != "server CPU not read" {
		t.Errorf("server not read in a round: %+v", got)
	}
	e.err = errors.New("no such process")
	s = series()
	e.perRequest(s, 1, round)
	if got := s[1].Endpoints; got == nil || !strings.Contains(got.Error, "no such process") {
		t.Errorf("failed reading: %+v", got)
	}
	if e := newEndpointRounds(2, 3, &Topology{}, false); e.err == nil || !strings.Contains(e.err.Error(), "not a process this run started") {
		t.Errorf("no responder process: %v", e.err)
	}
}
