package page_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/present/page"
)

// A run of a direct path and one epoll hop, its added p50 split, as one
// page: the hop's row carries its added p50 and the split's bar.
func Example() {
	direct := hop.PathResult{Name: "direct tcp", Relay: hop.Direct, ClientTransport: hop.TCP, Regime: "packed", Threads: 1, Stable: true,
		LatencyUs: hop.Latency{Min: 15, P50: 20, P95: 26, P99: 40, P999: 90, Max: 300}}
	epoll := hop.PathResult{Name: "epoll tcp->tcp", Relay: hop.Epoll, ClientTransport: hop.TCP, Regime: "packed", Threads: 1, Stable: true,
		LatencyUs:     hop.Latency{Min: 40, P50: 58, P95: 70, P99: 95, P999: 200, Max: 900},
		AddedUs:       &hop.Added{Baseline: "direct tcp", P50: 38, CI95P50: [2]float64{36, 40}},
		Decomposition: &hop.Decomposition{RelayCode: 14, Wakeups: 12, Kernel: 11, Residual: 1, Method: "probe"}}
	rep := &hop.Report{Schema: hop.Schema, Env: affinity.Env{Hostname: "db1", Cores: 2}, Paths: []hop.PathResult{direct, epoll},
		CommandLine: []string{"hopbench", "--paths", "direct,epoll"}, Version: "v1.0.0"}
	var b bytes.Buffer
	if err := page.Write(&b, rep); err != nil {
		panic(err)
	}
	page := b.String()
	fmt.Println(strings.HasPrefix(page, "<!DOCTYPE html>"), strings.Contains(page, "<script"))
	fmt.Println(strings.Contains(page, `<span class="nw">tcp-&gt;tcp</span></td><td>58.0</td><td>95.0</td><td>+38.0</td>`))
	fmt.Println(strings.Contains(page, "code 14.0 · wake 12.0 · kernel 11.0 · resid 1.0"))
	// Output:
	// true false
	// true
	// true
}
