package pingpong

import (
	"fmt"
	"syscall"
	"time"

	"github.com/hoplat/hoplat/sockets"
	"github.com/hoplat/hoplat/stats"
)

// Receive-stamped responses (Config.RXStamps): each response is read with
// recvmsg(2) and the kernel's software receive stamp (SO_TIMESTAMPING,
// Documentation/networking/timestamping.rst), and the client records how
// long the response's bytes waited between the kernel queueing them on its
// socket and its reader running again: its wake-up delay, measured. On
// loopback the stamp is taken as the skb enters the receive path
// (netif_rx), in the sender's context, before the TCP receive queue; the
// reader's clock is read as its read returns, so the figure holds the
// wake-up (and, on a CPU the sender shares, whatever the sender still ran
// after queueing the bytes) plus the return of the read itself.
//
// Every I/O model can stamp: netpoll through sockets.StampedReader (the
// netpoller's wait, then recvmsg), blocking through FD.ReadStampedHeld (the
// P kept asleep in recvmsg, as ReadHeld is), spin through FD.ReadStamped
// (busy-polling recvmsg: its "wake-up" is how late the spin saw the bytes).
// UNIX stream sockets carry no receive stamps (sockets.ErrNoRXTimestamps):
// Validate refuses the option on a UNIX target.

// wakes is one worker's stamped wake-ups since its last flush; nil when
// the option is off, and then every method is a no-op.
type wakes struct {
	h         *stats.Histogram
	unstamped int64 // responses whose bytes carried no stamp
}

func newWakes(cfg Config) *wakes {
	if !cfg.RXStamps {
		return nil
	}
	return &wakes{h: stats.NewHistogram()}
}

// record notes one response read at clock t (now) whose bytes the kernel
// stamped at ts, zero when they carried none (the stack switches stamping
// on a moment after the first socket asks: net_enable_timestamp in
// net/core/dev.c defers it to a work queue). The kernel stamps with the
// wall clock; base.Add(t) is the wall time of t, read off the monotonic
// clock (the two advance alike: adjtimex slews both, only a step of the
// wall clock would show here).
func (w *wakes) record(t int64, ts time.Time) {
	if ts.IsZero() {
		w.unstamped++
		return
	}
	w.h.Record(int64(base.Add(time.Duration(t)).Sub(ts)))
}

// flush hands what was recorded in phase p to the step's run p and starts
// empty: the warm-up (p = -1) is dropped, as the latencies are.
func (w *wakes) flush(s *step, p int) {
	if w == nil {
		return
	}
	if p >= 0 && p < len(s.runs) {
		s.mu.Lock()
		r := &s.runs[p]
		r.Wake.Merge(w.h)
		r.Unstamped += w.unstamped
		s.mu.Unlock()
	}
	w.h.Reset()
	w.unstamped = 0
}

// stamp wraps a fresh connection so that the first read after each write
// (the response's first bytes: the read the client woke for) is stamped
// and recorded. With the option off it returns c as it is.
func (w *wakes) stamp(c conn) (conn, error) {
	if w == nil {
		return c, nil
	}
	sc := &stampedConn{conn: c, w: w}
	var err error
	switch c := c.(type) {
	case netConn:
		rc, ok := c.Conn.(syscall.Conn)
		if !ok {
			err = fmt.Errorf("pingpong: receive stamps on a %T connection: not a socket", c.Conn)
			break
		}
		sc.sr, err = sockets.NewStampedReader(rc)
	case *sockets.Held:
		sc.fd, sc.held = c.FD(), true
		err = sc.fd.EnableRXTimestamps()
	case *sockets.FD:
		sc.fd = c
		err = c.EnableRXTimestamps()
	default:
		err = fmt.Errorf("pingpong: receive stamps on a %T connection: unknown I/O model", c)
	}
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("pingpong: --rx-stamps: %w", err)
	}
	return sc, nil
}

// stampedConn is a conn whose response reads carry the kernel's receive
// stamp. Exactly one of sr (netpoll) and fd (blocking: held; spin) is set.
type stampedConn struct {
	conn
	w     *wakes
	sr    *sockets.StampedReader
	fd    *sockets.FD
	held  bool
	buf   sockets.StampBuf
	armed bool // a request went out and its response's first read is to come
}

// Write sends a request and arms the next read's stamp.
func (c *stampedConn) Write(p []byte) (int, error) {
	c.armed = true
	return c.conn.Write(p)
}

// Read reads as the connection's own Read does; the first read that
// returns bytes after a write is made with recvmsg and recorded. The
// reads that complete a response are not: the client was already awake
// for them.
func (c *stampedConn) Read(p []byte) (int, error) {
	if !c.armed {
		return c.conn.Read(p)
	}
	var n int
	var ts time.Time
	var err error
	switch {
	case c.sr != nil:
		n, ts, err = c.sr.Read(p)
	case c.held:
		n, ts, err = c.fd.ReadStampedHeld(p, &c.buf)
	default:
		n, ts, err = c.fd.ReadStamped(p, &c.buf)
	}
	if n > 0 {
		c.armed = false
		c.w.record(now(), ts)
	}
	return n, err
}
