package event_test

import (
	"fmt"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/driver/event"
)

// counter is a Sink that keeps only what it needs: the rounds that ended
// and how many of them failed.
type counter struct{ ended, failed int }

func (c *counter) Event(e event.Event) {
	if e, ok := e.(event.RoundEnded); ok {
		c.ended++
		if e.Sample.Failed != "" {
			c.failed++
		}
	}
}

// A Sink takes every event and reads the kinds it cares for.
func Example() {
	var c counter
	var sink event.Sink = &c
	path := hop.Path{Relay: hop.Epoll, Client: hop.TCP, Upstream: hop.TCP, Hops: 1}
	sink.Event(event.RoundBegun{Rounds: 3, Cells: 1, Path: path, Threads: 1})
	sink.Event(event.RoundEnded{Path: path, Threads: 1, Sample: hop.Sample{TPS: 1000}})
	sink.Event(event.RoundEnded{Path: path, Threads: 1, Sample: hop.Sample{Failed: "connection refused"}})
	fmt.Printf("%d rounds ended, %d failed\n", c.ended, c.failed)
	// Output: 2 rounds ended, 1 failed
}
