package sockets

import (
	"fmt"
	"net"
	"os"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/hoplat/hoplat/internal/leak"
)

// TestMain fails the package if its tests leave file descriptors open.
//
// It also holds one socket with receive stamps on for the whole run. The
// kernel switches stamping for the stack off from a work queue when the
// last stamping socket is freed (net_disable_timestamp): without a keeper,
// a test's socket closing could turn stamps off under the next test after
// that test had already seen its first stamp.
func TestMain(m *testing.M) {
	keeper, err := stampKeeper()
	if err != nil {
		fmt.Fprintln(os.Stderr, "sockets: stamp keeper:", err)
		os.Exit(1)
	}
	check := leak.Start("sockets")
	code := check.Finish(m.Run(), false)
	keeper.Close()
	os.Exit(code)
}

// stampKeeper opens a UDP socket on loopback with SO_TIMESTAMPNS set, which
// counts as a stamping socket for as long as it is open.
func stampKeeper() (net.PacketConn, error) {
	c, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	rc, err := c.(*net.UDPConn).SyscallConn()
	if err != nil {
		c.Close()
		return nil, err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
	}); err != nil {
		serr = err
	}
	if serr != nil {
		c.Close()
		return nil, serr
	}
	return c, nil
}
