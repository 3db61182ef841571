package driver

import (
	"testing"
	"time"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/stats"
)

// TestAnalyzeKeepsStagesApart: a series is compared only with the direct
// path of its own stage and thread count, and its result carries them.
func TestAnalyzeKeepsStagesApart(t *testing.T) {
	series := func(st Stage, threads int, p hop.Path, p50 float64) CellRounds {
		s := CellRounds{Stage: st, Cell: Cell{Path: p, Threads: threads}}
		for range 3 {
			s.Samples = append(s.Samples, hop.Sample{Latency: stats.Latency{P50: p50, P99: 2 * p50}, TPS: 1e6 / p50})
		}
		return s
	}
	fast, slow := Stage{Size: 64}, Stage{ServiceTime: time.Millisecond, Size: 64, Rows: 3}
	epoll := hop.Path{Relay: hop.Epoll, Client: hop.TCP, Upstream: hop.TCP, Hops: 1}
	paths, _ := Analyze([]CellRounds{
		series(fast, 1, hop.DirectPath(hop.TCP), 20), series(fast, 1, epoll, 60),
		series(slow, 1, hop.DirectPath(hop.TCP), 1020), series(slow, 1, epoll, 1070),
		series(fast, 4, hop.DirectPath(hop.TCP), 30), series(fast, 4, epoll, 100),
	}, 0, nil)
	for i, want := range []struct {
		svc     float64
		rows    int
		threads int
		added   float64
	}{{0, 0, 1, 40}, {1000, 3, 1, 50}, {0, 0, 4, 70}} {
		p := paths[2*i+1]
		if p.ServiceTimeUs != want.svc || p.Size != 64 || p.Rows != want.rows || p.Threads != want.threads || p.AddedUs == nil || p.AddedUs.P50 != want.added {
			t.Errorf("%s: service %v size %d rows %d threads %d added %+v; want %+v", p.Name, p.ServiceTimeUs, p.Size, p.Rows, p.Threads, p.AddedUs, want)
		}
	}
}
