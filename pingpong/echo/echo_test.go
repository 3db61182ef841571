package echo

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"testing"

	"github.com/hoplat/hoplat/pingpong"
	"github.com/hoplat/hoplat/sockets"
)

// misbehave serves one connection over loopback: it reads each request and
// lets reply decide what goes back. It returns the client's end.
func misbehave(t *testing.T, reply func(c net.Conn, req []byte) bool) net.Conn {
	t.Helper()
	a, _ := sockets.Parse("tcp:127.0.0.1:0")
	ln, err := sockets.Listen(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := ln.Accept()
		ln.Close()
		if err != nil {
			return
		}
		defer c.Close()
		req := make([]byte, DefaultSize)
		for {
			if _, err := io.ReadFull(c, req); err != nil {
				return
			}
			if !reply(c, req) {
				return
			}
		}
	}()
	c, err := sockets.Dial(context.Background(), ln.Spec().FromNet(ln.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close()
		<-done
	})
	return c
}

func TestBadReplies(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply func(c net.Conn, req []byte) bool
		// events is how many round trips succeed before the failing one.
		events int
		want   error
	}{
		{"good", func(c net.Conn, req []byte) bool { c.Write(req); return true }, 3, nil},
		{"corrupted filler", func(c net.Conn, req []byte) bool {
			b := bytes.Clone(req)
			b[40] ^= 0xff
			c.Write(b)
			return true
		}, 0, pingpong.ErrBadReply},
		{"corrupted length", func(c net.Conn, req []byte) bool {
			b := bytes.Clone(req)
			b[3]++
			c.Write(b)
			return true
		}, 0, pingpong.ErrBadReply},
		{"duplicated", func(c net.Conn, req []byte) bool {
			c.Write(append(bytes.Clone(req), req...))
			return true
		}, 1, pingpong.ErrBadReply},
		{"future sequence", func(c net.Conn, req []byte) bool {
			b := bytes.Clone(req)
			b[11]++
			c.Write(b)
			return true
		}, 0, pingpong.ErrBadReply},
		{"short then close", func(c net.Conn, req []byte) bool {
			c.Write(req[:DefaultSize/2])
			return false
		}, 0, io.ErrUnexpectedEOF},
		{"close", func(c net.Conn, req []byte) bool { return false }, 0, io.EOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := misbehave(t, tc.reply)
			s, err := Protocol{}.Open(c, false)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < tc.events; i++ {
				if q, err := s.Event(); err != nil || q != 0 {
					t.Fatalf("round trip %d: (%d, %v), want (0, nil)", i+1, q, err)
				}
			}
			if tc.want == nil {
				return
			}
			_, err = s.Event()
			if !errors.Is(err, tc.want) {
				t.Fatalf("Event() = %v, want %v", err, tc.want)
			}
			t.Log(err)
		})
	}
}

// TestHandlerFraming feeds the responder requests split and joined every
// way a stream can deliver them.
func TestHandlerFraming(t *testing.T) {
	small, big := newFrame(HeaderLen), newFrame(initialBuf+100)
	for _, tc := range []struct {
		name   string
		in     []byte
		writes []int // split points
		want   []byte
		err    bool
	}{
		{"one", newFrame(64), nil, newFrame(64), false},
		{"pipelined", append(newFrame(64), small...), nil, append(newFrame(64), small...), false},
		{"split header", newFrame(64), []int{2, 30}, newFrame(64), false},
		{"larger than buffer", big, []int{100}, big, false},
		{"bad length", []byte{0, 0, 0, 3, 1, 2, 3, 4, 5, 6, 7, 8}, nil, nil, true},
		{"huge length", []byte{0xff, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8}, nil, nil, true},
		{"truncated", newFrame(64)[:40], nil, nil, true},
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

func TestCheckSize(t *testing.T) {
	for _, tc := range []struct {
		n  int
		ok bool
	}{{11, false}, {12, true}, {64, true}, {MaxSize, true}, {MaxSize + 1, false}, {-1, false}} {
		if err := CheckSize(tc.n); (err == nil) != tc.ok {
			t.Errorf("CheckSize(%d) = %v, want ok=%v", tc.n, err, tc.ok)
		}
	}
	if _, err := (Protocol{Size: 3}).Open(&chunked{}, false); err == nil {
		t.Error("Open with size 3 succeeded")
	}
}

// FuzzHandler feeds the responder arbitrary peer bytes: it must reply only
// with whole frames it received, and never panic or loop.
func FuzzHandler(f *testing.F) {
	f.Add(newFrame(64), 10)
	f.Add(append(newFrame(12), newFrame(13)...), 5)
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

// FuzzReply feeds a client session arbitrary replies: anything but the
// request itself is an error.
func FuzzReply(f *testing.F) {
	req := newFrame(DefaultSize)
	req[11] = 1
	f.Add(req)
	f.Add(req[:10])
	f.Add(append(bytes.Clone(req), 1, 2, 3))
	f.Fuzz(func(t *testing.T, reply []byte) {
		rw := &chunked{in: reply}
		s, _ := Protocol{}.Open(rw, false)
		_, err := s.Event()
		good := len(reply) >= DefaultSize && bytes.Equal(reply[:DefaultSize], rw.out.Bytes())
		if good != (err == nil) {
			t.Fatalf("Event() = %v for a reply that matches: %v", err, good)
		}
	})
}
