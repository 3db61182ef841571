package echo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/hoplat/hoplat/echo/frame"
	"github.com/hoplat/hoplat/pingpong"
)

// Protocol is the client side: sessions send Size-byte requests
// (DefaultSize when 0) and check each reply against the request.
type Protocol struct {
	Size int `json:"size"`
}

// Name is the protocol's name, as --proto takes it.
func (Protocol) Name() string { return "echo" }

// Open starts a session on rw.
func (p Protocol) Open(rw io.ReadWriter, unix bool) (pingpong.Session, error) {
	n := p.Size
	if n == 0 {
		n = DefaultSize
	}
	if err := CheckSize(n); err != nil {
		return nil, err
	}
	return &Session{rw: rw, req: frame.New(n), reply: make([]byte, n)}, nil
}

// Session is one connection's request loop.
type Session struct {
	rw    io.ReadWriter
	seq   uint64
	req   []byte
	reply []byte
}

// Event sends the next request and reads its reply; echo runs no
// statements, so it returns 0. A reply is an error
// unless it equals the request byte for byte: a stale sequence number means
// a duplicated or earlier reply, a short read a peer that closed mid-reply.
func (s *Session) Event() (int, error) {
	s.seq++
	binary.BigEndian.PutUint64(s.req[4:frame.HeaderLen], s.seq)
	if _, err := s.rw.Write(s.req); err != nil {
		return 0, fmt.Errorf("echo: send #%d: %w", s.seq, err)
	}
	// io.ReadFull, written out: its ReadAtLeast is one more frame, and
	// every frame of a round trip runs cold after the peer's turn
	// (sockets.Held says what one cost).
	for n := 0; n < len(s.reply); {
		m, err := s.rw.Read(s.reply[n:])
		n += m
		if err != nil && n < len(s.reply) {
			if n > 0 && errors.Is(err, io.EOF) {
				return 0, fmt.Errorf("echo: short reply to #%d: %d of %d bytes: %w", s.seq, n, len(s.reply), io.ErrUnexpectedEOF)
			}
			return 0, fmt.Errorf("echo: reply to #%d: %w", s.seq, err)
		}
	}
	if !bytes.Equal(s.reply, s.req) {
		return 0, s.mismatch()
	}
	return 0, nil // echo runs no statements
}

// mismatch says how a reply differs from the request (off the hot path).
func (s *Session) mismatch() error {
	got := frame.Seq(s.reply)
	switch {
	case binary.BigEndian.Uint32(s.reply) != uint32(len(s.req)):
		return fmt.Errorf("echo: reply to #%d announces %d bytes, want %d: %w",
			s.seq, binary.BigEndian.Uint32(s.reply), len(s.req), pingpong.ErrBadReply)
	case got < s.seq:
		return fmt.Errorf("echo: duplicate or stale reply #%d while waiting for #%d: %w", got, s.seq, pingpong.ErrBadReply)
	case got > s.seq:
		return fmt.Errorf("echo: reply #%d to request #%d, never sent: %w", got, s.seq, pingpong.ErrBadReply)
	}
	i := 0
	for i < len(s.req) && s.req[i] == s.reply[i] {
		i++
	}
	return fmt.Errorf("echo: corrupted reply to #%d at byte %d: %#02x, want %#02x: %w",
		s.seq, i, s.reply[i], s.req[i], pingpong.ErrBadReply)
}
