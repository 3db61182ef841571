package sockets

import (
	"fmt"
	"os"
	"testing"

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

// stampKeeper is a listener that asks for receive stamps, as the relay
// keeps one (relay/loop_linux.go): it counts as a stamping socket for as
// long as it is open.
func stampKeeper() (*FD, error) {
	a, err := Parse("TCP4-LISTEN:0,bind=127.0.0.1")
	if err != nil {
		return nil, err
	}
	ln, _, err := RawListen(a)
	if err != nil {
		return nil, err
	}
	if err := ln.EnableRXTimestamps(); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}
