package echo

import (
	"encoding/binary"
	"fmt"
)

// A frame is the request and its reply:
//
//	0       4               12          Size
//	+-------+---------------+-----------+
//	| size  | sequence      | filler    |
//	+-------+---------------+-----------+
//
// size is the whole frame's length and sequence the request's number, both
// big-endian; the filler is a fixed pattern so that any corruption shows.
const (
	HeaderLen = 12
	// DefaultSize matches sockperf's default message size, so that the two
	// measure the same bytes.
	DefaultSize = 64
	// MaxSize bounds what a responder buffers for one frame.
	MaxSize = 1 << 20
)

// CheckSize validates a frame size given by a user.
func CheckSize(n int) error {
	if n < HeaderLen || n > MaxSize {
		return fmt.Errorf("echo: size %d: want %d to %d bytes", n, HeaderLen, MaxSize)
	}
	return nil
}

// newFrame builds a request of n bytes with sequence 0.
func newFrame(n int) []byte {
	b := make([]byte, n)
	binary.BigEndian.PutUint32(b, uint32(n))
	for i := HeaderLen; i < n; i++ {
		b[i] = byte(i)
	}
	return b
}

// frameLen reads the length a frame announces, checking it is sane.
func frameLen(b []byte) (int, error) {
	n := binary.BigEndian.Uint32(b)
	if n < HeaderLen || n > MaxSize {
		return 0, fmt.Errorf("echo: frame length %d out of range %d..%d", n, HeaderLen, MaxSize)
	}
	return int(n), nil
}

func seqOf(b []byte) uint64 { return binary.BigEndian.Uint64(b[4:HeaderLen]) }
