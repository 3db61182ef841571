package tracer_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/hoplat/hoplat/tracer"
)

// How a driver traces one round of a path: follow its processes, calibrate
// once, trace a window, take the median and p99 requests' splits. It needs
// root (or CAP_BPF and CAP_PERFMON), so it has no Output to check.
func ExampleOpen() {
	// The path's processes by pid: here the client alone; a driver adds
	// the relay's ("relay") and the server's ("server"), or follows them
	// with tr.Follow once started.
	tr, err := tracer.Open(tracer.Config{Components: map[int]string{os.Getpid(): "client"}})
	if errors.Is(err, errors.ErrUnsupported) {
		fmt.Println("method probe:", err) // e.g. "tracer: needs root or CAP_BPF and CAP_PERFMON: ..."
		return
	}
	if err != nil {
		panic(err)
	}
	defer tr.Close()
	perEvent, err := tr.Calibrate(context.Background())
	if err != nil {
		panic(err)
	}
	if err := tr.Start(); err != nil {
		panic(err)
	}
	// ... run the traced round ...
	trace, err := tr.Stop()
	if err != nil {
		panic(err)
	}
	reqs := trace.Requests()
	p50, _ := tracer.Quantile(reqs, 0.5)
	p99, _ := tracer.Quantile(reqs, 0.99)
	fmt.Printf("%d requests, identity %.1f%%, %v per record\n", len(reqs), tracer.IdentityPct(reqs), perEvent)
	fmt.Println("p50:", p50.Split().Fields())
	fmt.Println("p99:", p99.Split().Fields())
}
