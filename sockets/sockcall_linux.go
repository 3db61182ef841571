//go:build linux && (amd64 || arm64)

package sockets

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// sockcall makes one recvfrom(2) or sendto(2) (trap) on fd with flags and
// no address, as a raw system call: all of rawSock, in one frame.
//
// Why a stub of our own: unix.RawSyscall6 is four frames deep, each in its
// own place in the binary (x/sys's assembly jumps to syscall.RawSyscall6's
// ABI0 wrapper, which calls syscall.RawSyscall6, which calls the runtime's
// Syscall6, which traps), and a round trip that runs with the peer and the
// kernel's TCP path between two calls of it runs them cold. Sampling CPU 0
// at 10 kHz (perf record -a -C 0 -e cpu-clock -c 100000) while pingpong
// --io blocking loaded pongd --io blocking, both on CPU 0, 4 s per run,
// two runs each: user time per round trip fell from 375-378 to 303-310 ns
// in pongd and from 519-556 to 442-455 ns in pingpong with this stub, and
// round trips per run rose from 571-577k to 604-606k (p50 5.24-5.31 us
// against 5.04-5.06; a shared 2-CPU VM).
//
//go:noescape
func sockcall(trap uintptr, fd int, p unsafe.Pointer, n int, flags uintptr) (r int, errno unix.Errno)
