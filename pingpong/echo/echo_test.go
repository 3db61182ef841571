package echo

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"testing"

	"github.com/hoplat/hoplat/echo/frame"
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

func TestCheckSize(t *testing.T) {
	for _, tc := range []struct {
		n  int
		ok bool
	}{{11, false}, {12, true}, {64, true}, {frame.MaxSize, true}, {frame.MaxSize + 1, false}, {-1, false}} {
		if err := CheckSize(tc.n); (err == nil) != tc.ok {
			t.Errorf("CheckSize(%d) = %v, want ok=%v", tc.n, err, tc.ok)
		}
	}
	if _, err := (Protocol{Size: 3}).Open(&replay{}, false); err == nil {
		t.Error("Open with size 3 succeeded")
	}
}

// FuzzReply feeds a client session arbitrary replies: anything but the
// request itself is an error.
func FuzzReply(f *testing.F) {
	req := frame.New(DefaultSize)
	req[11] = 1
	f.Add(req)
	f.Add(req[:10])
	f.Add(append(bytes.Clone(req), 1, 2, 3))
	f.Fuzz(func(t *testing.T, reply []byte) {
		rw := &replay{in: reply}
		s, _ := Protocol{}.Open(rw, false)
		_, err := s.Event()
		good := len(reply) >= DefaultSize && bytes.Equal(reply[:DefaultSize], rw.out.Bytes())
		if good != (err == nil) {
			t.Fatalf("Event() = %v for a reply that matches: %v", err, good)
		}
	})
}

// replay delivers in to the reads, then EOF, and keeps what is written.
type replay struct {
	in  []byte
	out bytes.Buffer
}

func (r *replay) Read(p []byte) (int, error) {
	if len(r.in) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.in)
	r.in = r.in[n:]
	return n, nil
}

func (r *replay) Write(p []byte) (int, error) { return r.out.Write(p) }
