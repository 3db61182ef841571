package split_test

import (
	"fmt"

	"github.com/hoplat/hoplat/tracer/split"
)

// A relay path's median request against its direct baseline's: what the
// hop added, in the report's words and by the JSON names.
func ExampleSplit_Minus() {
	relay := split.Split{RelayUser: 6, RelayKernel: 12, RelaySoftirq: 3, Runnable: 2, Legs: 4, Endpoints: 10}
	direct := split.Split{Runnable: 1, Legs: 2, Endpoints: 10}
	hop := relay.Minus(direct)
	fmt.Println(hop)
	fmt.Println(hop.Fields())
	fmt.Printf("relay %.1f of %.1f µs\n", hop.Relay(), hop.Total())
	// Output:
	// relay user 6.0, relay kernel 12.0, relay softirq 3.0, runnable 1.0, legs 2.0
	// relay_user 6.0 relay_kernel 12.0 relay_softirq 3.0 runnable 1.0 idle_exit 0.0 softirq 0.0 legs 2.0 endpoints 0.0 other 0.0
	// relay 21.0 of 24.0 µs
}
