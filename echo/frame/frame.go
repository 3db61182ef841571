package frame

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
	// MaxSize bounds what a responder buffers for one frame.
	MaxSize = 1 << 20
)

// New builds a request of n bytes with sequence 0.
func New(n int) []byte {
	b := make([]byte, n)
	binary.BigEndian.PutUint32(b, uint32(n))
	for i := HeaderLen; i < n; i++ {
		b[i] = byte(i)
	}
	return b
}

// Len reads the length a frame announces, checking it is sane; b holds at
// least the 4 bytes of size.
func Len(b []byte) (int, error) {
	n := binary.BigEndian.Uint32(b)
	if n < HeaderLen || n > MaxSize {
		return 0, fmt.Errorf("echo: frame length %d out of range %d..%d", n, HeaderLen, MaxSize)
	}
	return int(n), nil
}

// Seq is the sequence number a whole header carries.
func Seq(b []byte) uint64 { return binary.BigEndian.Uint64(b[4:HeaderLen]) }
