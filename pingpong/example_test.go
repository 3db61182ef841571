package pingpong_test

import (
	"context"
	"fmt"
	"time"

	"github.com/hoplat/hoplat/pingpong"
	"github.com/hoplat/hoplat/pingpong/echo"
	"github.com/hoplat/hoplat/responder"
	respecho "github.com/hoplat/hoplat/responder/echo"
	"github.com/hoplat/hoplat/sockets"
)

// A responder and the load client in one process: two threads, blocking
// I/O on both ends, two runs of which the first is discarded.
func ExampleRun() {
	listen, _ := sockets.Parse("tcp:127.0.0.1:0")
	srv := &responder.Server{Listen: []sockets.Addr{listen}, IO: pingpong.Blocking, Handler: respecho.Handler{}}
	if err := srv.Start(context.Background()); err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()

	rep, err := pingpong.Run(context.Background(), pingpong.Config{
		Target:   srv.Addrs()[0],
		Protocol: echo.Protocol{Size: 64},
		Threads:  []int{2},
		Time:     50 * time.Millisecond,
		Runs:     2,
		Discard:  1,
		IO:       pingpong.Blocking,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range rep.Results() {
		// Every run is timed, but which run a round trip lands in is the
		// machine's to decide: one stalled past a whole run (a busy host
		// can stop a VM for longer than 50 ms) leaves that run empty. The
		// first round trip always lands in the first run, so that
		// "measured" holds on any machine that answers at all.
		var events int64
		for _, r := range s.Runs {
			events += r.Events
		}
		fmt.Printf("threads %d: %d runs, %d kept, errors %d, measured %v\n",
			s.Threads, len(s.Runs), s.TPS.N, s.Errors, events > 0)
	}
	// Output:
	// threads 2: 2 runs, 1 kept, errors 0, measured true
}
