package driver

import (
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
)

// TestMain runs the stand-in components when the test binary is started
// under their names (see fakes_test.go), and otherwise the tests, failing
// the package if they leave file descriptors open.
func TestMain(m *testing.M) {
	switch filepath.Base(os.Args[0]) {
	case "pongd":
		os.Exit(fakePongd(os.Args[1:]))
	case "hoprelay":
		os.Exit(fakeHoprelay(os.Args[1:]))
	case "pingpong":
		os.Exit(fakePingpong(os.Args[1:]))
	}
	// Under -race every process sleeps a second at a clean exit to let
	// reports flush; the stand-ins exit dozens of times per run.
	if os.Getenv("GORACE") == "" {
		os.Setenv("GORACE", "atexit_sleep_ms=0")
	}
	// The runtime opens its netpoller's epoll fd and eventfd on first use,
	// and os/exec its pidfd support probe: start both before counting.
	if ln, err := net.Listen("tcp", "127.0.0.1:0"); err == nil {
		ln.Close()
	}
	before := openFDs()
	code := m.Run()
	// The fuzzing coordinator keeps its corpus and worker pipes open.
	fuzzing := flag.Lookup("test.fuzz") != nil && flag.Lookup("test.fuzz").Value.String() != ""
	if after := openFDs(); code == 0 && !fuzzing && before >= 0 && after > before {
		fmt.Fprintf(os.Stderr, "driver: tests leaked %d file descriptors\n", after-before)
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
