package relay

import (
	"errors"
	"io"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hoplat/hoplat/sockets"
)

// conn is one relayed connection, owned by one loop for its whole life.
//
// The fields an event reads on every message come first, and a half's
// before its cold ones, so that an event touches two or three cache lines
// of the conn instead of four: at 64 connections the kernel's work
// for the other connections' messages has most often evicted a
// connection's lines by the time its next message comes (perf annotate put
// over half of event's samples on its first load of the conn).
type conn struct {
	gen        int32
	slot       int32
	fd         [2]int // sock[0] and sock[1]'s descriptors, which the loop holds open until closeConn
	connecting bool   // non-blocking connect to upstream in progress
	closed     bool
	noSplice   bool                 // splice(2) refused on this pair: read/write instead
	lazyOut    [2]bool              // sock[s] is a UNIX stream: EPOLLOUT registered only while needed (armOut)
	outOn      [2]bool              // EPOLLOUT is registered on sock[s] now
	lk         *sync.Mutex          // held while a chunk moves: LockConn, LockGlobal; nil with LockNone
	stamps     [2]*sockets.StampBuf // receive stamps of sock[d], timed runs on TCP; nil without
	dir        [2]half              // ClientToUpstream, UpstreamToClient: dir[d] reads sock[d], writes sock[1-d]

	ends            // sockets, upstream: the lifecycle's part (lifecycle_linux.go)
	mu   sync.Mutex // LockConn
}

// lock takes the lock Config.Lock holds while a chunk moves, if any: a
// branch on nil rather than a no-op Locker, whose interface call every read
// and write paid with the default LockNone.
func (c *conn) lock() {
	if c.lk != nil {
		c.lk.Lock()
	}
}

func (c *conn) unlock() {
	if c.lk != nil {
		c.lk.Unlock()
	}
}

// half is one direction's state. When the destination is full the unsent
// bytes wait here (pend, or inPipe bytes in a pipe) and the source is not
// read again until they are gone: memory per direction stays within one
// buffer and a stalled connection generates no events.
type half struct {
	pend   []byte
	inPipe int
	eof    bool   // source sent FIN
	shut   bool   // FIN passed on: shutdown(SHUT_WR) on the destination
	own    []byte // pend's backing array, Buffer bytes, taken from the loop's spares
	pipe   *pipe
	since  int64 // wake-up that read the pending bytes
}

func (h *half) pending() bool { return len(h.pend) > 0 || h.inPipe > 0 }

// accept takes the listener's queued connections (lifecycle_linux.go).
func (l *loop) accept() { l.acceptConns(l.add) }

// connEvents is what a relayed socket is registered for: edge-triggered,
// once for both directions, so no epoll_ctl per pause and resume.
// EPOLLRDHUP tells a short read that a FIN is queued behind the data, so
// it reads on to the EOF.
const connEvents = unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLET

// A UNIX stream socket is registered without EPOLLOUT but while a write to
// it waits for room (or its connect completes): the peer's every read of
// what the relay sent frees the relay's send buffer and wakes every
// waiter on the socket (unix_write_space), where TCP wakes only a writer
// that found no room (sk_stream_write_space). Registered for EPOLLOUT, a
// loop asleep in epoll_wait is woken for nothing once per message it
// relays to a UNIX client, and on the client's CPU it preempts the client
// on its way out of that read. The cost is an epoll_ctl when a write
// stalls and one when the first EPOLLOUT after it finds nothing pending.

// events is what sock[side] is registered for now.
func (c *conn) events(side int) uint32 {
	if c.lazyOut[side] && !c.outOn[side] {
		return connEvents &^ unix.EPOLLOUT
	}
	return connEvents
}

// armOut registers sock[side] for EPOLLOUT, a write to it having stalled.
// Edge-triggered, the change polls the socket at once: room made since
// the stall is an event already.
func (l *loop) armOut(c *conn, side int) {
	if !c.lazyOut[side] || c.outOn[side] || c.closed {
		return
	}
	c.outOn[side] = true
	if err := l.ctl(unix.EPOLL_CTL_MOD, c.fd[side], c.events(side), c.slot*2+int32(side), c.gen); err != nil {
		l.closeConn(c, err)
	}
}

// disarmOut takes EPOLLOUT off sock[side] when nothing waits to be
// written to it.
func (l *loop) disarmOut(c *conn, side int) {
	if !c.lazyOut[side] || !c.outOn[side] || c.closed || c.dir[1-side].pending() {
		return
	}
	c.outOn[side] = false
	if err := l.ctl(unix.EPOLL_CTL_MOD, c.fd[side], c.events(side), c.slot*2+int32(side), c.gen); err != nil {
		l.closeConn(c, err)
	}
}

func (l *loop) add(cfd, ufd *sockets.FD, up int, tried uint64) {
	c := &conn{ends: ends{sock: [2]*sockets.FD{cfd, ufd}, up: up, tried: tried}, fd: [2]int{cfd.Sysfd(), ufd.Sysfd()}, connecting: true}
	switch l.e.r.cfg.Lock {
	case LockConn:
		c.lk = &c.mu
	case LockGlobal:
		c.lk = &l.e.global
	}
	if l.wakes != nil {
		for side, s := range c.sock {
			// UNIX stream sockets carry no stamps (ErrNoRXTimestamps).
			if s.EnableRXTimestamps() == nil {
				c.stamps[side] = new(sockets.StampBuf)
			}
		}
	}
	c.slot, c.gen = l.put(c)
	c.lazyOut = [2]bool{l.e.r.listen.IsUnix(), l.e.r.pool.addr(up).IsUnix()}
	c.outOn[1] = true // the connect's completion is an EPOLLOUT
	if !l.register(&c.ends, c.slot, c.gen, [2]uint32{c.events(0), c.events(1)}, false) {
		l.closeConn(c, nil)
	}
}

func (l *loop) event(id, gen int32, ev uint32) {
	c, side := l.lookup(id)
	if c == nil || c.gen != gen {
		return
	}
	if c.connecting {
		if side == 1 && ev&(unix.EPOLLOUT|unix.EPOLLERR|unix.EPOLLHUP) != 0 {
			l.connected(c)
		}
		return
	}
	const readable = unix.EPOLLIN | unix.EPOLLRDHUP | unix.EPOLLHUP | unix.EPOLLERR
	if ev&readable == 0 && !c.dir[1-side].pending() {
		// Only room to write, and nothing waits to be written: a
		// wake-up nobody asked for (armOut).
		l.idleOut++
	}
	if ev&readable != 0 {
		// A short read means the receive queue is empty, unless a FIN or
		// an error is pending behind the data (epoll(7)).
		l.pump(c, side, ev&(unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) == 0)
	}
	if other := &c.dir[1-side]; !c.closed && ev&(unix.EPOLLOUT|unix.EPOLLHUP|unix.EPOLLERR) != 0 && other.pending() {
		l.pump(c, 1-side, false)
	}
	if ev&unix.EPOLLOUT != 0 {
		l.disarmOut(c, side)
	}
}

// connected finishes the non-blocking connect to upstream; a failed one
// moves on to the next upstream.
func (l *loop) connected(c *conn) {
	if !l.connectDone(&c.ends) {
		l.redial(c)
		return
	}
	c.connecting = false
	// Whatever the client sent meanwhile raised no new edge: read on
	// until EAGAIN.
	l.pump(c, ClientToUpstream, false)
	if !c.closed {
		l.pump(c, UpstreamToClient, false)
	}
}

// redial connects the connection to the next upstream (nextUpstream), or
// closes it when every upstream has been tried.
func (l *loop) redial(c *conn) {
	if !l.nextUpstream(&c.ends) {
		l.closeConn(c, nil)
		return
	}
	ufd := c.sock[1]
	c.fd[1] = ufd.Sysfd()
	c.lazyOut[1], c.outOn[1] = l.e.r.pool.addr(c.up).IsUnix(), true // connecting
	if c.stamps[1] != nil && ufd.EnableRXTimestamps() != nil {
		c.stamps[1] = nil
	}
	c.gen = l.nextGen()
	if !l.register(&c.ends, c.slot, c.gen, [2]uint32{c.events(0), c.events(1)}, true) {
		l.closeConn(c, nil)
	}
}

// pump moves direction d as far as it can go now: first what is pending,
// then chunk after chunk from the source until it has nothing more, the
// destination is full, or the source has ended (then the FIN is passed on).
func (l *loop) pump(c *conn, d int, shortOK bool) {
	h := &c.dir[d]
	for {
		if h.pending() {
			done, err := l.flush(c, d)
			if err != nil {
				l.closeConn(c, err)
				return
			}
			if !done {
				l.armOut(c, 1-d) // EPOLLOUT on the destination resumes us
				return
			}
		}
		if h.eof {
			l.passFIN(c, d)
			return
		}
		var p progress
		var err error
		if l.e.splice && !c.noSplice {
			p, err = l.moveSplice(c, d)
		} else {
			p, err = l.moveCopy(c, d)
		}
		switch {
		case err == io.EOF:
			h.eof = true
		case err != nil:
			l.closeConn(c, err)
			return
		case h.pending():
			l.armOut(c, 1-d)
			return
		case p == drained, p == short && shortOK:
			return
		}
	}
}

// passFIN shuts the destination's write side once the source has ended and
// everything before the FIN is out, and closes the connection when both
// directions are done.
func (l *loop) passFIN(c *conn, d int) {
	h := &c.dir[d]
	if h.shut {
		return
	}
	h.shut = true
	if err := c.sock[1-d].Shutdown(sockets.ShutWrite); err != nil && !errors.Is(err, unix.ENOTCONN) {
		l.closeConn(c, err)
		return
	}
	if c.dir[1-d].shut {
		l.closeConn(c, nil)
	}
}

// progress is what a chunk move learnt about its source.
type progress uint8

const (
	drained progress = iota // EAGAIN: nothing queued now
	short                   // read less than asked: queue empty, unless a FIN is behind it
	full                    // more may be queued
)

// moveCopy reads one chunk into the loop's buffer and writes it on; a
// partial write leaves the rest pending.
func (l *loop) moveCopy(c *conn, d int) (progress, error) {
	h := &c.dir[d]
	c.lock()
	n, rerr := l.read(c, d)
	if n == 0 {
		c.unlock()
		if errors.Is(rerr, sockets.ErrWouldBlock) {
			return drained, nil
		}
		return drained, rerr
	}
	w, werr := sockets.SendNonblock(c.fd[1-d], l.buf[:n])
	c.unlock()
	l.count(d, n)
	if w < n {
		if !errors.Is(werr, sockets.ErrWouldBlock) {
			return drained, werr
		}
		h.own = l.getBuf()
		h.pend = append(h.own[:0], l.buf[w:n]...)
		h.since = l.now
		return short, nil
	}
	if werr != nil {
		return drained, werr
	}
	l.residence(l.now)
	if n < len(l.buf) {
		return short, nil
	}
	return full, nil
}

// read reads one chunk from direction d's source, and on a stamped socket
// records how long the bytes waited between the kernel queueing them and
// this loop's wake-up: the relay's wake-up delay, measured rather than
// inferred.
func (l *loop) read(c *conn, d int) (int, error) {
	if c.stamps[d] == nil {
		return sockets.RecvNonblock(c.fd[d], l.buf)
	}
	n, ts, err := c.sock[d].ReadStamped(l.buf, c.stamps[d])
	if n > 0 {
		l.stamped(ts)
	}
	return n, err
}

// stamped records the wake-up delay of bytes the kernel stamped at ts and
// this loop's current wake-up read.
func (l *loop) stamped(ts time.Time) {
	if !ts.IsZero() {
		// l.now is the wake-up's monotonic reading; epoch carries the
		// wall clock the kernel stamps with.
		l.wakes.record(int64(epoch.Add(time.Duration(l.now)).Sub(ts)))
	}
}

func (l *loop) count(d, n int) {
	l.e.r.counters.bytes[d].Add(int64(n))
	l.e.r.counters.chunks[d].Add(1)
}

func (l *loop) residence(since int64) {
	if l.rec != nil {
		l.rec.record(nanotime() - since)
	}
}

// flush writes what direction d has pending; done means nothing is left.
func (l *loop) flush(c *conn, d int) (done bool, err error) {
	h := &c.dir[d]
	if h.inPipe > 0 {
		return l.flushPipe(c, d)
	}
	c.lock()
	w, err := sockets.SendNonblock(c.fd[1-d], h.pend)
	c.unlock()
	h.pend = h.pend[w:]
	if len(h.pend) > 0 {
		if errors.Is(err, sockets.ErrWouldBlock) {
			return false, nil
		}
		return false, err
	}
	h.pend = nil
	l.putBuf(h.own)
	h.own = nil
	l.residence(h.since)
	return true, nil
}

// maxSpares bounds the pending buffers a loop keeps for reuse.
const maxSpares = 64

func (l *loop) getBuf() []byte {
	if n := len(l.spare); n > 0 {
		b := l.spare[n-1]
		l.spare = l.spare[:n-1]
		return b
	}
	return make([]byte, l.e.r.cfg.Buffer)
}

func (l *loop) putBuf(b []byte) {
	if b != nil && len(l.spare) < maxSpares {
		l.spare = append(l.spare, b)
	}
}

// closeConn closes both sockets (which takes them out of the epoll set),
// after a reset on one side with the other reset too (retire).
func (l *loop) closeConn(c *conn, cause error) {
	if c.closed {
		return
	}
	c.closed = true
	for d := range c.dir {
		h := &c.dir[d]
		if h.pipe != nil {
			if h.inPipe > 0 {
				l.closePipe(h.pipe) // holds bytes nobody will read
			} else {
				l.putPipe(h.pipe)
			}
			h.pipe = nil
		}
		l.putBuf(h.own)
		h.own, h.pend = nil, nil
	}
	l.retire(c.slot, &c.ends, cause)
}
