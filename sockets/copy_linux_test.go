package sockets

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// nonblockingPair is a connected pair of Nonblocking UNIX stream sockets,
// closed when the test ends.
func nonblockingPair(t *testing.T) (*FD, *FD) {
	t.Helper()
	a, b, err := SocketPair(Nonblocking)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

// TestCopyPolled relays a stream larger than both sockets' buffers through
// Copy between two Polled FDs: the copier must wait for room (POLLOUT) and
// for data (POLLIN), deliver every byte in order, see the end, and report
// every chunk.
func TestCopyPolled(t *testing.T) {
	in, src := nonblockingPair(t)
	dst, out := nonblockingPair(t)
	want := make([]byte, 4<<20)
	for i := range want {
		want[i] = byte(i * 7)
	}
	type result struct {
		ended  bool
		err    error
		copied int
	}
	done := make(chan result, 1)
	go func() {
		var r result
		r.ended, r.err = Copy(Polled{FD: dst, Abort: -1}, Polled{FD: src, Abort: -1}, make([]byte, 16<<10),
			func(n int) bool { r.copied += n; return true })
		dst.Shutdown(ShutWrite)
		done <- r
	}()
	wrote := make(chan error, 1)
	go func() {
		_, err := (Polled{FD: in, Abort: -1}).Write(want)
		in.Shutdown(ShutWrite)
		wrote <- err
	}()
	got, err := io.ReadAll(Polled{FD: out, Abort: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	r := <-done
	if !r.ended || r.err != nil {
		t.Fatalf("Copy = %v, %v, want true, nil", r.ended, r.err)
	}
	if r.copied != len(want) || !bytes.Equal(got, want) {
		t.Fatalf("copied %d bytes (chunks said %d), want %d in order", len(got), r.copied, len(want))
	}
}

// TestCopyStops checks that chunk's false stops the copy after the chunk it
// was told of, leaving the rest unread.
func TestCopyStops(t *testing.T) {
	src := bytes.NewReader([]byte("abcdefgh"))
	var dst bytes.Buffer
	chunks := 0
	ended, err := Copy(&dst, src, make([]byte, 3), func(int) bool { chunks++; return chunks < 2 })
	if ended || err != nil || dst.String() != "abcdef" || src.Len() != 2 {
		t.Fatalf("Copy = %v, %v, wrote %q, left %d; want false, nil, \"abcdef\", 2", ended, err, dst.String(), src.Len())
	}
}

// TestPolledAbort checks that a read waiting on an empty socket ends with
// ErrAborted once the abort descriptor polls readable, and that a wait
// bounded by a timeout returns nil when it passes.
func TestPolledAbort(t *testing.T) {
	src, _ := nonblockingPair(t)
	abort, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(abort)
	if err := src.Poll(unix.POLLIN, abort, time.Millisecond); err != nil {
		t.Fatalf("Poll with nothing ready: %v, want nil after the timeout", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := (Polled{FD: src, Abort: abort}).Read(make([]byte, 8))
		done <- err
	}()
	one := [8]byte{1}
	if _, err := unix.Write(abort, one[:]); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, ErrAborted) {
		t.Fatalf("Read after abort: %v, want ErrAborted", err)
	}
}
