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
// kernel's TCP path between two calls of it runs them cold: one frame is
// one cold return address and one cold stretch of code instead of four
// (docs/measurements.md, "Held calls", has perf's count of the difference).
//
//go:noescape
func sockcall(trap uintptr, fd int, p unsafe.Pointer, n int, flags uintptr) (r int, errno unix.Errno)
