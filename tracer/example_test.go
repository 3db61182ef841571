package tracer_test

import (
	"fmt"

	"github.com/hoplat/hoplat/tracer"
)

// A request assembled from synthetic events: a client (pid 10) and a
// server (pid 20) on CPU 0. The client's write wakes the server, which
// runs once the client blocks in its read, answers, and wakes the client.
func ExampleAssemble() {
	const client, server = 10, 20
	var events []tracer.Event
	ev := func(t uint64, k tracer.Kind, cur, other uint32, arg uint64) {
		e := tracer.Event{Time: t, Kind: k, Tid: cur, Tgid: cur, Tid2: other, Tgid2: other, Arg: arg}
		if k == tracer.KindSysEnter {
			e.Arg2 = 3 // the fd
		}
		events = append(events, e)
	}
	// Three round trips of 3 µs each; the first and the last are left out.
	for i := range uint64(3) {
		b := 1000 + i*3000
		ev(b+0, tracer.KindSysEnter, client, 0, 1) // write(3, ...)
		ev(b+800, tracer.KindWaking, client, server, 0)
		ev(b+1000, tracer.KindSysExit, client, 0, 64)
		ev(b+1100, tracer.KindSysEnter, client, 0, 0) // read(3, ...)
		ev(b+1200, tracer.KindSwitch, client, server, 1)
		ev(b+1500, tracer.KindSysExit, server, 0, 64) // server's read
		ev(b+1600, tracer.KindSysEnter, server, 0, 1) // server's write
		ev(b+2000, tracer.KindWaking, server, client, 0)
		ev(b+2200, tracer.KindSysExit, server, 0, 64)
		ev(b+2300, tracer.KindSysEnter, server, 0, 0)
		ev(b+2400, tracer.KindSwitch, server, client, 1)
		ev(b+2500, tracer.KindSysExit, client, 0, 64)
	}
	cfg := tracer.Config{Components: map[int]string{client: "client", server: "server"}}
	for _, r := range tracer.Assemble(cfg, events, 0) {
		fmt.Printf("round trip %v, identity %.0f%%\n", r.RTT(), r.IdentityPct())
		for _, g := range r.Segments {
			fmt.Printf("%-8s %-6s %v\n", g.Kind, g.Component, g.Duration())
		}
		fmt.Println(r.Split().Fields())
	}
	// Output:
	// round trip 2.5µs, identity 0%
	// leg      client 800ns
	// runnable server 400ns
	// kernel   server 300ns
	// user     server 100ns
	// leg      server 400ns
	// runnable client 400ns
	// kernel   client 100ns
	// relay_user 0.0 relay_kernel 0.0 runnable 0.8 idle_exit 0.0 softirq 0.0 legs 1.2 endpoints 0.5 other 0.0
}
