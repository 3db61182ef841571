package sockets

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hoplat/hoplat/internal/peer"
)

// newBatch sets up a Batch or skips where io_uring is refused (a container's
// seccomp filter, kernel.io_uring_disabled), failing under
// HOPLAT_REQUIRE_INTEGRATION.
func newBatch(t testing.TB, size int) *Batch {
	t.Helper()
	b, err := NewBatch(size)
	if err != nil {
		peer.Unavailable(t, "io_uring unavailable here: "+err.Error())
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func TestBatchRecvSendAcrossSockets(t *testing.T) {
	b := newBatch(t, 8)
	// Three TCP connections and one UNIX pair: a message waits on each.
	type pair struct{ c, s *FD }
	var pairs []pair
	for range 3 {
		c, s := rawPair(t, Nonblocking)
		pairs = append(pairs, pair{c, s})
	}
	uc, us := socketPair(t)
	t.Cleanup(func() { uc.Close() })
	pairs = append(pairs, pair{uc, us})
	for i, p := range pairs {
		if _, err := p.c.WriteNonblock([]byte{'m', byte('0' + i)}); err != nil {
			t.Fatal(err)
		}
		waitFD(t, p.s, unix.POLLIN)
	}
	bufs := make([][]byte, len(pairs))
	ops := make([]BatchOp, len(pairs))
	for i, p := range pairs {
		bufs[i] = make([]byte, 64)
		ops[i] = b.Recv(p.s.Sysfd(), bufs[i])
	}
	if err := b.Do(); err != nil {
		t.Fatal(err)
	}
	for i, op := range ops {
		n, err := b.Result(op)
		if err != nil || string(bufs[i][:n]) != string([]byte{'m', byte('0' + i)}) {
			t.Fatalf("recv %d: %q, %v", i, bufs[i][:n], err)
		}
	}
	// Each answer back in one batch, then read by the clients.
	b.Reset()
	for i, p := range pairs {
		ops[i] = b.Send(p.s.Sysfd(), []byte{'a', byte('0' + i)})
	}
	if err := b.Do(); err != nil {
		t.Fatal(err)
	}
	for i, p := range pairs {
		if n, err := b.Result(ops[i]); n != 2 || err != nil {
			t.Fatalf("send %d: %d, %v", i, n, err)
		}
		waitFD(t, p.c, unix.POLLIN)
		got := make([]byte, 8)
		n, err := p.c.ReadNonblock(got)
		if err != nil || string(got[:n]) != string([]byte{'a', byte('0' + i)}) {
			t.Fatalf("client %d read %q, %v", i, got[:n], err)
		}
	}
}

// An empty socket's receive completes at once with ErrWouldBlock, and an
// ended stream's with io.EOF, in the same batch: nothing waits for
// readiness.
func TestBatchWouldBlockAndEOF(t *testing.T) {
	b := newBatch(t, 4)
	_, s1 := rawPair(t, Nonblocking)
	c2, s2 := rawPair(t, Nonblocking)
	if err := c2.Shutdown(ShutWrite); err != nil {
		t.Fatal(err)
	}
	waitFD(t, s2, unix.POLLIN)
	buf1, buf2 := make([]byte, 16), make([]byte, 16)
	op1, op2 := b.Recv(s1.Sysfd(), buf1), b.Recv(s2.Sysfd(), buf2)
	if err := b.Do(); err != nil {
		t.Fatal(err)
	}
	if n, err := b.Result(op1); n != 0 || !errors.Is(err, ErrWouldBlock) {
		t.Errorf("empty socket: %d, %v; want ErrWouldBlock", n, err)
	}
	if n, err := b.Result(op2); n != 0 || err != io.EOF {
		t.Errorf("ended stream: %d, %v; want io.EOF", n, err)
	}
}

// A full socket takes part of a send, or none of it; a send to a peer that
// reset fails with the errno, and a bad descriptor fails its own operation
// only (IORING_SETUP_SUBMIT_ALL).
func TestBatchFullResetAndBadFD(t *testing.T) {
	b := newBatch(t, 4)
	c, s := rawPair(t, Nonblocking)
	big := bytes.Repeat([]byte{'x'}, 1<<20)
	total := 0
	for {
		b.Reset()
		op := b.Send(c.Sysfd(), big)
		if err := b.Do(); err != nil {
			t.Fatal(err)
		}
		n, err := b.Result(op)
		total += n
		if errors.Is(err, ErrWouldBlock) {
			if n != 0 {
				t.Fatalf("ErrWouldBlock with %d bytes sent", n)
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if n > len(big) || n <= 0 {
			t.Fatalf("sent %d of %d", n, len(big))
		}
	}
	if total == 0 {
		t.Fatal("nothing sent before the socket filled")
	}

	// The reader resets: the writer's next send fails with the errno.
	unix.SetsockoptLinger(s.Sysfd(), unix.SOL_SOCKET, unix.SO_LINGER, &unix.Linger{Onoff: 1, Linger: 0})
	s.Close()
	waitFD(t, c, unix.POLLERR)
	b.Reset()
	sendOp := b.Send(c.Sysfd(), []byte("after reset"))
	badOp := b.Recv(-1, make([]byte, 4))
	c2, s2 := rawPair(t, Nonblocking)
	c2.WriteNonblock([]byte("still"))
	waitFD(t, s2, unix.POLLIN)
	okBuf := make([]byte, 8)
	okOp := b.Recv(s2.Sysfd(), okBuf)
	if err := b.Do(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Result(sendOp); !errors.Is(err, unix.ECONNRESET) && !errors.Is(err, unix.EPIPE) {
		t.Errorf("send after reset: %v; want ECONNRESET or EPIPE", err)
	}
	if _, err := b.Result(badOp); !errors.Is(err, unix.EBADF) {
		t.Errorf("recv on fd -1: %v; want EBADF", err)
	}
	if n, err := b.Result(okOp); err != nil || string(okBuf[:n]) != "still" {
		t.Errorf("recv after a failed operation in the batch: %q, %v", okBuf[:n], err)
	}
}

// A batch round allocates nothing: an event loop makes one per wake-up.
func TestBatchAllocs(t *testing.T) {
	b := newBatch(t, 2)
	c, s := rawPair(t, Nonblocking)
	msg, buf := []byte("ping"), make([]byte, 16)
	allocs := testing.AllocsPerRun(100, func() {
		b.Reset()
		b.Send(c.Sysfd(), msg)
		b.Do()
		b.Reset()
		op := b.Recv(s.Sysfd(), buf)
		b.Do()
		if n, err := b.Result(op); n != len(msg) || err != nil {
			t.Fatalf("round: %d, %v", n, err)
		}
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per batch round; want 0", allocs)
	}
}

func TestNewBatchSize(t *testing.T) {
	for _, n := range []int{0, -1, 5000} {
		if b, err := NewBatch(n); err == nil {
			b.Close()
			t.Errorf("NewBatch(%d) accepted", n)
		}
	}
}

// A stamped receive in a batch reads the bytes and their kernel receive
// stamp, as ReadStamped does, beside a plain one.
func TestBatchRecvStamped(t *testing.T) {
	b := newBatch(t, 2)
	c, s := rawPair(t, Nonblocking)
	c2, s2 := rawPair(t, Nonblocking)
	if err := s.EnableRXTimestamps(); err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	c.WriteNonblock([]byte("stamped"))
	c2.WriteNonblock([]byte("plain"))
	waitFD(t, s, unix.POLLIN)
	waitFD(t, s2, unix.POLLIN)
	var sb StampBuf
	buf, buf2 := make([]byte, 16), make([]byte, 16)
	op := b.RecvStamped(s.Sysfd(), buf, &sb)
	op2 := b.Recv(s2.Sysfd(), buf2)
	if err := b.Do(); err != nil {
		t.Fatal(err)
	}
	n, err := b.Result(op)
	if err != nil || string(buf[:n]) != "stamped" {
		t.Fatalf("stamped recv: %q, %v", buf[:n], err)
	}
	ts := sb.Stamp()
	if ts.IsZero() || ts.Before(before.Add(-time.Second)) || ts.After(time.Now().Add(time.Second)) {
		t.Errorf("stamp %v, sent at %v", ts, before)
	}
	if n, err := b.Result(op2); err != nil || string(buf2[:n]) != "plain" {
		t.Errorf("plain recv beside it: %q, %v", buf2[:n], err)
	}
	// An empty stamped socket: ErrWouldBlock, no stamp.
	b.Reset()
	op = b.RecvStamped(s.Sysfd(), buf, &sb)
	if err := b.Do(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Result(op); !errors.Is(err, ErrWouldBlock) {
		t.Errorf("empty stamped socket: %v; want ErrWouldBlock", err)
	}
}
