package hoptest_test

import (
	"fmt"

	"github.com/hoplat/hoplat/analysis/hop/hoptest"
)

// A path through a relay that ran cleanly must say what it added.
func ExampleCheckJSON() {
	doc := `{"schema":"hoplat.hopbench.v1","config":{},"env":{},"paths":[
	  {"name":"epoll tcp->tcp","relay":"epoll","client_transport":"tcp","upstream_transport":"tcp",
	   "hops":1,"threads":1,"tps":15000,"errors":0,"latency_us":{"p50":65,"p95":70,"p99":80}}]}`
	fmt.Println(hoptest.CheckJSON([]byte(doc)))
	// Output:
	// hoptest: check json: paths[0] (epoll tcp->tcp) has no added_us
}
