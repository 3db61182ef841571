package sockets

import (
	"io"
	"os"
	"runtime"
	"sync/atomic"
	"unsafe"

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
	refreshProcs()
	tv := unix.Timeval{Sec: heldTimeout}
	for _, opt := range []int{unix.SO_RCVTIMEO, unix.SO_SNDTIMEO} {
		if err := unix.SetsockoptTimeval(f.Sysfd(), unix.SOL_SOCKET, opt, &tv); err != nil {
			return os.NewSyscallError("setsockopt SO_RCVTIMEO/SO_SNDTIMEO", err)
		}
	}
	domain, err := unix.GetsockoptInt(f.Sysfd(), unix.SOL_SOCKET, unix.SO_DOMAIN)
	if err != nil {
		return os.NewSyscallError("getsockopt SO_DOMAIN", err)
	}
	f.pollIn = domain == unix.AF_UNIX
	return nil
}

// A held read on a UNIX stream waits for its bytes in ppoll(2) before it
// reads them, where one on TCP sleeps in recvfrom(2) itself. A reader asleep
// in a UNIX stream's recvfrom waits on the socket's one wait queue without
// saying for what, and the peer's every read of what this side sent frees
// this side's send buffer and wakes that queue (unix_write_space): on a
// shared CPU the sleeping reader is woken for nothing, preempts the peer on
// its way out of that read, finds nothing and sleeps again. poll's waits
// are keyed: a wake-up for room to write passes a reader waiting for bytes
// (pollwake). The tracer's TestTracedRequests counts the extra context
// switch and wake-up a round trip that a recvfrom wait costs on a UNIX
// stream (docs/measurements.md, "Held calls"); TCP wakes for room only a
// writer that found none (sk_stream_write_space), so it keeps the one call.

// waitIn sleeps in ppoll(2) until f has bytes, an end or an error to read,
// heldTimeout passes (false: wait again) or a signal comes (EINTR, as for
// a held recvfrom).
func (f *FD) waitIn() (bool, unix.Errno) {
	pfd := unix.PollFd{Fd: int32(f.Sysfd()), Events: unix.POLLIN}
	ts := unix.Timespec{Sec: heldTimeout}
	var r uintptr
	var e unix.Errno
	if spareP() {
		r, _, e = unix.RawSyscall6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
	} else {
		refreshProcs()
		r, _, e = unix.Syscall6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
	}
	return r > 0, e
}

// A held FD makes each blocking recvfrom(2) or sendto(2) (see rawSock for
// why not read and write) raw while the goroutines holding Ps leave one
// for the rest of the program (spareP), through the scheduler otherwise
// (heldRW). sendto passes MSG_NOSIGNAL: a peer gone away is EPIPE alone,
// with no SIGPIPE for the runtime to field (send(2)).
//
// A process pinned to one CPU (taskset -c 0) starts with GOMAXPROCS 1, and
// HoldP raises it to 2, so a P is spare and the raw path is the one taken
// there too: each side then makes one receive and one send per round trip,
// as sockperf does, and the runtime's own calls (futex, nanosleep, tgkill)
// come only from sysmon's preemption every 10 ms; perf record shows
// syscall.RawSyscall6 and no entersyscall (docs/measurements.md, "Held
// calls").

// What the held path cannot shed, because a Go program is multithreaded:
// every recvfrom(2) and sendto(2) looks its descriptor up with fdget,
// which borrows the file without a reference only while the caller's file
// table has one user (__fget_light, fs/file.c); in a process whose threads
// share the table it takes a reference and drops it (fput) on every call.
// perf record -a -C 0 -e cpu-clock of pingpong against pongd, both on CPU 0,
// shows fput on each side where a single-threaded C pair doing the same
// calls shows none, and unshare(CLONE_FILES) on the calling thread takes it
// away again (docs/measurements.md, "Held calls"). A private file table is
// not taken here: the held
// thread would keep every other descriptor of the moment open (a
// connection closed elsewhere would send no FIN while it lived), would not
// see descriptors opened since (a reconnect dials on another thread's
// table), and its copy of the socket would need closing on that thread as
// well as the shared one; the reference is left to the kernel instead.

// spareP reports, from seenProcs, whether a held FD may wait raw.
func spareP() bool { return seenProcs.Load() > procs.held.Load() }

// heldRW is a held FD's call when no P is spare: through the scheduler
// (entersyscall), so that a goroutine asleep in it leaves its P to others.
// That bookkeeping costs more than the exact check, and it
// lets the raw path back once a P is spare again.
func (f *FD) heldRW(trap uintptr, p []byte) (int, unix.Errno) {
	refreshProcs()
	var flags uintptr
	if trap == unix.SYS_SENDTO {
		flags = unix.MSG_NOSIGNAL
	}
	r, _, e := unix.Syscall6(trap, uintptr(f.Sysfd()), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)), flags, 0, 0)
	return int(r), e
}

// seenProcs is GOMAXPROCS as a held FD last read it, so that the hot path
// compares two atomics instead of calling runtime.GOMAXPROCS(0), which takes
// the scheduler's lock, twice per message per side. The comparison of two
// atomics is what a held call pays for knowing whether it may wait raw
// (docs/measurements.md, "Held calls").
//
// A stale value is safe either way. Too low (HoldP has just raised
// GOMAXPROCS), the call goes through the scheduler, which refreshes it.
// Too high (GOMAXPROCS lowered since, as testing.AllocsPerRun does), a
// holder may sleep in a raw call holding the last P; but changing
// GOMAXPROCS stops the world, which interrupts every raw sleeper (EINTR,
// see rawio_linux.go), and an interrupted or timed-out wait refreshes it;
// a holder that was running then is preempted by sysmon within 10 ms of
// its next sleep, the same way. So at most one wait of about 10 ms per
// holder per change, where reading GOMAXPROCS per call costs every message
// (TestHeldFallsBackWhenProcsDrop).
var seenProcs atomic.Int32

// refreshProcs rereads GOMAXPROCS into seenProcs.
func refreshProcs() { seenProcs.Store(int32(runtime.GOMAXPROCS(0))) }

// Held is a Blocking FD made ready by SetHeld, read and written through
// io.Reader and io.Writer: its Read and Write are the held calls themselves
// (ReadHeld and WriteHeld), so that a caller holding it as an interface
// reaches the system call in two frames, this method and sockcall, with no
// wrapper method between. Every frame of a round trip runs cold after the
// peer's turn (sockcall_linux.go), and each wrapper method between the
// caller and the call is one more cold frame a message pays for
// (docs/measurements.md, "Held calls").
//
// A held call is made with rawSock while a P is spare (spareP) and through
// heldRW otherwise; it refreshes seenProcs and yields on EINTR (how
// sysmon's preemption reaches it, rawio_linux.go), repeats on EAGAIN (its
// SO_RCVTIMEO or SO_SNDTIMEO expired) and reports EBADF as ErrClosed.
// ReadNonblock and WriteNonblock read the kernel's answers alike for a
// non-blocking FD, but for those three.
type Held FD

// FD returns h as the FD it is.
func (h *Held) FD() *FD { return (*FD)(h) }

// Read reads into p, sleeping in the kernel until data, EOF (io.EOF; also
// after Interrupt) or an error.
func (h *Held) Read(p []byte) (int, error) {
	f := (*FD)(h)
	if len(p) == 0 {
		return 0, nil
	}
	for {
		if f.pollIn {
			switch ready, e := f.waitIn(); {
			case e == unix.EINTR:
				runtime.Gosched()
				refreshProcs()
				continue
			case e != 0:
				return 0, os.NewSyscallError("ppoll", e)
			case !ready:
				refreshProcs()
				continue // heldTimeout passed
			}
		}
		// Chosen here, not in a helper, so that rawSock stays inlined.
		var n int
		var e unix.Errno
		if spareP() {
			n, e = rawSock(unix.SYS_RECVFROM, f.Sysfd(), p, 0)
		} else {
			n, e = f.heldRW(unix.SYS_RECVFROM, p)
		}
		switch e {
		case 0:
			if n == 0 {
				return 0, io.EOF
			}
			return n, nil
		case unix.EINTR:
			runtime.Gosched()
			refreshProcs() // the world may have stopped: see seenProcs
			continue
		case unix.EAGAIN:
			refreshProcs()
			continue // SO_RCVTIMEO expired
		case unix.EBADF:
			return 0, ErrClosed
		}
		return 0, os.NewSyscallError("recvfrom", e)
	}
}

// Write writes all of p.
func (h *Held) Write(p []byte) (int, error) {
	f := (*FD)(h)
	done := 0
	for done < len(p) {
		var n int
		var e unix.Errno
		if spareP() {
			n, e = rawSock(unix.SYS_SENDTO, f.Sysfd(), p[done:], unix.MSG_NOSIGNAL)
		} else {
			n, e = f.heldRW(unix.SYS_SENDTO, p[done:])
		}
		if n > 0 {
			done += n
		}
		switch e {
		case 0:
			continue
		case unix.EINTR:
			runtime.Gosched()
			refreshProcs()
			continue
		case unix.EAGAIN:
			refreshProcs()
			continue // SO_SNDTIMEO expired
		case unix.EBADF:
			return done, ErrClosed
		}
		return done, os.NewSyscallError("sendto", e)
	}
	return done, nil
}

// Close is FD.Close.
func (h *Held) Close() error { return (*FD)(h).Close() }

// Interrupt is FD.Interrupt.
func (h *Held) Interrupt() { (*FD)(h).Interrupt() }

// ReadHeld reads into p from a Blocking FD made ready by SetHeld, as
// Held.Read does.
func (f *FD) ReadHeld(p []byte) (int, error) { return (*Held)(f).Read(p) }

// WriteHeld writes all of p to a Blocking FD made ready by SetHeld, as
// Held.Write does.
func (f *FD) WriteHeld(p []byte) (int, error) { return (*Held)(f).Write(p) }
