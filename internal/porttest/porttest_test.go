package porttest_test

import (
	"errors"
	"net"
	"strconv"
	"syscall"
	"testing"

	"github.com/hoplat/hoplat/internal/porttest"
)

// Nothing listens on the port Closed returns: a dial is refused.
func TestClosedRefuses(t *testing.T) {
	port := porttest.Closed(t)
	if port <= 0 || port > 65535 {
		t.Fatalf("port %d", port)
	}
	c, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err == nil {
		c.Close()
		t.Fatalf("dial %d connected", port)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dial %d: %v, want connection refused", port, err)
	}
}
