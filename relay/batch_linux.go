package relay

import (
	"errors"
	"io"

	"golang.org/x/sys/unix"

	"github.com/hoplat/hoplat/sockets"
)

// Batched moves (the epoll engine): a wake-up that finds several
// connections readable reads one chunk from each in one io_uring_enter and
// writes them on in a second (sockets.Batch), instead of a recvfrom and a
// sendto per message. Everything else, the waits, partial writes, FINs,
// errors and what a connection does once a chunk was full, stays the
// one-call-per-message path of conn_linux.go, which a batch hands over to.
//
// At one connection, one socket is readable per wake-up and the path is the
// plain one: a Batch is used only when a wake-up has two moves or more.

const (
	// batchSize bounds the moves of one batch; a wake-up with more runs
	// several.
	batchSize = 64
	// batchChunk is each move's buffer: a chunk that fills it continues
	// on the plain path, with the loop's Buffer-sized one.
	batchChunk = 16 << 10
)

// batchOn is what Relay.Batch says when the loops batch their moves.
const batchOn = "io_uring"

// chooseBatch says whether the epoll engine's loops are to batch: batchOn,
// or why not. The loops' own rings are the probe: a loop whose ring the
// kernel refuses says so (newLoop) and makes one call per message.
func chooseBatch(c Config) string {
	switch {
	case c.Engine != EngineEpoll:
		return ""
	case c.NoBatch:
		return "off (--no-batch)"
	}
	return batchOn
}

// move is one readable socket's chunk in a batch.
type move struct {
	c    *conn
	gen  int32
	side int
	ev   uint32
	op   sockets.BatchOp
	n    int // bytes read, then to write
}

// batchable says whether event ev on sock[side] of c is a plain read that a
// batch can make: data readable and no FIN or error behind it, nothing of
// that direction pending or ended, no write the event would also resume,
// no lock to take. A timed TCP read is batched too, as a recvmsg(2) with
// its receive stamp (sockets.Batch.RecvStamped).
func (l *loop) batchable(c *conn, gen int32, side int, ev uint32) bool {
	return c != nil && c.gen == gen && !c.connecting && !c.closed && c.lk == nil &&
		ev&unix.EPOLLIN != 0 && ev&(unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) == 0 &&
		!c.dir[side].pending() && !c.dir[side].eof &&
		(ev&unix.EPOLLOUT == 0 || !c.dir[1-side].pending())
}

// dispatchBatched is dispatch for a loop with a Batch: the listener, the
// wake-up eventfd and every event a batch cannot make are handled in order,
// the plain reads are gathered and made together.
func (l *loop) dispatchBatched(events []unix.EpollEvent) {
	moves := l.moves[:0]
	dispatch(events, l.wake, l.accept, func(ev *unix.EpollEvent) {
		c, side := l.lookup(ev.Fd)
		if !l.batchable(c, ev.Pad, side, ev.Events) {
			l.event(ev.Fd, ev.Pad, ev.Events)
			return
		}
		moves = append(moves, move{c: c, gen: ev.Pad, side: side, ev: ev.Events})
		if len(moves) == batchSize {
			l.runBatch(moves)
			moves = moves[:0]
		}
	})
	l.runBatch(moves)
	clear(moves) // no conn kept alive by the scratch slice
	l.moves = moves[:0]
}

// runBatch makes the gathered moves: every read, then every write of what
// was read. A move whose connection an earlier event or move closed or
// changed is made as a plain event, or dropped with its connection. Should
// the ring itself fail, batching ends for the loop (batchOff): a read it
// never issued is made as a plain event, a write as a plain sendto, and
// what it did complete is finished as usual, so no byte is lost or sent
// twice.
//
// It is a hot loop, kept in one function over 100 lines on purpose: it
// runs on every wake-up that found two or more sockets ready, and its
// read and write passes share the ring's results and the per-move state
// that a split would pass through calls on every message.
func (l *loop) runBatch(moves []move) {
	// One move, or a ring that failed earlier in this wake-up: plain.
	if len(moves) < 2 || l.batch == nil {
		for _, m := range moves {
			l.event(m.c.slot*2+int32(m.side), m.gen, m.ev)
		}
		return
	}
	if l.batchBuf == nil {
		l.batchBuf = make([]byte, batchSize*batchChunk)
	}
	b := l.batch
	b.Reset()
	for i := range moves {
		m := &moves[i]
		if !l.batchable(m.c, m.gen, m.side, m.ev) {
			m.op = -1
			if !m.c.closed && m.c.gen == m.gen {
				l.event(m.c.slot*2+int32(m.side), m.gen, m.ev)
			}
			continue
		}
		if sb := m.c.stamps[m.side]; sb != nil {
			m.op = b.RecvStamped(m.c.fd[m.side], l.chunk(i), sb)
		} else {
			m.op = b.Recv(m.c.fd[m.side], l.chunk(i))
		}
	}
	if b.Len() == 0 {
		return
	}
	failed := b.Do()
	if failed != nil {
		l.batchOff(failed)
		defer b.Close()
	} else {
		l.batches.Add(1)
		l.batched.Add(int64(b.Len()))
	}
	for i := range moves {
		m := &moves[i]
		if m.op < 0 {
			continue
		}
		op := m.op
		m.op, m.n = -1, 0
		if !b.Completed(op) {
			// Never issued: the socket still holds its bytes.
			if !m.c.closed && m.c.gen == m.gen {
				l.event(m.c.slot*2+int32(m.side), m.gen, m.ev)
			}
			continue
		}
		n, err := b.Result(op)
		if n > 0 {
			m.n = n
			if sb := m.c.stamps[m.side]; sb != nil {
				l.stamped(sb.Stamp())
			}
			continue
		}
		h := &m.c.dir[m.side]
		switch {
		case m.c.closed:
		case err == io.EOF:
			h.eof = true
			l.pump(m.c, m.side, false) // passes the FIN on
		case errors.Is(err, sockets.ErrWouldBlock):
		case errors.Is(err, sockets.ErrInterrupted):
			l.pump(m.c, m.side, true)
		default:
			l.closeConn(m.c, err)
		}
		l.afterMove(m)
	}
	if failed == nil {
		b.Reset()
		for i := range moves {
			m := &moves[i]
			if m.n > 0 && !m.c.closed {
				m.op = b.Send(m.c.fd[1-m.side], l.chunk(i)[:m.n])
			}
		}
		if b.Len() > 0 {
			if failed = b.Do(); failed != nil {
				l.batchOff(failed)
				defer b.Close()
			}
		}
	}
	for i := range moves {
		m := &moves[i]
		if m.n == 0 || m.c.closed {
			continue
		}
		p := l.chunk(i)[:m.n]
		var w int
		var err error
		if m.op >= 0 && b.Completed(m.op) {
			w, err = b.Result(m.op)
		} else {
			w, err = sockets.SendNonblock(m.c.fd[1-m.side], p)
		}
		l.count(m.side, m.n)
		l.wrote(m, p, w, err)
		l.afterMove(m)
	}
}

// wrote finishes a batched move whose write took w bytes of p: the rest
// goes as on the plain path (a sendto, then pending bytes and EPOLLOUT if
// the destination is still full), and a chunk that filled its buffer is
// followed by plain reads until the source is drained.
func (l *loop) wrote(m *move, p []byte, w int, err error) {
	c, d := m.c, m.side
	if err != nil && !errors.Is(err, sockets.ErrWouldBlock) && !errors.Is(err, sockets.ErrInterrupted) {
		l.closeConn(c, err)
		return
	}
	if w < len(p) && !errors.Is(err, sockets.ErrWouldBlock) {
		var more int
		more, err = sockets.SendNonblock(c.fd[1-d], p[w:])
		w += more
		if err != nil && !errors.Is(err, sockets.ErrWouldBlock) {
			l.closeConn(c, err)
			return
		}
	}
	if w < len(p) {
		h := &c.dir[d]
		h.own = l.getBuf()
		h.pend = append(h.own[:0], p[w:]...)
		h.since = l.now
		l.armOut(c, 1-d)
		return
	}
	l.residence(l.now)
	if len(p) == batchChunk {
		l.pump(c, d, false)
	}
}

// afterMove does what event does for the EPOLLOUT bit of a batched event.
func (l *loop) afterMove(m *move) {
	if m.ev&unix.EPOLLOUT != 0 {
		l.disarmOut(m.c, m.side)
	}
}

// chunk is move i's buffer.
func (l *loop) chunk(i int) []byte { return l.batchBuf[i*batchChunk : (i+1)*batchChunk] }

// batchOff ends batching for the loop after its ring failed: the loop logs
// why and goes on with one call per message.
func (l *loop) batchOff(err error) {
	l.e.r.cfg.Logf("relay: loop %d: %v (batching off, one call per message)", l.id, err)
	l.batch = nil
}
