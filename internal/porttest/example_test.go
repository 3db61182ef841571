package porttest_test

import (
	"fmt"
	"net"
	"strconv"
	"testing"

	"github.com/hoplat/hoplat/internal/porttest"
)

// A test dials a port nothing listens on, to see its code name the refusal.
func ExampleClosed() {
	var t testing.T // the test's own
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(porttest.Closed(&t)))
	_, err := net.Dial("tcp", addr)
	fmt.Println(err != nil)
	// Output: true
}
