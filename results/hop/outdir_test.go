package hop

import (
	"testing"
	"time"

	"github.com/hoplat/hoplat/results/stats"
)

// sweepReport runs the analysis on fixed figures: two paths at two
// thread counts, two service times and a chain, with histograms.
func sweepReport(t *testing.T) *Report {
	t.Helper()
	hist := func(us int64) *stats.Histogram {
		h := stats.NewHistogram()
		for i := range int64(100) {
			h.Record((us + i%7) * 1000)
		}
		return h
	}
	var all []Series
	add := func(p Path, threads int, svc time.Duration, p50 ...float64) {
		s := Series{Setting: Setting{ServiceTime: svc, Threads: threads}, Path: p}
		for _, v := range p50 {
			s.Samples = append(s.Samples, Sample{Latency: stats.Latency{P50: v, P95: v * 1.2, P99: v * 1.5}, TPS: float64(threads) * 1e6 / v, Hist: hist(int64(v))})
		}
		all = append(all, s)
	}
	direct := DirectPath(TCP)
	epoll := Path{Relay: Epoll, Client: TCP, Upstream: TCP, Hops: 1}
	epoll2 := epoll
	epoll2.Hops = 2
	for _, svc := range []time.Duration{0, time.Millisecond} {
		extra := float64(svc.Microseconds())
		for _, threads := range []int{1, 2} {
			add(direct, threads, svc, 25+extra, 26+extra, 24+extra)
			add(epoll, threads, svc, 65+extra, 67+extra, 63+extra)
			add(epoll2, threads, svc, 105+extra, 106+extra, 104+extra)
		}
	}
	paths, chains := Analyze(all, 1, true)
	rep := &Report{Schema: Schema, Paths: paths, Chains: chains, Skipped: []Skip{}}
	rep.Verdicts = Verdicts(rep)
	return rep
}
