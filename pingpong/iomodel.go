package pingpong

import (
	"context"
	"fmt"
	"io"
	"net"
	"runtime"

	"github.com/hoplat/hoplat/sockets"
)

// IOModel is how one end waits for the kernel.
type IOModel uint8

const (
	// Netpoll uses Go's net.Conn: goroutines parked on the runtime's epoll
	// (the M:N model). The default.
	Netpoll IOModel = iota
	// Blocking reads and writes a raw fd with blocking syscalls on a locked
	// OS thread (the 1:1 model, as a C client or sockperf does).
	Blocking
	// Spin busy-polls a non-blocking fd on a locked OS thread: no sleep and
	// no wake-up on either side of the syscall, at the price of a core.
	Spin
)

func (m IOModel) String() string {
	switch m {
	case Blocking:
		return "blocking"
	case Spin:
		return "spin"
	}
	return "netpoll"
}

// MarshalText prints the model by name in JSON configs.
func (m IOModel) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// ParseIO reads "netpoll", "blocking" or "spin".
func ParseIO(s string) (IOModel, error) {
	switch s {
	case "netpoll", "":
		return Netpoll, nil
	case "blocking":
		return Blocking, nil
	case "spin":
		return Spin, nil
	}
	return Netpoll, fmt.Errorf("pingpong: I/O model %q: want netpoll, blocking or spin", s)
}

// locked reports whether the model needs its goroutine on its own OS thread.
func (m IOModel) locked() bool { return m != Netpoll }

func (m IOModel) fdMode() sockets.Mode {
	if m == Spin {
		return sockets.Spin
	}
	return sockets.Blocking
}

// conn is a connection under one I/O model.
type conn interface {
	io.ReadWriter
	Close() error
	// Interrupt wakes a Read or Write blocked on another goroutine.
	Interrupt()
}

type netConn struct{ net.Conn }

// Interrupt closes the connection: a parked Read returns net.ErrClosed.
func (c netConn) Interrupt() { c.Conn.Close() }

// dial connects to a under model m. Blocking and spin connections must then
// be used from the calling goroutine, which holds its OS thread.
func dial(ctx context.Context, a sockets.Addr, m IOModel) (conn, error) {
	if m == Netpoll {
		c, err := sockets.Dial(ctx, a)
		if err != nil {
			return nil, err
		}
		return netConn{c}, nil
	}
	return sockets.DialFD(ctx, a, m.fdMode())
}

// adopt turns an accepted connection into one served under model m.
func adopt(c net.Conn, m IOModel) (conn, error) {
	if m == Netpoll {
		return netConn{c}, nil
	}
	return sockets.Detach(c, m.fdMode())
}

// pinned locks the calling goroutine to its OS thread and, when cpus is not
// empty, pins that thread to cpus[i%len(cpus)]. It returns the CPU obtained
// (-1 when not pinned) and the function that undoes the lock.
func pinned(m IOModel, cpus []int, i int) (cpu int, unlock func(), err error) {
	if !m.locked() && len(cpus) == 0 {
		return -1, func() {}, nil
	}
	runtime.LockOSThread()
	if len(cpus) == 0 {
		return -1, runtime.UnlockOSThread, nil
	}
	want := cpus[i%len(cpus)]
	got, err := pinThread(want)
	if err != nil {
		// A refused mask leaves the thread as it was: it may go back.
		return -1, runtime.UnlockOSThread, err
	}
	// A pinned thread must not return to the runtime's pool to run other
	// goroutines on its narrowed mask: never unlocked, it exits with the
	// goroutine.
	return got, func() {}, nil
}
