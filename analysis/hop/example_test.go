package hop_test

import (
	"fmt"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/stats"
)

// Four interleaved rounds of a direct path and the same path through one
// epoll relay: the machine drifts between rounds (round 2 is slow for
// both), but pairing each relay round with the direct round beside it
// leaves what the hop adds.
func ExampleAnalyze() {
	rounds := func(p hop.Path, p50s ...float64) hop.Series {
		s := hop.Series{Setting: hop.Setting{Threads: 1}, Path: p}
		for _, v := range p50s {
			s.Samples = append(s.Samples, hop.Sample{Latency: stats.Latency{P50: v, P99: 2 * v}, TPS: 1e6 / v})
		}
		return s
	}
	epoll := hop.Path{Relay: hop.Epoll, Client: hop.TCP, Upstream: hop.TCP, Hops: 1}
	paths, _ := hop.Analyze([]hop.Series{
		rounds(hop.DirectPath(hop.TCP), 25, 26, 60, 25),
		rounds(epoll, 65, 67, 99, 66),
	}, 0, false)
	for _, p := range paths[1:] {
		a := p.AddedUs
		fmt.Printf("%s adds %s µs over %s [%s, %s, covering %.1f%%], %d pairs\n",
			p.Name, hop.Us(a.P50), a.Baseline, hop.Us(a.CI95P50[0]), hop.Us(a.CI95P50[1]), 100*a.CILevel, a.Pairs)
	}
	// Output:
	// epoll tcp->tcp adds 40.5 µs over direct tcp [39.0, 41.0, covering 87.5%], 4 pairs
}
