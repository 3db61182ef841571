package sockets

import (
	"errors"
	"syscall"
	"time"
)

// Mode is how an FD's Read and Write wait for the kernel.
type Mode uint8

const (
	// Nonblocking: Read and Write return ErrWouldBlock instead of waiting;
	// the owner waits in epoll_wait. What the event-loop engines use.
	Nonblocking Mode = iota
	// Blocking: Read and Write sleep in the kernel, the 1:1 threading
	// model; the caller holds a locked OS thread.
	Blocking
	// Spin: the fd is non-blocking and Read and Write retry EAGAIN in a
	// loop, trading a core for the wake-up latency.
	Spin
)

func (m Mode) String() string {
	switch m {
	case Blocking:
		return "blocking"
	case Spin:
		return "spin"
	}
	return "nonblocking"
}

// ErrWouldBlock is what a Nonblocking FD returns when the kernel has no
// data or no room (EAGAIN).
var ErrWouldBlock error = syscall.EAGAIN

// ErrClosed is returned by operations on an FD after Close or Interrupt.
var ErrClosed = errors.New("sockets: use of closed fd")

// How says which direction Shutdown closes.
type How int

const (
	ShutRead How = iota
	ShutWrite
	ShutBoth
)

// TCPInfo is the part of the kernel's TCP_INFO a latency tool cares about.
type TCPInfo struct {
	RTT          time.Duration // smoothed round-trip time
	RTTVar       time.Duration // its mean deviation
	Retransmits  uint8         // retransmits of the current unacknowledged segment
	TotalRetrans uint32        // retransmitted segments over the connection's life
	Unacked      uint32        // segments sent and not yet acknowledged
}
