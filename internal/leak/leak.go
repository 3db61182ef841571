package leak

import (
	"flag"
	"fmt"
	"net"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"
)

// Check holds what was open before the tests ran.
type Check struct {
	pkg        string
	fds        int
	open       map[string]string // fd number -> what it refers to, at Start
	goroutines int
	settle     time.Duration // Finish's bound on waiting (the const, but in this package's tests)
}

// Start counts open fds and live goroutines. It first starts the runtime's
// netpoller, whose epoll fd and eventfd open on first use and stay open.
func Start(pkg string) *Check {
	if ln, err := net.Listen("tcp", "127.0.0.1:0"); err == nil {
		ln.Close()
	}
	open := fdTargets()
	return &Check{pkg: pkg, fds: openFDs(), open: open, goroutines: runtime.NumGoroutine(), settle: settle}
}

// settle bounds how long Finish waits for things being released as it
// looks: goroutines the tests waited for may still be running their last
// deferred calls, and Go's splice pipe pool is closed by cleanups that run
// two GCs after the pool's last use, on the runtime's cleanup goroutine.
// There is no event to wait on for either, so it polls. The bound is paid
// only when something is still open; it is generous because a machine
// loaded with a busy loop per CPU and two test binaries schedules that
// goroutine late, and a descriptor it closes is not a leak.
const settle = 10 * time.Second

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
	for deadline := time.Now().Add(c.settle); (fds > 0 || gs > 0) && time.Now().Before(deadline); {
		runtime.GC()
		runtime.Gosched()
		time.Sleep(10 * time.Millisecond)
		fds, gs = leaked()
	}
	if c.fds >= 0 && fds > 0 {
		fmt.Fprintf(os.Stderr, "%s: tests leaked %d file descriptors%s\n", c.pkg, fds, c.newFDs())
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

// fdTargets maps each open fd's number to what /proc says it refers to
// ("socket:[1234]", "pipe:[5678]", a path).
func fdTargets() map[string]string {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil
	}
	m := make(map[string]string, len(ents))
	for _, e := range ents {
		if t, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil {
			m[e.Name()] = t
		}
	}
	return m
}

// newFDs names the fds open now that were not open (or referred to
// something else) at Start, as " (fd 7 socket:[1234], …)", so that a
// leak says which kind of descriptor a test left: a socket, a pipe of
// Go's splice pool, an epoll instance.
func (c *Check) newFDs() string {
	var added []string
	for fd, t := range fdTargets() {
		if c.open[fd] != t {
			added = append(added, "fd "+fd+" "+t)
		}
	}
	if len(added) == 0 {
		return ""
	}
	slices.Sort(added)
	return " (" + strings.Join(added, ", ") + ")"
}
