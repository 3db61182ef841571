package pingpong_test

import (
	"flag"
	"fmt"
	"net"
	"os"
	"runtime"
	"testing"
	"time"
)

// TestMain fails the package if its tests leave file descriptors open or
// goroutines running.
func TestMain(m *testing.M) {
	if ln, err := net.Listen("tcp", "127.0.0.1:0"); err == nil {
		ln.Close()
	}
	fds, gs := openFDs(), runtime.NumGoroutine()
	code := m.Run()
	// The fuzzing engine keeps goroutines of its own.
	fuzzing := flag.Lookup("test.fuzz").Value.String() != "" || flag.Lookup("test.fuzzworker").Value.String() == "true"
	if code == 0 && !fuzzing {
		// Goroutines the tests waited for may still be unwinding their
		// last deferred calls.
		for i := 0; i < 100 && runtime.NumGoroutine() > gs; i++ {
			runtime.Gosched()
			time.Sleep(time.Millisecond)
		}
		if after := openFDs(); fds >= 0 && after > fds {
			fmt.Fprintf(os.Stderr, "pingpong: tests leaked %d file descriptors\n", after-fds)
			code = 1
		}
		if g := runtime.NumGoroutine(); g > gs {
			fmt.Fprintf(os.Stderr, "pingpong: tests leaked %d goroutines\n", g-gs)
			code = 1
		}
	}
	os.Exit(code)
}

func openFDs() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}
