package porttest

import (
	"net"
	"testing"
)

// Closed returns a port on 127.0.0.1 that the kernel just gave a TCP
// listener, closed again before it returns: a dial to it is refused until
// something listens there. The kernel hands out ephemeral ports in turn,
// so another process taking it before the test uses it is unlikely, not
// impossible.
func Closed(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return port
}
