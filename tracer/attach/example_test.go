package attach_test

import (
	"fmt"

	"github.com/hoplat/hoplat/tracer"
	"github.com/hoplat/hoplat/tracer/attach"
)

// Analyze matches a request's arrival on the socket a proxy accepted
// (local port 8080) to the send of its last byte upstream.
func ExampleAnalyze() {
	events := []tracer.Event{
		{Time: 1000, Kind: tracer.KindDataReady, Arg: 0xa0, Tid2: 1100, Tgid2: 8080 << 16},
		{Time: 3000, Kind: tracer.KindRecv, Tid: 42, Arg: 0xa0, Arg2: 100, Tid2: 1100, Tgid2: 8080 << 16},
		{Time: 4000, Kind: tracer.KindSend, Tid: 42, Arg: 0xb0, Arg2: 100},
	}
	attach.Analyze(events, func(local, _ uint16) bool { return local == 8080 }, func(c attach.Chunk) {
		fmt.Println(c.Direction, c.Bytes, "bytes, residence", c.Residence(), "on CPU", c.Split.OnCPU)
	})
	// Output: to_upstream 100 bytes, residence 3µs on CPU 3µs
}
