package mysql

import (
	"errors"
	"fmt"
	"io"
)

// maxPayload is the largest payload one packet carries; a longer payload is
// split into packets of exactly this size followed by a shorter (possibly
// empty) one, and the reader concatenates until it sees the short packet.
const maxPayload = 0xFFFFFF

// defaultMaxMessage caps a reassembled message. MariaDB's max_allowed_packet
// defaults to 16 MiB; four times that leaves room for any result row either
// end produces while keeping a hostile length prefix from growing memory
// without bound.
const defaultMaxMessage = 64 << 20

// ErrPacketTooLarge reports a packet whose declared length exceeds the
// connection's limit (max_allowed_packet once logged in, far less before).
// The declared length is checked before any of the payload is buffered.
var ErrPacketTooLarge = errors.New("mysql: packet too large")

// ErrOutOfOrder reports a packet whose sequence id is not the one expected:
// the two ends have lost sync and the connection cannot be trusted.
var ErrOutOfOrder = errors.New("mysql: packets out of order")

// packetConn frames payloads over a byte stream. One sequence counter serves
// both directions, as the protocol requires: it is reset to 0 before each
// command and advances by one for every packet read or written.
//
// The read buffer is reused: a payload returned by readPacket is valid only
// until the next read. Writes accumulate in wbuf and leave in one Write call.
type packetConn struct {
	rw  io.ReadWriter
	seq uint8

	rbuf       []byte // buffered input; rbuf[r:w] is unread
	r, w       int
	big        []byte // reassembly of payloads of 16 MiB or more
	maxMessage int

	wbuf     []byte
	pktStart int // offset of the open packet's header in wbuf, or -1
}

func newPacketConn(rw io.ReadWriter) *packetConn {
	return newPacketConnSize(rw, 16<<10, 16<<10)
}

// newPacketConnSize starts the buffers at the given sizes; they grow as
// bytes arrive or are appended.
func newPacketConnSize(rw io.ReadWriter, rsize, wsize int) *packetConn {
	return &packetConn{
		rw:         rw,
		rbuf:       make([]byte, rsize),
		wbuf:       make([]byte, 0, wsize),
		maxMessage: defaultMaxMessage,
		pktStart:   -1,
	}
}

// resetSeq starts a new command exchange.
func (c *packetConn) resetSeq() { c.seq = 0 }

// fill makes at least n unread bytes available in rbuf. The buffer grows
// only when it is full of bytes that did arrive, and then at most doubles:
// a header declaring 16 MiB costs memory in proportion to the bytes that
// follow it, never to the declaration.
func (c *packetConn) fill(n int) error {
	if c.w-c.r >= n {
		return nil
	}
	if len(c.rbuf)-c.r < n && c.r > 0 {
		c.w = copy(c.rbuf, c.rbuf[c.r:c.w])
		c.r = 0
	}
	for c.w-c.r < n {
		if c.w == len(c.rbuf) {
			// Full of unread bytes (r is 0 here: compacted above or
			// never advanced), and still fewer than n.
			nb := make([]byte, min(max(2*len(c.rbuf), 512), n))
			c.w = copy(nb, c.rbuf[c.r:c.w])
			c.r = 0
			c.rbuf = nb
		}
		m, err := c.rw.Read(c.rbuf[c.w:])
		c.w += m
		if err != nil {
			if c.w-c.r >= n {
				return nil
			}
			if errors.Is(err, io.EOF) && c.w-c.r > 0 {
				return io.ErrUnexpectedEOF
			}
			return err
		}
	}
	return nil
}

// readFrame reads one packet and checks its sequence id. already is the
// length reassembled so far: the limit applies to the declared length before
// any of it is buffered.
func (c *packetConn) readFrame(already int) ([]byte, error) {
	if err := c.fill(4); err != nil {
		return nil, err
	}
	h := c.rbuf[c.r : c.r+4]
	n := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
	if h[3] != c.seq {
		return nil, c.outOfOrder(h[3], n)
	}
	// The id is consumed before the length is judged, so that an ERR
	// refusing the packet carries the next one.
	c.seq++
	if already+n > c.maxMessage {
		if already > 0 {
			return nil, fmt.Errorf("%w: read packet: reassembled length %d exceeds limit %d", ErrPacketTooLarge, already+n, c.maxMessage)
		}
		return nil, fmt.Errorf("%w: read packet: length %d exceeds limit %d", ErrPacketTooLarge, n, c.maxMessage)
	}
	if err := c.fill(4 + n); err != nil {
		return nil, err
	}
	p := c.rbuf[c.r+4 : c.r+4+n]
	c.r += 4 + n
	return p, nil
}

// outOfOrder builds the error for a packet with sequence id got. A server
// about to close an idle connection (MySQL 8.0.24+, error 4031) sends an
// unsolicited ERR with sequence 0; its message is the real diagnosis, so it
// is read and reported along with the desynchronisation.
func (c *packetConn) outOfOrder(got uint8, n int) error {
	err := fmt.Errorf("%w: got sequence id %d, want %d", ErrOutOfOrder, got, c.seq)
	if n == 0 || n > 4096 || c.fill(4+n) != nil {
		return err
	}
	p := c.rbuf[c.r+4 : c.r+4+n]
	c.r += 4 + n
	if p[0] != headerErr {
		return err
	}
	return fmt.Errorf("%w: %w", err, parseErr(p))
}

// readPacket returns the next logical payload, reassembling one that was
// split at 16 MiB boundaries. The slice is valid until the next read.
func (c *packetConn) readPacket() ([]byte, error) {
	p, err := c.readFrame(0)
	if err != nil || len(p) < maxPayload {
		return p, err
	}
	c.big = append(c.big[:0], p...)
	for {
		p, err = c.readFrame(len(c.big))
		if err != nil {
			return nil, err
		}
		c.big = append(c.big, p...)
		if len(p) < maxPayload {
			return c.big, nil
		}
	}
}

// begin opens a packet in the write buffer and returns the buffer to append
// the payload to; the caller stores the result back with end.
func (c *packetConn) begin() []byte {
	c.pktStart = len(c.wbuf)
	return append(c.wbuf, 0, 0, 0, 0)
}

// end closes the packet opened by begin, whose payload is the tail of b, and
// assigns it the next sequence id. A payload of 16 MiB or more is split, with
// an empty final packet when its length is a multiple of 0xFFFFFF: without
// it the peer waits for more (verified against MariaDB).
func (c *packetConn) end(b []byte) {
	start := c.pktStart
	c.pktStart = -1
	n := len(b) - start - 4
	if n < maxPayload {
		putHeader(b[start:], n, c.seq)
		c.seq++
		c.wbuf = b
		return
	}
	payload := append([]byte(nil), b[start+4:]...)
	b = b[:start]
	for {
		chunk := min(len(payload), maxPayload)
		b = append(b, byte(chunk), byte(chunk>>8), byte(chunk>>16), c.seq)
		b = append(b, payload[:chunk]...)
		c.seq++
		payload = payload[chunk:]
		if chunk < maxPayload {
			break
		}
	}
	c.wbuf = b
}

func putHeader(b []byte, n int, seq uint8) {
	b[0], b[1], b[2], b[3] = byte(n), byte(n>>8), byte(n>>16), seq
}

// writePacket frames payload as one logical packet into the write buffer.
func (c *packetConn) writePacket(payload []byte) {
	c.end(append(c.begin(), payload...))
}

// flush sends everything buffered in one Write.
func (c *packetConn) flush() error {
	if len(c.wbuf) == 0 {
		return nil
	}
	_, err := c.rw.Write(c.wbuf)
	c.wbuf = c.wbuf[:0]
	return err
}

// writeRaw sends pre-framed packets that carry count sequence ids starting
// at the current one (canned responses are encoded with ids from 1).
func (c *packetConn) writeRaw(frames []byte, count int) error {
	if err := c.flush(); err != nil {
		return err
	}
	c.seq += uint8(count)
	_, err := c.rw.Write(frames)
	return err
}
