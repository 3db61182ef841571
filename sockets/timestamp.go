package sockets

import (
	"errors"
	"fmt"
)

// ErrNoRXTimestamps is what enabling receive timestamps on a UNIX stream
// socket returns. The kernel accepts SO_TIMESTAMPING, SO_TIMESTAMPNS and
// SO_TIMESTAMP on such a socket but its stream receive path
// (unix_stream_read_generic in net/unix/af_unix.c) never attaches the
// control message, unlike the datagram and seqpacket paths; a UNIX leg's
// wake-up must come from somewhere else (a probe's constant).
var ErrNoRXTimestamps = fmt.Errorf("sockets: UNIX stream sockets carry no receive timestamps: %w", errors.ErrUnsupported)

// StampBuf is the space one socket's timestamped reads need: the recvmsg(2)
// header, its one iovec, and room for the control message. It lives as
// long as the socket so that no read allocates; the zero value is ready.
// A StampBuf serves one reader at a time.
type StampBuf struct {
	sys stampSys
}
