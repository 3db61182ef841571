package hoptest

import (
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/stats"
)

// Synthetic is a default run's report made from fixed figures and put
// through the analysis: direct, goroutine and epoll paths over both client
// transports, five rounds each (the first discarded), socat and HAProxy
// skipped. Its Verdicts are empty: package present says the analysis's
// findings (present.Verdicts), and its tests fill them in. Every call
// builds a new report, free to change.
func Synthetic() *hop.Report {
	directTCP, directUNIX := hop.DirectPath(hop.TCP), hop.DirectPath(hop.UNIX)
	epollTCP := hop.Path{Relay: hop.Epoll, Client: hop.TCP, Upstream: hop.TCP, Hops: 1}
	epollUNIX := hop.Path{Relay: hop.Epoll, Client: hop.UNIX, Upstream: hop.TCP, Hops: 1}
	all := []hop.Series{
		pathSeries(directTCP, 1, 90, 25, 26, 24, 25),
		pathSeries(directUNIX, 1, 90, 18, 19, 17, 18),
		pathSeries(hop.Path{Relay: hop.Goroutine, Client: hop.TCP, Upstream: hop.TCP, Hops: 1}, 1, 200, 70, 72, 69, 71),
		pathSeries(hop.Path{Relay: hop.Goroutine, Client: hop.UNIX, Upstream: hop.TCP, Hops: 1}, 1, 200, 60, 61, 59, 62),
		pathSeries(epollTCP, 1, 200, 62, 63, 61, 62),
		pathSeries(epollUNIX, 1, 200, 52, 54, 51, 53),
	}
	paths, chains := hop.Analyze(all, 1, false)
	r := &hop.Report{
		Schema:   hop.Schema,
		Config:   hop.ReportConfig{Backend: "embedded", Proto: "echo", Paths: []string{"direct tcp"}, Threads: []int{1}, TimeS: 1, Rounds: 5, Discard: 1},
		Env:      affinity.Env{OS: "linux", Arch: "amd64", Cores: 2, GOMAXPROCS: 2, GoVersion: "go1.26"},
		Paths:    paths,
		Chains:   chains,
		Verdicts: []string{},
		Skipped: []hop.Skip{
			{Path: "socat tcp->tcp", Reason: "driver: socat not found next to hopbench or on PATH (install it with `make deps`)"},
			{Path: "haproxy tcp->tcp", Reason: "driver: haproxy not found next to hopbench or on PATH (install it with `make deps`)"},
		},
	}
	return r
}

// pathSeries is p's rounds at the given p50s, p95 and p99 in proportion.
func pathSeries(p hop.Path, threads int, p50s ...float64) hop.Series {
	s := hop.Series{Setting: hop.Setting{Threads: threads}, Path: p}
	for _, v := range p50s {
		s.Samples = append(s.Samples, hop.Sample{Latency: stats.Latency{P50: v, P95: 1.5 * v, P99: 2 * v}, TPS: 1e6 / v})
	}
	return s
}

// Sweep is a sweep's report from fixed figures put through the analysis:
// a direct and an epoll path at two thread counts and two service times,
// and an epoll chain of two hops, with histograms.
func Sweep() *hop.Report {
	hist := func(us int64) *stats.Histogram {
		h := stats.NewHistogram()
		for i := range int64(100) {
			h.Record((us + i%7) * 1000)
		}
		return h
	}
	var all []hop.Series
	add := func(p hop.Path, threads int, svc time.Duration, p50 ...float64) {
		s := hop.Series{Setting: hop.Setting{ServiceTime: svc, Threads: threads}, Path: p}
		for _, v := range p50 {
			s.Samples = append(s.Samples, hop.Sample{Latency: stats.Latency{P50: v, P95: v * 1.2, P99: v * 1.5}, TPS: float64(threads) * 1e6 / v, Hist: hist(int64(v))})
		}
		all = append(all, s)
	}
	direct := hop.DirectPath(hop.TCP)
	epoll := hop.Path{Relay: hop.Epoll, Client: hop.TCP, Upstream: hop.TCP, Hops: 1}
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
	paths, chains := hop.Analyze(all, 1, true)
	rep := &hop.Report{Schema: hop.Schema, Paths: paths, Chains: chains, Skipped: []hop.Skip{}, Verdicts: []string{}}
	return rep
}

// DirectRounds is the report of a run of one direct TCP path whose server
// spent serviceUs per request: six kept rounds, their p50s set at 20 to 22.5
// microseconds plus serviceUs, and serviceUs its one service time. Two make a
// comparison whose only change is the server's.
func DirectRounds(serviceUs float64) *hop.Report {
	p := hop.PathResult{Name: "direct tcp", Relay: hop.Direct, Regime: "packed", Threads: 1, Stable: true}
	for i, v := range []float64{20, 21, 22, 20.5, 21.5, 22.5} {
		p.Rounds = append(p.Rounds, hop.Round{Index: i, Kept: true, P50: v + serviceUs})
	}
	return &hop.Report{Schema: hop.Schema, Env: affinity.Env{Cores: 2},
		Config: hop.ReportConfig{ServiceTimesUs: []float64{serviceUs}}, Paths: []hop.PathResult{p}}
}
