package sockets

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"time"
)

// Receive stamps come on for the whole stack at once, and late. A socket
// asking for them (SO_TIMESTAMPING with RX_SOFTWARE, SO_TIMESTAMP[NS])
// counts itself in net_enable_timestamp (net/core/dev.c), and the stack
// stamps packets only while the static key netstamp_needed_key is on.
// While other sockets ask, the key is on already and the count just
// rises; the first asker, though, only queues netstamp_work, and the key
// is flipped when a kworker runs it: within a millisecond on an idle
// machine, but that kworker waits for a CPU like any thread, and under
// load the wait grows, beside a busy loop per CPU long enough for a
// short run to see no stamp at all (docs/measurements.md, "Receive
// stamps"). The last socket to close queues the same work to switch
// the key off again, so each test that opens and closes its own stamped
// sockets can meet the delay anew.
//
// The count is what the key follows: each flip sets it on if any socket
// still asks. So a socket that asks, held open from the moment one of its
// reads came back stamped, keeps the key on for as long as it lives,
// whatever other sockets (in this process or any other) open and close.

// StampKeeper holds one loopback connection that asks for receive stamps,
// so that the stack keeps stamping until Close (see KeepRXStamps).
type StampKeeper struct {
	c, s net.Conn
	// Unstamped is how many reads came back unstamped before the first
	// stamped one, Waited how long that took: the kernel's delay in
	// switching stamping on, or zero reads when it was on already.
	Unstamped int
	Waited    time.Duration
}

// KeepRXStamps opens a loopback TCP connection that asks for receive
// stamps and returns once a byte sent over it comes back stamped: from
// then until Close, every packet the stack receives is stamped, and a
// measurement (or a test) that starts after it sees no unstamped data for
// the kernel's reasons. It waits for that event, one byte a round trip,
// until ctx ends. Where the platform has no receive stamps it returns an
// error wrapping errors.ErrUnsupported.
func KeepRXStamps(ctx context.Context) (*StampKeeper, error) {
	fail := func(err error) (*StampKeeper, error) {
		return nil, fmt.Errorf("sockets: keep receive stamps on: %w", err)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp4", "127.0.0.1:0")
	if err != nil {
		return fail(err)
	}
	defer ln.Close()
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp4", ln.Addr().String())
	if err != nil {
		return fail(err)
	}
	s, err := ln.Accept() // queued by the connect that just returned
	if err != nil {
		c.Close()
		return fail(err)
	}
	k := &StampKeeper{c: c, s: s}
	r, err := NewStampedReader(s.(*net.TCPConn))
	if err != nil {
		k.Close()
		return fail(err)
	}
	if dl, ok := ctx.Deadline(); ok {
		s.SetReadDeadline(dl)
	}
	start := time.Now()
	b := []byte{0}
	for {
		if err := context.Cause(ctx); err != nil {
			k.Close()
			return fail(fmt.Errorf("%d reads over %v came back unstamped: %w", k.Unstamped, time.Since(start), err))
		}
		if _, err := c.Write(b); err != nil {
			k.Close()
			return fail(err)
		}
		_, ts, err := r.Read(b)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			continue // ctx's deadline: the next turn says so
		}
		if err != nil {
			k.Close()
			return fail(err)
		}
		if !ts.IsZero() {
			k.Waited = time.Since(start)
			return k, nil
		}
		k.Unstamped++
	}
}

// Close closes the connection; the stack stops stamping a moment later
// unless another socket asks.
func (k *StampKeeper) Close() error {
	err := k.c.Close()
	if e := k.s.Close(); err == nil {
		err = e
	}
	return err
}
