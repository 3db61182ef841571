package sockets

import (
	"os"

	"golang.org/x/sys/unix"
)

// Pipe returns the two ends of a pipe(2), close-on-exec, as Blocking FDs.
// A pipe is the cheapest kernel path between two threads: a ping-pong over
// it measures the scheduler's wake-up and context switch with little else.
func Pipe() (r, w *FD, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	return &FD{fd: p[0], mode: Blocking}, &FD{fd: p[1], mode: Blocking}, nil
}

// SocketPair returns both ends of a connected AF_UNIX stream
// socketpair(2), close-on-exec, in mode m: the same kernel path as a UNIX
// stream connection, without a path to create and remove.
func SocketPair(m Mode) (*FD, *FD, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, os.NewSyscallError("socketpair", err)
	}
	a, b := &FD{fd: fds[0], mode: Blocking}, &FD{fd: fds[1], mode: Blocking}
	for _, f := range []*FD{a, b} {
		if err := f.SetMode(m); err != nil {
			a.Close()
			b.Close()
			return nil, nil, err
		}
	}
	return a, b, nil
}
