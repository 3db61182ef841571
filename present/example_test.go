package present_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/present"
)

// A run of one direct path, printed as --format json prints it: the
// schema first.
func ExampleWrite() {
	rep := &hop.Report{Schema: hop.Schema, Paths: []hop.PathResult{{Name: "direct tcp", Relay: hop.Direct,
		ClientTransport: hop.TCP, UpstreamTransport: hop.TCP, Threads: 1, LatencyUs: hop.Latency{P50: 25, P99: 50}}}}
	var b bytes.Buffer
	if err := present.Write(&b, "json", present.Brief, rep); err != nil {
		panic(err)
	}
	first, _, _ := strings.Cut(strings.TrimPrefix(b.String(), "{\n"), "\n")
	fmt.Println(strings.TrimSpace(first))
	// Output:
	// "schema": "hoplat.hopbench.v1",
}
