package relay_test

import (
	"fmt"
	"net"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/hoplat/hoplat/internal/mariadbtest"
)

// TestMain fails the package if its tests leave file descriptors open.
func TestMain(m *testing.M) {
	// The runtime opens its netpoller's epoll fd and eventfd on first use.
	if ln, err := net.Listen("tcp", "127.0.0.1:0"); err == nil {
		ln.Close()
	}
	before := openFDs()
	code := m.Run()
	if err := mariadbtest.StopShared(); err != nil {
		fmt.Fprintln(os.Stderr, "relay:", err)
	}
	// Go's splice pipe pool is emptied by the GC and closed by cleanups
	// that run after it: wait (bounded) for the count to come down.
	after := openFDs()
	for i := 0; i < 50 && after > before; i++ {
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
		after = openFDs()
	}
	if code == 0 && before >= 0 && after > before {
		fmt.Fprintf(os.Stderr, "relay: tests leaked %d file descriptors\n", after-before)
		code = 1
	}
	os.Exit(code)
}
