//go:build linux && !(amd64 || arm64)

package sockets

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// sockcall is unix.RawSyscall6 where no stub is written for the
// architecture (see sockcall_linux.go).
func sockcall(trap uintptr, fd int, p unsafe.Pointer, n int, flags uintptr) (int, unix.Errno) {
	r, _, e := unix.RawSyscall6(trap, uintptr(fd), uintptr(p), uintptr(n), flags, 0, 0)
	return int(r), e
}
