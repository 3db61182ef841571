package driver

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/internal/peer"
)

// TestClientRXStamps runs the real pongd and pingpong on loopback: over
// TCP the round carries the client's stamped wake-up, positive and below
// the round trip it is part of; a UNIX client leg is never asked for one,
// and pingpong refuses the option there by name.
func TestClientRXStamps(t *testing.T) {
	pingpong := peer.Hoplat(t, "pingpong")
	pongd := peer.Hoplat(t, "pongd")
	topo, err := Build(context.Background(), TopologySpec{
		TempRoot:  t.TempDir(),
		Responder: Responder{Proto: ProtoEcho},
		Paths:     []hop.Path{hop.DirectPath(hop.TCP), hop.DirectPath(hop.UNIX)},
		Locate: func(name string) (string, error) {
			if name == "pongd" {
				return pongd, nil
			}
			return Locate(name)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := topo.Stop(); err != nil {
			t.Error(err)
		}
	}()
	c := Client{Proto: ProtoEcho, Time: 300 * time.Millisecond, Warmup: 100 * time.Millisecond, RXStamps: true}
	tcp := c.Args(pingpong, topo.Entries[hop.DirectPath(hop.TCP)], 1)
	if !strings.Contains(strings.Join(tcp, " "), "--rx-stamps") {
		t.Fatalf("TCP leg not stamped: %q", tcp)
	}
	s, err := RunClient(context.Background(), tcp, nil, affinity.CPUSet{})
	if err != nil {
		t.Fatal(err)
	}
	w := s.RXWake
	switch {
	case w == nil:
		t.Fatal("no rx_wake_us from pingpong --rx-stamps over TCP")
	case w.Count == 0 || w.Avg <= 0 || w.P50 <= 0:
		t.Fatalf("rx_wake_us %+v: want stamped responses with a positive wake-up", *w)
	case w.P50 >= s.Latency.P50 || w.Avg >= s.Latency.Avg:
		t.Fatalf("wake-up p50 %v avg %v µs not below the round trip's p50 %v avg %v µs", w.P50, w.Avg, s.Latency.P50, s.Latency.Avg)
	}
	// avg·count/count: equal but for the last bit of rounding.
	if mean := clientWakes([]hop.Sample{s}, 0); mean == nil || math.Abs(*mean-w.Avg) > 1e-9*w.Avg {
		t.Errorf("clientWakes of one stamped round: %v, want %v", mean, w.Avg)
	}
	t.Logf("client wake-up p50 %.1f µs avg %.1f µs of a %.1f µs round trip; %d stamped, %d unstamped", w.P50, w.Avg, s.Latency.P50, w.Count, w.Unstamped)

	unix := c.Args(pingpong, topo.Entries[hop.DirectPath(hop.UNIX)], 1)
	if strings.Contains(strings.Join(unix, " "), "--rx-stamps") {
		t.Fatalf("UNIX leg asked for stamps: %q", unix)
	}
	s, err = RunClient(context.Background(), unix, nil, affinity.CPUSet{})
	if err != nil || s.RXWake != nil {
		t.Fatalf("UNIX round: %v, rx_wake_us %v; want figures and none", err, s.RXWake)
	}
	if _, err := RunClient(context.Background(), append(unix, "--rx-stamps"), nil, affinity.CPUSet{}); err == nil || !strings.Contains(err.Error(), "rx-stamps") {
		t.Fatalf("pingpong --rx-stamps on a UNIX target: %v, want an error naming the flag", err)
	}
}
