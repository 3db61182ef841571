package leak

import (
	"flag"
	"fmt"
	"net"
	"os"
	"runtime"
	"time"
)

// Check holds what was open before the tests ran.
type Check struct {
	pkg        string
	fds        int
	goroutines int
}

// Start counts open fds and live goroutines. It first starts the runtime's
// netpoller, whose epoll fd and eventfd open on first use and stay open.
func Start(pkg string) *Check {
	if ln, err := net.Listen("tcp", "127.0.0.1:0"); err == nil {
		ln.Close()
	}
	return &Check{pkg: pkg, fds: openFDs(), goroutines: runtime.NumGoroutine()}
}

// settle bounds how long Finish waits for things being released as it
// looks: goroutines the tests waited for may still be running their last
// deferred calls, and Go's splice pipe pool is closed by cleanups that run
// after a GC. There is no event to wait on for either, so it polls.
const settle = 2 * time.Second

// Finish returns the exit code for the test binary: code (m.Run's) when
// the tests already failed or a fuzzer runs (the fuzzing engine keeps fds
// and goroutines of its own), else 1 when fds, or goroutines if asked,
// outnumber what Start counted.
func (c *Check) Finish(code int, goroutines bool) int {
	if code != 0 || fuzzing() {
		return code
	}
	leaked := func() (int, int) {
		g := 0
		if goroutines {
			g = runtime.NumGoroutine() - c.goroutines
		}
		return openFDs() - c.fds, g
	}
	fds, gs := leaked()
	for deadline := time.Now().Add(settle); (fds > 0 || gs > 0) && time.Now().Before(deadline); {
		runtime.GC()
		runtime.Gosched()
		time.Sleep(10 * time.Millisecond)
		fds, gs = leaked()
	}
	if c.fds >= 0 && fds > 0 {
		fmt.Fprintf(os.Stderr, "%s: tests leaked %d file descriptors\n", c.pkg, fds)
		code = 1
	}
	if gs > 0 {
		fmt.Fprintf(os.Stderr, "%s: tests leaked %d goroutines\n", c.pkg, gs)
		code = 1
	}
	return code
}

func fuzzing() bool {
	for _, name := range []string{"test.fuzz", "test.fuzzworker"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" && f.Value.String() != "false" {
			return true
		}
	}
	return false
}

func openFDs() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}
