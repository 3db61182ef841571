package sockets

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Polled reads and writes a Nonblocking FD as a blocking stream, for a
// goroutine that copies between sockets an event loop also watches (the
// sockmap engine's user-space directions): a read that finds nothing and a
// write that finds no room wait in poll(2) until the socket is ready, or
// until Abort (an eventfd, say; -1 for none) polls readable, which ends
// the call with ErrAborted. Shutting the socket down also ends a wait: the
// next call then returns EOF or EPIPE.
type Polled struct {
	FD    *FD
	Abort int
}

// Read reads into p, waiting while nothing is queued; io.EOF at the end.
func (p Polled) Read(b []byte) (int, error) {
	for {
		n, err := p.FD.Read(b)
		if err != ErrWouldBlock {
			return n, err
		}
		if err := p.FD.Poll(unix.POLLIN, p.Abort, -1); err != nil {
			return 0, err
		}
	}
}

// Write writes all of b, waiting while the socket is full.
func (p Polled) Write(b []byte) (int, error) {
	done := 0
	for {
		n, err := p.FD.Write(b[done:])
		done += n
		if err != ErrWouldBlock {
			return done, err
		}
		if err := p.FD.Poll(unix.POLLOUT, p.Abort, -1); err != nil {
			return done, err
		}
	}
}

// Poll waits in poll(2) until f is ready for events (unix.POLLIN,
// unix.POLLOUT), hangs up or fails, or abort (-1: none) polls readable, for
// at most timeout (negative: no bound). It returns ErrAborted for abort, and
// nil otherwise, whether f is ready or the time passed: the next read or
// write tells which. A nil f waits for abort and the timeout alone. A
// signal's interruption is retried, here and nowhere else.
func (f *FD) Poll(events int16, abort int, timeout time.Duration) error {
	pfd := [2]unix.PollFd{{Fd: int32(abort), Events: unix.POLLIN}, {Fd: -1}}
	if f != nil {
		if !f.hold() {
			return ErrClosed
		}
		defer f.release()
		pfd[1] = unix.PollFd{Fd: int32(f.fd), Events: events}
	}
	msec := -1
	if timeout >= 0 {
		msec = int(timeout / time.Millisecond)
	}
	// poll(2) ignores entries whose fd is negative: abort -1, f nil.
	_, err := ignoringEINTR(func() (int, error) { return unix.Poll(pfd[:], msec) })
	if err != nil {
		return os.NewSyscallError("poll", err)
	}
	if pfd[0].Revents != 0 {
		return ErrAborted
	}
	return nil
}
