package wire

import (
	"errors"
	"fmt"
	"io"
)

// MaxPayload is the largest payload one packet carries; a longer payload is
// split into packets of exactly this size followed by a shorter (possibly
// empty) one, and the reader concatenates until it sees the short packet.
const MaxPayload = 0xFFFFFF

// DefaultMaxMessage caps a reassembled message. MariaDB's max_allowed_packet
// defaults to 16 MiB; four times that leaves room for any result row either
// end produces while keeping a hostile length prefix from growing memory
// without bound.
const DefaultMaxMessage = 64 << 20

// ErrPacketTooLarge reports a packet whose declared length exceeds the
// connection's limit (max_allowed_packet once logged in, far less before).
// The declared length is checked before any of the payload is buffered.
var ErrPacketTooLarge = errors.New("mysql: packet too large")

// ErrOutOfOrder reports a packet whose sequence id is not the one expected:
// the two ends have lost sync and the connection cannot be trusted.
var ErrOutOfOrder = errors.New("mysql: packets out of order")

// PacketConn frames payloads over a byte stream. One sequence counter serves
// both directions, as the protocol requires: it is reset to 0 before each
// command and advances by one for every packet read or written.
//
// The read buffer is reused: a payload returned by ReadPacket is valid only
// until the next read. Writes accumulate in Wbuf and leave in one Write call.
type PacketConn struct {
	Rw  io.ReadWriter
	Seq uint8

	Rbuf       []byte // buffered input; Rbuf[R:W] is unread
	R, W       int
	Big        []byte // reassembly of payloads of 16 MiB or more
	MaxMessage int

	Wbuf     []byte
	PktStart int // offset of the open packet's header in Wbuf, or -1
}

// NewPacketConn frames payloads over rw, its read and write buffers starting
// at 16 KiB each.
func NewPacketConn(rw io.ReadWriter) *PacketConn {
	return NewPacketConnSize(rw, 16<<10, 16<<10)
}

// NewPacketConnSize starts the buffers at the given sizes; they grow as
// bytes arrive or are appended.
func NewPacketConnSize(rw io.ReadWriter, rsize, wsize int) *PacketConn {
	return &PacketConn{
		Rw:         rw,
		Rbuf:       make([]byte, rsize),
		Wbuf:       make([]byte, 0, wsize),
		MaxMessage: DefaultMaxMessage,
		PktStart:   -1,
	}
}

// ResetSeq starts a new command exchange.
func (c *PacketConn) ResetSeq() { c.Seq = 0 }

// Fill makes at least n unread bytes available in Rbuf. The buffer grows
// only when it is full of bytes that did arrive, and then at most doubles:
// a header declaring 16 MiB costs memory in proportion to the bytes that
// follow it, never to the declaration.
func (c *PacketConn) Fill(n int) error {
	if c.W-c.R >= n {
		return nil
	}
	if len(c.Rbuf)-c.R < n && c.R > 0 {
		c.W = copy(c.Rbuf, c.Rbuf[c.R:c.W])
		c.R = 0
	}
	for c.W-c.R < n {
		if c.W == len(c.Rbuf) {
			// Full of unread bytes (r is 0 here: compacted above or
			// never advanced), and still fewer than n.
			nb := make([]byte, min(max(2*len(c.Rbuf), 512), n))
			c.W = copy(nb, c.Rbuf[c.R:c.W])
			c.R = 0
			c.Rbuf = nb
		}
		m, err := c.Rw.Read(c.Rbuf[c.W:])
		c.W += m
		if err != nil {
			if c.W-c.R >= n {
				return nil
			}
			if errors.Is(err, io.EOF) && c.W-c.R > 0 {
				return io.ErrUnexpectedEOF
			}
			return err
		}
	}
	return nil
}

// ReadFrame reads one packet and checks its sequence id. already is the
// length reassembled so far: the limit applies to the declared length before
// any of it is buffered.
func (c *PacketConn) ReadFrame(already int) ([]byte, error) {
	if err := c.Fill(4); err != nil {
		return nil, err
	}
	h := c.Rbuf[c.R : c.R+4]
	n := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
	if h[3] != c.Seq {
		return nil, c.OutOfOrder(h[3], n)
	}
	// The id is consumed before the length is judged, so that an ERR
	// refusing the packet carries the next one.
	c.Seq++
	if already+n > c.MaxMessage {
		if already > 0 {
			return nil, fmt.Errorf("%w: read packet: reassembled length %d exceeds limit %d", ErrPacketTooLarge, already+n, c.MaxMessage)
		}
		return nil, fmt.Errorf("%w: read packet: length %d exceeds limit %d", ErrPacketTooLarge, n, c.MaxMessage)
	}
	if err := c.Fill(4 + n); err != nil {
		return nil, err
	}
	p := c.Rbuf[c.R+4 : c.R+4+n]
	c.R += 4 + n
	return p, nil
}

// OutOfOrder builds the error for a packet with sequence id got. A server
// about to close an idle connection (MySQL 8.0.24+, error 4031) sends an
// unsolicited ERR with sequence 0; its message is the real diagnosis, so it
// is read and reported along with the desynchronisation.
func (c *PacketConn) OutOfOrder(got uint8, n int) error {
	err := fmt.Errorf("%w: got sequence id %d, want %d", ErrOutOfOrder, got, c.Seq)
	if n == 0 || n > 4096 || c.Fill(4+n) != nil {
		return err
	}
	p := c.Rbuf[c.R+4 : c.R+4+n]
	c.R += 4 + n
	if p[0] != HeaderErr {
		return err
	}
	return fmt.Errorf("%w: %w", err, ParseErr(p))
}

// ReadPacket returns the next logical payload, reassembling one that was
// split at 16 MiB boundaries. The slice is valid until the next read.
func (c *PacketConn) ReadPacket() ([]byte, error) {
	p, err := c.ReadFrame(0)
	if err != nil || len(p) < MaxPayload {
		return p, err
	}
	c.Big = append(c.Big[:0], p...)
	for {
		p, err = c.ReadFrame(len(c.Big))
		if err != nil {
			return nil, err
		}
		c.Big = append(c.Big, p...)
		if len(p) < MaxPayload {
			return c.Big, nil
		}
	}
}

// Begin opens a packet in the write buffer and returns the buffer to append
// the payload to; the caller stores the result back with End.
func (c *PacketConn) Begin() []byte {
	c.PktStart = len(c.Wbuf)
	return append(c.Wbuf, 0, 0, 0, 0)
}

// End closes the packet opened by Begin, whose payload is the tail of b, and
// assigns it the next sequence id. A payload of 16 MiB or more is split, with
// an empty final packet when its length is a multiple of 0xFFFFFF: without
// it the peer waits for more (verified against MariaDB).
func (c *PacketConn) End(b []byte) {
	start := c.PktStart
	c.PktStart = -1
	n := len(b) - start - 4
	if n < MaxPayload {
		PutHeader(b[start:], n, c.Seq)
		c.Seq++
		c.Wbuf = b
		return
	}
	payload := append([]byte(nil), b[start+4:]...)
	b = b[:start]
	for {
		chunk := min(len(payload), MaxPayload)
		b = append(b, byte(chunk), byte(chunk>>8), byte(chunk>>16), c.Seq)
		b = append(b, payload[:chunk]...)
		c.Seq++
		payload = payload[chunk:]
		if chunk < MaxPayload {
			break
		}
	}
	c.Wbuf = b
}

// PutHeader writes a packet header into b[:4]: the payload length n as three
// little-endian bytes, then the sequence id seq.
func PutHeader(b []byte, n int, seq uint8) {
	b[0], b[1], b[2], b[3] = byte(n), byte(n>>8), byte(n>>16), seq
}

// WritePacket frames payload as one logical packet into the write buffer.
func (c *PacketConn) WritePacket(payload []byte) {
	c.End(append(c.Begin(), payload...))
}

// Flush sends everything buffered in one Write.
func (c *PacketConn) Flush() error {
	if len(c.Wbuf) == 0 {
		return nil
	}
	_, err := c.Rw.Write(c.Wbuf)
	c.Wbuf = c.Wbuf[:0]
	return err
}

// WriteRaw sends pre-framed packets that carry count sequence ids starting
// at the current one (canned responses are encoded with ids from 1).
func (c *PacketConn) WriteRaw(frames []byte, count int) error {
	if err := c.Flush(); err != nil {
		return err
	}
	c.Seq += uint8(count)
	_, err := c.Rw.Write(frames)
	return err
}
