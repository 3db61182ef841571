package echo

import (
	"encoding/binary"
	"errors"
	"io"

	"github.com/hoplat/hoplat/echo/frame"
	"github.com/hoplat/hoplat/responder"
)

// Handler is the responder side: it sends every frame back unchanged after
// spending Service, one write per frame.
type Handler struct {
	Service responder.Service
}

// initialBuf holds many default-size frames, so that a pipelining client
// is served in one read.
const initialBuf = 16 << 10

// ServeConn echoes frames until the peer closes the connection.
func (h Handler) ServeConn(rw io.ReadWriter, unix bool) error {
	buf := make([]byte, initialBuf)
	have := 0
	for {
		n, err := rw.Read(buf[have:])
		have += n
		if err != nil {
			if errors.Is(err, io.EOF) && have == 0 {
				return nil
			}
			if errors.Is(err, io.EOF) {
				return io.ErrUnexpectedEOF
			}
			return err
		}
		// The usual case, one whole frame, answered here: reply is one
		// more frame on a path that runs cold after the peer's turn
		// (sockets.Held says what one cost).
		if have >= frame.HeaderLen && int(binary.BigEndian.Uint32(buf)) == have {
			h.Service.Spend()
			if _, err := rw.Write(buf[:have]); err != nil {
				return err
			}
			have = 0
			continue
		}
		done, err := h.reply(rw, buf[:have])
		if err != nil {
			return err
		}
		if done == have {
			have = 0 // whole messages only: no memmove call
		} else {
			have = copy(buf, buf[done:have])
		}
		if have >= 4 {
			// A frame larger than the buffer: grow once for it.
			if fl, _ := frame.Len(buf); fl > len(buf) {
				nb := make([]byte, fl)
				copy(nb, buf[:have])
				buf = nb
			}
		}
	}
}

// reply answers every complete frame in b and returns the bytes used.
func (h Handler) reply(w io.Writer, b []byte) (int, error) {
	done := 0
	for len(b)-done >= 4 {
		n, err := frame.Len(b[done:])
		if err != nil {
			return done, err
		}
		if len(b)-done < n {
			break
		}
		h.Service.Spend()
		if _, err := w.Write(b[done : done+n]); err != nil {
			return done, err
		}
		done += n
	}
	return done, nil
}
