package sockets

import (
	"context"
	"fmt"
	"net"
	"os"

	"golang.org/x/sys/unix"

	"github.com/hoplat/hoplat/internal/osthread"
)

// DialNamespace connects to address from inside the network namespace
// whose file is nsPath (/run/netns/NAME, as ip-netns(8) keeps them), for a
// caller in another namespace that must reach a listener bound there: a
// TCP socket belongs to the namespace it was created in (network_namespaces(7)),
// so the socket is made on an OS thread moved into that namespace with
// setns(2) and the thread is moved back before it serves anything else.
// A UNIX socket path is reachable from any namespace that shares the file
// system, so callers need this only for TCP.
func DialNamespace(ctx context.Context, nsPath, network, address string) (net.Conn, error) {
	// A thread of its own: if it cannot be moved back, the runtime ends
	// it rather than reuse it in the wrong namespace.
	return osthread.Run(func() (net.Conn, error, bool) {
		return dialIn(ctx, nsPath, network, address)
	})
}

func dialIn(ctx context.Context, nsPath, network, address string) (_ net.Conn, _ error, restored bool) {
	orig, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		return nil, fmt.Errorf("sockets: dial %s in %s: own namespace: %w", address, nsPath, err), true
	}
	defer orig.Close()
	ns, err := os.Open(nsPath)
	if err != nil {
		return nil, fmt.Errorf("sockets: dial %s in %s: %w", address, nsPath, err), true
	}
	defer ns.Close()
	if err := unix.Setns(int(ns.Fd()), unix.CLONE_NEWNET); err != nil {
		return nil, fmt.Errorf("sockets: dial %s: setns %s: %w", address, nsPath, err), true
	}
	var d net.Dialer
	c, dialErr := d.DialContext(ctx, network, address)
	if err := unix.Setns(int(orig.Fd()), unix.CLONE_NEWNET); err != nil {
		if c != nil {
			c.Close()
		}
		return nil, fmt.Errorf("sockets: dial %s: setns back from %s: %w", address, nsPath, err), false
	}
	if dialErr != nil {
		return nil, fmt.Errorf("sockets: dial %s in %s: %w", address, nsPath, dialErr), true
	}
	return c, nil, true
}
