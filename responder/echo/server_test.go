package echo

import (
	"bytes"
	"io"
	"testing"

	"github.com/hoplat/hoplat/echo/frame"
)

// TestHandlerFraming feeds the responder requests split and joined every
// way a stream can deliver them.
func TestHandlerFraming(t *testing.T) {
	small, big := frame.New(frame.HeaderLen), frame.New(initialBuf+100)
	for _, tc := range []struct {
		name   string
		in     []byte
		writes []int // split points
		want   []byte
		err    bool
	}{
		{"one", frame.New(64), nil, frame.New(64), false},
		{"pipelined", append(frame.New(64), small...), nil, append(frame.New(64), small...), false},
		{"split header", frame.New(64), []int{2, 30}, frame.New(64), false},
		{"larger than buffer", big, []int{100}, big, false},
		{"bad length", []byte{0, 0, 0, 3, 1, 2, 3, 4, 5, 6, 7, 8}, nil, nil, true},
		{"huge length", []byte{0xff, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8}, nil, nil, true},
		{"truncated", frame.New(64)[:40], nil, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rw := &chunked{in: tc.in, splits: tc.writes}
			err := Handler{}.ServeConn(rw, false)
			if (err != nil) != tc.err {
				t.Fatalf("ServeConn = %v, want error %v", err, tc.err)
			}
			if !tc.err && !bytes.Equal(rw.out.Bytes(), tc.want) {
				t.Fatalf("replied %d bytes, want %d", rw.out.Len(), len(tc.want))
			}
		})
	}
}

// chunked delivers in as the reads cut at splits, then EOF.
type chunked struct {
	in     []byte
	splits []int
	off    int
	out    bytes.Buffer
}

func (c *chunked) Read(p []byte) (int, error) {
	if c.off == len(c.in) {
		return 0, io.EOF
	}
	end := len(c.in)
	for _, s := range c.splits {
		if s > c.off {
			end = min(end, s)
			break
		}
	}
	n := copy(p, c.in[c.off:end])
	c.off += n
	return n, nil
}

func (c *chunked) Write(p []byte) (int, error) { return c.out.Write(p) }

// FuzzHandler feeds the responder arbitrary peer bytes: it must reply only
// with whole frames it received, and never panic or loop.
func FuzzHandler(f *testing.F) {
	f.Add(frame.New(64), 10)
	f.Add(append(frame.New(12), frame.New(13)...), 5)
	f.Add([]byte{0, 0, 0, 0}, 1)
	f.Add([]byte{0, 0x10, 0, 0, 1}, 3)
	f.Fuzz(func(t *testing.T, in []byte, split int) {
		rw := &chunked{in: in, splits: []int{split}}
		Handler{}.ServeConn(rw, false)
		if !bytes.HasPrefix(in, rw.out.Bytes()) {
			t.Fatalf("replied bytes that are not a prefix of the input")
		}
	})
}
