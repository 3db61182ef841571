package hoptest

import "testing"

func TestCheckJSONRejects(t *testing.T) {
	for _, bad := range []string{
		`{"schema":"hoplat.pingpong.v1"}`,
		`{"schema":"hoplat.hopbench.v1","config":{},"env":{}}`,
		`{"schema":"hoplat.hopbench.v1","config":{},"env":{},"paths":[{"name":"epoll tcp->tcp","relay":"epoll","client_transport":"tcp","upstream_transport":"tcp","hops":1,"threads":1,"tps":1,"errors":0,"latency_us":{"p50":1,"p95":1,"p99":1}}]}`,
		`{"schema":"hoplat.hopbench.v1","config":{},"env":{},"paths":[],"chains":[{"relay":"epoll","transport":"tcp","per_hop_us":1,"intercept_us":1,"r2":1,"hops":[0,1],"p50_us":[1],"per_hop_ci95":[0,2]}]}`,
	} {
		if err := CheckJSON([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}
