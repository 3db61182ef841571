package sockets

import (
	"fmt"
	"net"
	"os"
	"testing"
)

// TestMain fails the package if its tests leave file descriptors open.
func TestMain(m *testing.M) {
	// The runtime opens its netpoller's epoll fd and eventfd on first use:
	// start it before counting.
	if ln, err := net.Listen("tcp", "127.0.0.1:0"); err == nil {
		ln.Close()
	}
	before := openFDs()
	code := m.Run()
	if after := openFDs(); code == 0 && before >= 0 && after > before {
		fmt.Fprintf(os.Stderr, "sockets: tests leaked %d file descriptors\n", after-before)
		code = 1
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
