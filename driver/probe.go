package driver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hoplat/hoplat/internal/await"
	"github.com/hoplat/hoplat/sockets"
)

// Probe waits until addr accepts a connection, for components that print no
// readiness line (socat, HAProxy). It retries connect(2) with a backoff that
// starts at 1 ms and doubles to 50 ms, and gives up when p exits (a bind
// failure, a bad config), ctx ends, or timeout passes. The connection is
// closed at once: socat forks a child for it that exits on the EOF, and a
// responder sees a client that left before its first request.
func Probe(ctx context.Context, p *Process, addr sockets.Addr, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	dial := addr
	dial.Role = sockets.RoleConnect
	dial.Opts = sockets.Options{}
	var last error
	err := await.Poll(ctx, p.Done(), 50*time.Millisecond, func() bool {
		c, err := p.dialContext(ctx, networkOf(dial), dial.NetAddr())
		if err != nil {
			last = err
			return false
		}
		c.Close()
		return true
	})
	switch {
	case err == nil:
		return nil
	case errors.Is(err, await.ErrExited):
		return p.exitError("before it accepted connections on " + addr.String())
	default:
		return fmt.Errorf("driver: %s: not accepting on %s after %v: %v (stderr: %s)", p.Name, addr, timeout, last, p.stderr)
	}
}

func networkOf(a sockets.Addr) string {
	if a.IsUnix() {
		return "unix"
	}
	return a.Network
}
