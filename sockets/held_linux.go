package sockets

import (
	"os"

	"golang.org/x/sys/unix"
)

// heldTimeout is the SO_RCVTIMEO and SO_SNDTIMEO of a held FD. Its length
// hardly matters (an expiry only repeats the call): what matters is that
// one is set, since a blocking socket call with no timeout is restarted
// after a signal handler (Go installs its handlers with SA_RESTART), and
// with one fails with EINTR instead (signal(7), sock_intr_errno in
// net/core/sock.c). That EINTR is how a goroutine asleep in a raw read
// learns that the scheduler wants it to yield.
const heldTimeout = 1 // second

// SetHeld prepares a Blocking FD for ReadHeld and WriteHeld: the calling
// goroutine will keep its P while it sleeps in the kernel (see HoldP and
// rawio_linux.go for why), and a signal must be able to interrupt it.
func (f *FD) SetHeld() error {
	tv := unix.Timeval{Sec: heldTimeout}
	for _, opt := range []int{unix.SO_RCVTIMEO, unix.SO_SNDTIMEO} {
		if err := unix.SetsockoptTimeval(f.Sysfd(), unix.SOL_SOCKET, opt, &tv); err != nil {
			return os.NewSyscallError("setsockopt SO_RCVTIMEO/SO_SNDTIMEO", err)
		}
	}
	return nil
}

// heldRW makes one blocking read(2) or write(2): raw while the goroutines
// holding Ps leave one for the rest of the program (SpareP), through the
// scheduler otherwise.
func (f *FD) heldRW(trap uintptr, p []byte) (int, unix.Errno) {
	if SpareP() {
		return rawRW(trap, f.Sysfd(), p)
	}
	var n int
	var err error
	if trap == unix.SYS_READ {
		n, err = unix.Read(f.Sysfd(), p)
	} else {
		n, err = unix.Write(f.Sysfd(), p)
	}
	if err != nil {
		e, ok := err.(unix.Errno)
		if !ok {
			e = unix.EIO
		}
		return 0, e
	}
	return n, 0
}

// ReadHeld reads into p from a Blocking FD made ready by SetHeld, sleeping
// in the kernel until data, EOF (io.EOF; also after Interrupt) or an error.
// A signal makes it yield to the scheduler and read again.
func (f *FD) ReadHeld(p []byte) (int, error) { return f.readLoop(p, true) }

// WriteHeld writes all of p to a Blocking FD made ready by SetHeld.
func (f *FD) WriteHeld(p []byte) (int, error) { return f.writeLoop(p, true) }
